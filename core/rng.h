// Deterministic, portable random numbers for data generation.
//
// std::uniform_int_distribution and friends are implementation-defined, so generated data could differ
// between standard libraries; these helpers are defined here, bit for bit, on top of std::mt19937_64
// (whose output sequence the standard fixes).
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

namespace rb {

// SplitMix64 finaliser: a good 64-bit mixer for deriving independent seeds.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// FNV-1a of a string, mixed: stable across runs and machines.
inline uint64_t hash_string(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return mix64(h);
}

// Derives a child seed from a parent seed and a purpose, e.g. derive_seed(seed, "train", step).
inline uint64_t derive_seed(uint64_t parent, std::string_view purpose, uint64_t index = 0) {
  return mix64(parent ^ hash_string(purpose) ^ mix64(index + 0x632BE59BD9B4E019ull));
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t next() { return engine_(); }

  // Uniform integer in [0, n), n > 0, by rejection (no modulo bias).
  int64_t below(int64_t n) {
    const uint64_t un = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % un;
    uint64_t x;
    do x = engine_(); while (x >= limit);
    return static_cast<int64_t>(x % un);
  }

  // Uniform integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace rb
