// Results as data (see results.h).
#include "core/results.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/json_io.h"

namespace rb {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string Config::task_label() const {
  std::string label = task;
  for (const auto& [k, v] : task_options.items()) {
    if (v.is_primitive()) label += " " + k + ":" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return label;
}

void Config::set_train(json train) {
  train_ = std::move(train);
  recipe_ = Recipe{};
  if (!train_.is_object()) return;
  recipe_.steps = integer_or(train_, "steps", 0);
  recipe_.threshold = number_or(train_, "threshold", kDefaultThreshold);
  recipe_.curriculum = string_or(train_, "curriculum", "none");
  recipe_.eval_every = number_or(train_, "eval_every", 0.0);
  if (train_.contains("lr")) recipe_.lr_text = train_.at("lr").dump();
  recipe_.lr = number_or(train_, "lr", std::nan(""));
}

std::string commit_of(const json& context, size_t digits) {
  const std::string commit = string_or(context, "git_commit", "unknown");
  return digits > 0 && commit.size() > digits ? commit.substr(0, digits) : commit;
}

double Config::task_number(const std::string& option) const {
  if (!task_options.contains(option) || !task_options.at(option).is_number()) return kNaN;
  return task_options.at(option).get<double>();
}

Tally tally(const Config& config) {
  Tally t;
  t.n = static_cast<int64_t>(config.seeds.size());
  for (const auto& seed : config.seeds) {
    t.k += seed.locked_in() ? 1 : 0;
    t.failed += seed.ok() ? 0 : 1;
  }
  return t;
}

std::vector<double> recalls(const Config& config) {
  std::vector<double> out;
  out.reserve(config.seeds.size());
  for (const auto& s : config.seeds) out.push_back(std::isfinite(s.final_accuracy) ? s.final_accuracy : 0.0);
  return out;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

std::string setting_key(const Config& c, Rates rates) {
  json train = c.train();
  if (rates == Rates::kPerCell && train.is_object()) train.erase("lr");
  return json{{"task", c.task}, {"task_options", c.task_options}, {"model", c.model}, {"train", train}}.dump();
}

Spread spread(std::vector<double> values) {
  Spread s;
  if (values.empty()) {
    s.mean = s.median = s.sd = s.min = s.max = s.q1 = s.q3 = kNaN;
    return s;
  }
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double ss = 0.0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = values.size() > 1 ? std::sqrt(ss / static_cast<double>(values.size() - 1)) : 0.0;
  s.min = values.front();
  s.max = values.back();
  s.median = quantile(values, 0.5);
  s.q1 = quantile(values, 0.25);
  s.q3 = quantile(values, 0.75);
  return s;
}

std::string config_hash(const Config& c) {
  return short_hash(json{{"cell", {{"name", c.cell}, {"options", c.cell_options}}},
                         {"model", c.model},
                         {"task", {{"name", c.task}, {"options", c.task_options}}},
                         {"train", c.train()}});
}

}  // namespace rb
