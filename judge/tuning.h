// A cell's learning rate, chosen on tuning seeds that its row is never scored on (issue 44; the rule and the
// pilot behind it: docs/leaderboard.md "Learning rates").
//
// The tuning runs of a cell are configs that differ only in the recipe's learning rate (at every task point
// the row covers). Per rate, the runs of the tuning seeds are pooled over the task points and a rule picks:
//   lock-ins-then-recall (the default): the most lock-ins; then the higher median final recall; then the
//     shortest mean steps to lock-in (a run that never locked in counted at its step budget); then the lower
//     rate. It orders rates as the board ranks cells: lock-in counts, then recall where counts tie.
//   lock-ins-then-time: the most lock-ins; then the shortest mean steps; then the higher median recall; then
//     the lower rate. (The leaderboard's pilot: with equal lock-ins, the time step decides on the one task
//     point where the cell locks in and can pick a rate at which it has collapsed everywhere else; mamba2 chose
//     3e-2, median recall 0.035, over 3e-3, 0.208, for 45 steps.)
// Runs of every other seed are left out, counted, and never looked at, so the seeds a row is scored on cannot
// move its rate.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/results.h"

namespace rb::judge {

// One rate of one cell, over its tuning runs.
struct RateRow {
  double lr = NAN;
  int64_t runs = 0;             // tuning runs (seeds × task points)
  int64_t locked_in = 0;
  double mean_steps = NAN;      // mean steps to lock-in, a run that never locked in at its budget
  double median_recall = NAN;   // median final recall
};

// Which step of the rule decided (the rows behind it are RateChoice::rows).
enum class RateReason { kOnlyRate, kMostLockIns, kShortestTime, kHigherRecall, kLowerRate };

enum class TuningRule { kLockInsThenRecall, kLockInsThenTime };
const char* tuning_rule_name(TuningRule rule);                   // "lock-ins-then-recall", ...
std::optional<TuningRule> parse_tuning_rule(const std::string& name);  // nullopt for an unknown name
inline constexpr const char* kTuningRuleNames = "lock-ins-then-recall, lock-ins-then-time";

struct RateChoice {
  std::string cell;
  double lr = NAN;
  RateReason reason = RateReason::kOnlyRate;
  std::vector<RateRow> rows;    // one per rate, ascending
  int64_t left_out = 0;         // runs of seeds outside the tuning seeds (not used)

  // The chosen rate is neither the lowest nor the highest tried: the grid brackets it.
  bool interior() const { return rows.size() >= 3 && lr != rows.front().lr && lr != rows.back().lr; }
};

// The choice for `cell` over `configs` (any configs: those of other cells are ignored), on `tuning_seeds`
// only. Configs of the cell without a learning rate, or a cell with no tuning run: UsageError.
RateChoice choose_rate(const std::string& cell, const std::vector<Config>& configs,
                       const std::vector<int64_t>& tuning_seeds, TuningRule rule = TuningRule::kLockInsThenRecall);

// Every cell of `configs`, in name order.
std::vector<RateChoice> choose_rates(const std::vector<Config>& configs, const std::vector<int64_t>& tuning_seeds,
                                     TuningRule rule = TuningRule::kLockInsThenRecall);

const char* rate_reason_name(RateReason r);  // "only rate", "most lock-ins", ...

}  // namespace rb::judge
