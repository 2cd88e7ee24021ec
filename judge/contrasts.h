// Contrasts: two configurations of one result set that differ in one knob (e.g. conv on/off), declared by the
// battery (its plan.json) or inferred from the cells' registered knobs, each tested with a two-sided Fisher
// exact test on the lock-in counts, adjusted across the battery's contrasts. The report shows them beside the
// gate (judge/recall_gate.h), which compares a result set with a baseline instead; their JSON:
// reports/report.h contrasts_to_json.
//
//   std::vector<ContrastResult> r = test_contrasts(runs.configs, infer_contrasts(runs.configs));
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/results.h"
#include "stats/stats.h"

namespace rb::judge {

// One tested contrast.
struct ContrastResult {
  ContrastSpec spec;
  int64_t k_a = 0, n_a = 0, k_b = 0, n_b = 0;
  double rate_diff = 0.0;         // rate_a − rate_b
  double recall_diff = 0.0;       // median recall a − b
  double p = 1.0;                 // two-sided Fisher exact p on the lock-in counts
  double p_adj = 1.0;             // adjusted across the battery's contrasts (`adjust`, Holm by default)
  std::string adjust = "holm";    // the adjustment (the gate's --adjust)
  double odds_ratio = 0.0;        // conditional MLE, with its exact interval
  double or_low = 0.0, or_high = 0.0;
  double p_recall = 1.0;          // two-sided Mann–Whitney p on per-seed recall (unadjusted)
  bool significant = false;       // stats::significant(p_adj, alpha)
  bool missing = false;           // an arm has no results: not tested
};

// Pairs of configs whose cells' registered knobs (Config::knobs) differ in exactly one (core/knobs.h:
// diag vs diag+conv, diag vs rank1), with everything else (task, model shape, recipe: setting_key) equal.
// Configs read from documents older than the knobs field have none and form no inferred contrast.
std::vector<ContrastSpec> infer_contrasts(const std::vector<Config>& configs);

// Tests each contrast (two-sided Fisher on lock-in counts), adjusted across all of them by `adjust`.
std::vector<ContrastResult> test_contrasts(const std::vector<Config>& configs, const std::vector<ContrastSpec>& specs,
                                           double alpha = 0.05,
                                           stats::AdjustMethod adjust = stats::AdjustMethod::kHolm);

}  // namespace rb::judge
