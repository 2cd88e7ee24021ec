// The fuzz input as a file, for targets whose loader takes a path (read_baseline, read_claims,
// read_leaderboard): written to one file per target and process under /tmp, overwritten on every input.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

inline const std::string& fuzz_input_file(const char* target, const uint8_t* data, size_t size) {
  static const std::string path = std::string("/tmp/recallbench-fuzz-") + target + "-" + std::to_string(::getpid()) + ".json";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}
