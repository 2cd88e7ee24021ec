#include "core/options.h"

#include "core/errors.h"
#include "core/json_io.h"

namespace rb {

OptionReader::OptionReader(std::string where, const nlohmann::json& given, nlohmann::json defaults)
    : where_(std::move(where)), resolved_(std::move(defaults)) {
  if (given.is_null()) return;
  if (!given.is_object()) throw UsageError(where_ + ": options must be a JSON object, got " + given.dump());
  for (const auto& item : given.items()) {
    const std::string& key = item.key();  // named, not a structured binding: lambdas below capture them (C++17)
    const nlohmann::json& value = item.value();
    auto it = resolved_.find(key);
    if (it == resolved_.end()) {
      std::string valid;
      for (const auto& [k, v] : resolved_.items()) valid += (valid.empty() ? "" : ", ") + k;
      throw UsageError(where_ + ": unknown option '" + key + "'", "valid options: " + valid);
    }
    const auto& def = *it;
    const auto bad_type = [&](const char* expected) {
      return UsageError(where_ + ": option '" + key + "' expects " + expected + ", got " + value.dump());
    };
    if (def.is_number_integer()) {
      if (value.is_number_integer()) *it = value.get<int64_t>();
      else if (value.is_number_float()) {
        try {
          *it = checked_integer(value, key);  // a whole number an int64 holds: never a cast out of range
        } catch (const UsageError&) {
          throw bad_type("an integer");
        }
      } else if (value.is_string()) {
        try {
          size_t pos = 0;
          const int64_t v = std::stoll(value.get<std::string>(), &pos);
          if (pos != value.get<std::string>().size()) throw bad_type("an integer");
          *it = v;
        } catch (const std::logic_error&) {
          throw bad_type("an integer");
        }
      } else throw bad_type("an integer");
    } else if (def.is_number()) {
      if (value.is_number()) *it = value.get<double>();
      else if (value.is_string()) {
        try {
          size_t pos = 0;
          const double v = std::stod(value.get<std::string>(), &pos);
          if (pos != value.get<std::string>().size()) throw bad_type("a number");
          *it = v;
        } catch (const std::logic_error&) {
          throw bad_type("a number");
        }
      } else throw bad_type("a number");
    } else if (def.is_boolean()) {
      if (value.is_boolean()) *it = value;
      else if (value == "true" || value == "1") *it = true;
      else if (value == "false" || value == "0") *it = false;
      else throw bad_type("true or false");
    } else if (def.is_string()) {
      if (!value.is_string()) throw bad_type("a string");
      *it = value;
    } else {
      *it = value;
    }
  }
}

const nlohmann::json& OptionReader::at(const std::string& key) const {
  auto it = resolved_.find(key);
  RB_ASSERT(it != resolved_.end(), where_ + ": option '" + key + "' read but not declared in the defaults");
  return *it;
}

int64_t OptionReader::integer(const std::string& key) const {
  const int64_t v = at(key).get<int64_t>();
  if (v < -kMaxOptionInteger || v > kMaxOptionInteger)
    throw UsageError(where_ + ": option '" + key + "' got " + std::to_string(v) + ", expected at most " +
                     std::to_string(kMaxOptionInteger) + " in size (no trainable setting is larger)");
  return v;
}
double OptionReader::number(const std::string& key) const { return at(key).get<double>(); }
bool OptionReader::flag(const std::string& key) const { return at(key).get<bool>(); }
std::string OptionReader::text(const std::string& key) const { return at(key).get<std::string>(); }

void OptionReader::require_range(const std::string& key, double lo, double hi) const {
  const double v = at(key).get<double>();
  if (!(v >= lo && v <= hi)) {
    throw UsageError(where_ + ": option '" + key + "' must be in [" + nlohmann::json(lo).dump() + ", " +
                     nlohmann::json(hi).dump() + "], got " + at(key).dump());
  }
}

}  // namespace rb
