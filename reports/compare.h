// The regression gate: configurations of a current result set against a stored baseline, matched by
// config key, each judged regression / improvement / no change / inconclusive; and the battery's
// contrasts (pairs of configurations differing in one knob) tested against each other.
//
// Decision rule (../shared/reference/regression_gating.md §4): per matched config two one-sided tests in
// the direction of a drop: Fisher's exact test on the lock-in counts (k/n baseline vs current) and
// Mann–Whitney U on the per-seed recall (final held-out accuracy). All drop tests of the comparison form
// one family, Holm-adjusted (family-wise error ≤ alpha); the rise tests form a second family. A config is
//   regression    when a drop test is significant after adjustment AND the drop is at least the minimum
//                 effect (lock-in rate, or median recall);
//   improvement   likewise for a rise (and no regression);
//   inconclusive  when the seeds cannot reach significance at all at the adjusted level (smallest
//                 attainable p > alpha / tests), or a change of at least the minimum effect was seen but
//                 is not significant; the verdict then says how many seeds per side the Fisher power
//                 calculation needs;
//   no change     otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results.h"
#include "stats/stats.h"

namespace rb::reports {

// How the gate decides.
struct GateOptions {
  double alpha = 0.05;            // family-wise error rate of the regression tests (after adjustment)
  double min_lockin_drop = 0.2;   // smallest change in lock-in rate that counts, as a fraction (20 points)
  double min_recall_drop = 0.05;  // smallest change in median per-seed recall that counts
  double target_power = 0.8;      // power the "seeds needed" calculation aims for
  stats::AdjustMethod adjust = stats::AdjustMethod::kHolm;  // multiple-comparison adjustment
  int64_t max_seeds = 200;        // the seed calculation gives up above this
};

enum class Verdict { kNoChange, kImprovement, kInconclusive, kRegression };
// "no change", "improvement", "inconclusive", "regression".
const char* verdict_name(Verdict v);

// One matched configuration.
struct ConfigComparison {
  std::string key;
  const Config* baseline = nullptr;
  const Config* current = nullptr;
  int64_t k_base = 0, n_base = 0, k_cur = 0, n_cur = 0;
  double rate_change = 0.0;           // current rate − baseline rate (negative: a drop)
  double recall_base = 0.0;           // median per-seed recall, baseline
  double recall_cur = 0.0;            // median per-seed recall, current
  double recall_change = 0.0;         // recall_cur − recall_base
  double p_lockin_drop = 1.0;         // one-sided Fisher p, H1: current lock-in rate lower
  double p_lockin_rise = 1.0;         // one-sided Fisher p, H1: current rate higher
  double p_recall_drop = 1.0;         // one-sided Mann–Whitney p, H1: current recall lower
  double p_recall_rise = 1.0;
  double p_lockin_drop_adj = 1.0;     // the same after adjustment across the comparison
  double p_lockin_rise_adj = 1.0;
  double p_recall_drop_adj = 1.0;
  double p_recall_rise_adj = 1.0;
  double min_attainable_p = 1.0;      // smallest one-sided p these seed counts can give (both tests)
  double level_needed = 0.0;          // alpha / tests: what a lone change must reach after Holm
  Verdict verdict = Verdict::kNoChange;
  std::string reason;                 // one line: why this verdict
  int64_t seeds_needed = 0;           // inconclusive: about how many seeds per side reach the target power for
                                      // the planned effect (0: none up to max_seeds)
  double planned_from = 0.0;          // the lock-in rates the seed count plans for (from → to)
  double planned_to = 0.0;
  double planned_power = 0.0;         // Fisher power at seeds_needed
};

// The whole comparison.
struct Comparison {
  GateOptions options;
  std::vector<ConfigComparison> configs;        // matched, sorted by verdict severity then key
  std::vector<std::string> missing_in_current;  // baseline configs the current results lack
  std::vector<std::string> missing_in_baseline; // current configs the baseline lacks (new)
  int64_t tests = 0;                            // tests in the drop family
  Verdict verdict = Verdict::kNoChange;         // worst of the configs: regression > inconclusive > improvement > no change
  int64_t regressions = 0, improvements = 0, inconclusive = 0, unchanged = 0;
  json baseline_context = json::object();
  json current_context = json::object();
};

// Refuses to compare across different training recipes or state budgets: when a baseline config and a
// current config are the same cell on the same task (and model shape) but differ in recipe (spec.train)
// or in state budget/size, and neither has a same-key partner, throws UsageError saying which field
// differs. Called by compare().
void check_comparable(const std::vector<Config>& baseline, const std::vector<Config>& current);

// Compares `current` against `baseline` (see the file comment). Throws UsageError when nothing matches
// or the two are not comparable.
Comparison compare(const std::vector<Config>& baseline, const std::vector<Config>& current,
                   const GateOptions& options = {});

// The process exit code: 1 on a regression, 3 when inconclusive and `fail_on_inconclusive`, else 0.
int gate_exit_code(const Comparison& comparison, bool fail_on_inconclusive);

json comparison_to_json(const Comparison& comparison);

// ---------------------------------------------------------------------------------------------------
// Contrasts: two configurations of one battery that differ in one knob (e.g. conv on/off).
// ---------------------------------------------------------------------------------------------------


struct ContrastResult {
  ContrastSpec spec;
  int64_t k_a = 0, n_a = 0, k_b = 0, n_b = 0;
  double rate_diff = 0.0;         // rate_a − rate_b
  double recall_diff = 0.0;       // median recall a − b
  double p = 1.0;                 // two-sided Fisher exact p on the lock-in counts
  double p_adj = 1.0;             // Holm-adjusted across the battery's contrasts
  double odds_ratio = 0.0;        // conditional MLE, with its exact interval
  double or_low = 0.0, or_high = 0.0;
  double p_recall = 1.0;          // two-sided Mann–Whitney p on per-seed recall (unadjusted)
  bool significant = false;       // p_adj ≤ alpha
  bool missing = false;           // an arm has no results: not tested
};

// Pairs of configs whose cells differ by exactly one '+'-joined knob (diag vs diag+conv) or one
// transition swap (diag vs rank1), with everything else (task, model shape, recipe) equal.
std::vector<ContrastSpec> infer_contrasts(const std::vector<Config>& configs);

// Tests each contrast (two-sided Fisher on lock-in counts), Holm-adjusted across all of them.
std::vector<ContrastResult> test_contrasts(const std::vector<Config>& configs, const std::vector<ContrastSpec>& specs,
                                           double alpha = 0.05);

json contrasts_to_json(const std::vector<ContrastResult>& contrasts);

}  // namespace rb::reports
