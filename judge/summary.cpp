#include "judge/summary.h"

#include <algorithm>

namespace rb::judge {

ConfigSummary summarize(const Config& config, double level) {
  ConfigSummary s;
  s.level = level;
  const Tally t = tally(config);
  s.k = t.k, s.n = t.n, s.failed = t.failed, s.rate = t.rate();
  std::vector<double> steps;
  for (const auto& seed : config.seeds)
    if (seed.locked_in() && seed.lock_in_step >= 0) steps.push_back(static_cast<double>(seed.lock_in_step));
  s.ci = s.n ? stats::clopper_pearson(s.k, s.n, level) : stats::Interval{0.0, 1.0};
  s.recall = spread(recalls(config));
  if (!steps.empty()) s.median_lock_in_step = spread(steps).median;
  s.learning = config_learning(config);
  s.floor_bits_per_number = config.state_size > 0 ? config.capacity_bits / static_cast<double>(config.state_size) : 0.0;
  return s;
}

std::vector<stats::SurvivalObservation> lock_in_times(const Config& config, int64_t budget) {
  std::vector<stats::SurvivalObservation> out;
  for (const auto& s : config.seeds) {
    const LockInTime t = s.time_to_lock_in(budget);
    out.push_back({t.time, t.event});
  }
  return out;
}

int64_t censoring_budget(const Config& c) {
  int64_t budget = c.step_budget();
  for (const auto& s : c.seeds) budget = std::max({budget, s.steps, s.lock_in_step});
  return budget;
}

}  // namespace rb::judge
