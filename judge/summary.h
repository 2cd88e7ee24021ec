// A configuration summarised: lock-in k/n with its exact interval, recall spread, median steps to lock in,
// the bits each state number must carry. What the pages show beside every verdict.
#pragma once

#include <cstdint>

#include "core/results.h"
#include "judge/learning.h"
#include "stats/stats.h"

namespace rb::judge {

struct ConfigSummary {
  int64_t k = 0;                  // seeds that locked in
  int64_t n = 0;                  // seeds
  double rate = 0.0;              // k / n
  stats::Interval ci;             // Clopper–Pearson interval of the lock-in rate at `level`
  double level = 0.95;
  Spread recall;                  // per-seed final held-out accuracy
  double median_lock_in_step = -1.0;  // median over the seeds that locked in; -1 when none did
  int64_t failed = 0;             // seeds whose status is not ok (diverged, error)
  double floor_bits_per_number = 0.0;  // capacity_bits / state_size: bits each state number must carry
  ConfigLearning learning;        // the seeds that did not lock in: plateaued or budget-limited (judge/learning.h)
};
ConfigSummary summarize(const Config& config, double level = 0.95);

// The seeds of a config as survival data: an event at the lock-in step, or censored at `budget`
// (Outcome::time_to_lock_in).
std::vector<stats::SurvivalObservation> lock_in_times(const Config& config, int64_t budget);

// Where a seed that never locked in is censored: the recipe's step budget, or (a document without one) the
// last step any seed reached.
int64_t censoring_budget(const Config& config);

}  // namespace rb::judge
