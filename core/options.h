// Reading a unit's options (a task's, a cell's) from JSON against its defaults.
//
//   OptionReader r("task mqar", given, {{"pairs", 8}, {"length", 64}});
//   int64_t pairs = r.integer("pairs");
//   json resolved = r.resolved();   // defaults filled in: what the run records and hashes
//
// Unknown keys and wrong types are UsageErrors that name the option and list the valid ones.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rb {

// Every integer option is at most this in size (2^30): far above any trainable setting, and small enough that
// the sums and products of options a unit checks (2·n + 1 <= length, pairs × distance) cannot overflow.
inline constexpr int64_t kMaxOptionInteger = int64_t{1} << 30;

class OptionReader {
 public:
  OptionReader(std::string where, const nlohmann::json& given, nlohmann::json defaults);

  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::string text(const std::string& key) const;

  // Checks that `value` is in [lo, hi]; throws "<where>: option 'key' must be in [lo, hi], got v".
  void require_range(const std::string& key, double lo, double hi) const;

  // The given options merged over the defaults, numbers normalised to the default's type.
  const nlohmann::json& resolved() const { return resolved_; }

 private:
  const nlohmann::json& at(const std::string& key) const;
  std::string where_;
  nlohmann::json resolved_;
};

}  // namespace rb
