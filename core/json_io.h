// JSON file I/O with the guarantees the results store relies on.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace rb {

using json = nlohmann::json;

// Writes `text` to `path` atomically: a temporary file in the same directory (unique per process and call),
// fsync, then rename; creates the directory. A reader never sees a half-written file; a crash leaves either
// the old file or the new one. UsageError when it cannot.
void write_text_atomic(const std::filesystem::path& path, const std::string& text);
// write_text_atomic of `value` as JSON, indented by `indent`, with a final line break.
void write_json_atomic(const std::filesystem::path& path, const json& value, int indent = 2);

// Limits on every document the tool reads: far above any real one (a run file is ~10 KB, a paper-scale
// baseline a few MB), far below what could exhaust memory or the stack.
inline constexpr size_t kMaxJsonBytes = 256u << 20;
inline constexpr int kMaxJsonDepth = 64;

// Parses JSON text. Malformed JSON, a number out of range (1e999), a document larger than kMaxJsonBytes
// or nested deeper than kMaxJsonDepth, or a key repeated in one object: UsageError naming `where`.
json parse_json_text(const std::string& text, const std::string& where);

// Reads and parses a JSON file with parse_json_text's checks. Missing file or bad JSON: UsageError naming
// the file and the parser's position.
json read_json_file(const std::filesystem::path& path);
// The bytes of a regular file, opened without blocking: a directory, FIFO, socket, device or symlink loop is a
// UsageError naming what it is; a file over `max_bytes` too.
std::string read_regular_file(const std::filesystem::path& path, uintmax_t max_bytes);

// Runs `read` (code that takes fields out of a parsed document) and turns a JSON type or range error into
// a UsageError naming `where`: a field of the wrong type in a document the tool reads is bad input (exit 2),
// never an internal error.
template <class F>
auto with_json_errors(const std::string& where, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const json::exception& e) {
    throw UsageError(where + ": a field has the wrong type or value (" + e.what() + ")",
                     "the document is malformed; re-create it with recallbench");
  }
}

// The document's "kind" when it is an object with a string kind, else "" (a kind of another type, as in
// {"kind": [...]}, is not a kind: `value("kind", "")` would throw a type error there).
std::string kind_of(const json& doc);

// object[key] when `object` is an object whose `key` is a string, else `fallback`: for free-form fields that are
// only shown (a run context's git_commit or date, a cell's description), where one of another type is shown as
// unknown. `object.value(key, fallback)` would throw a type error there.
std::string string_or(const json& object, const std::string& key, const std::string& fallback);
// object[key] when it is a number, else `fallback` (absent, null or another type).
double number_or(const json& object, const char* key, double fallback);
// object[key] as an int64 when it is a number (checked_integer: UsageError when it is not a whole number in
// range), else `fallback`.
int64_t integer_or(const json& object, const char* key, int64_t fallback);

// A JSON number as an int64, or UsageError naming `name` when it is not a whole number within int64's range
// (a float such as 4.4e24 would otherwise convert with undefined behaviour).
int64_t checked_integer(const json& value, const std::string& name);

// 12 hex digits of a stable 64-bit hash of `j.dump()` (keys sorted, so canonical): the trailing part of a
// config key (suite/spec.h).
std::string short_hash(const json& j);
// The same 12 hex digits over raw bytes (a TorchScript cell file's content hash).
std::string short_hash_of(const std::string& bytes);
// Whether `key` ends with "/<hash>": how readers check a stored key against the hash of its fields.
bool key_ends_with_hash(const std::string& key, const std::string& hash);

// What a config key's hash covers, from a run spec's JSON ({cell, model, task, train, seed}): everything but
// the seed and a TorchScript cell's path (its content hash, a cell option, stands for the file). Readers of
// stored configs recompute it to catch fields that contradict their key.
json canonical_config(const json& spec);

// Returns `object[key]` converted to T, or throws UsageError "<where>: field '<key>' ..." when the
// field is missing or has the wrong type.
template <class T>
T require_field(const json& object, const std::string& key, const std::string& where);

}  // namespace rb
