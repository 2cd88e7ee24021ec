// JSON file I/O with the guarantees the results store relies on.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace rb {

using json = nlohmann::json;

// Writes `value` to `path` atomically: a temporary file in the same directory, fsync, then rename.
// A reader never sees a half-written file; a crash leaves either the old file or the new one.
void write_json_atomic(const std::filesystem::path& path, const json& value, int indent = 2);

// Reads and parses a JSON file. Missing file or malformed JSON: UsageError naming the file and the
// parser's position.
json read_json_file(const std::filesystem::path& path);

// Returns `object[key]` converted to T, or throws UsageError "<where>: field '<key>' ..." when the
// field is missing or has the wrong type.
template <class T>
T require_field(const json& object, const std::string& key, const std::string& where);

}  // namespace rb
