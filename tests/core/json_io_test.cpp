#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/json_io.h"

namespace rb {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("rb_json_io_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(JsonIo, AtomicWriteLeavesNoTemporaries) {
  const auto dir = temp_dir();
  const auto path = dir / "sub" / "a.json";
  write_json_atomic(path, {{"x", 1}});
  write_json_atomic(path, {{"x", 2}});
  EXPECT_EQ(read_json_file(path)["x"], 2);
  int files = 0;
  for (const auto& e : fs::directory_iterator(path.parent_path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(JsonIo, MalformedJsonNamesTheFile) {
  const auto dir = temp_dir();
  const auto path = dir / "bad.json";
  std::ofstream(path) << "{\"x\": 1,";
  try {
    read_json_file(path);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed JSON in " + path.string()), std::string::npos);
  }
  EXPECT_THROW(read_json_file(dir / "missing.json"), UsageError);
  fs::remove_all(dir);
}

// Free-form fields that are only shown: one of another type is the fallback, never a JSON type error (issue 28).
TEST(JsonIo, StringOrFallsBackOnAnotherType) {
  const json context = {{"git_commit", "abc"}, {"date", json::array({1})}, {"host", 5}};
  EXPECT_EQ(string_or(context, "git_commit", "unknown"), "abc");
  EXPECT_EQ(string_or(context, "date", ""), "");
  EXPECT_EQ(string_or(context, "host", "?"), "?");
  EXPECT_EQ(string_or(context, "absent", "?"), "?");
  EXPECT_EQ(string_or(json::array({1}), "git_commit", "unknown"), "unknown");
  EXPECT_EQ(string_or(json(nullptr), "git_commit", "unknown"), "unknown");
}

// Duplicate keys are found per object, in one pass: the same key in sibling or nested objects is fine, a repeat in
// one object is refused wherever it is (the last of 120,000 keys here; core/json_bench times it per MB).
TEST(JsonIo, DuplicateKeysAreFoundPerObject) {
  EXPECT_NO_THROW(parse_json_text(R"({"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 1}, {"a": 2}]})", "t"));
  EXPECT_THROW(parse_json_text(R"({"a": {"x": 1, "y": 2, "x": 3}})", "t"), UsageError);
  std::string text = "{";
  for (int i = 0; i < 120000; ++i) text += "\"k" + std::to_string(i) + "\":0,";
  EXPECT_NO_THROW(parse_json_text(text.substr(0, text.size() - 1) + "}", "t"));
  try {
    parse_json_text(text + "\"k7\":1}", "t");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'k7' appears twice"), std::string::npos);
  }
}

}  // namespace
}  // namespace rb
