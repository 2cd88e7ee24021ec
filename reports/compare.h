// The regression gate: configurations of a current result set against a stored baseline, matched by
// config key, each judged regression / improvement / no change / inconclusive / model changed. (The battery's
// contrasts, pairs of configurations of one result set tested against each other, are reports/contrasts.h.)
//
// Decision rule (../shared/reference/regression_gating.md §4). First, per matched config, the model's
// identity as resolved at run time (state size, parameter count, architecture hash, resolved cell options)
// must be the same on both sides: a config whose model changed under an unchanged key is "model changed",
// never compared (a different architecture's numbers mean nothing against this baseline) unless the
// caller allows it on purpose; likewise the data's identity (task, data stream, independent seeds). Then,
// under the default rule (GateOptions::Rule::kPaired), one primary test per config, chosen from the
// baseline alone:
//   - when any baseline seed locked in, the paired sign test over the seeds both sides ran (runs are
//     deterministic per seed, so the two runs of one seed are exchangeable under no change) on which run of
//     each pair locks in first (censored at the budget), with a pair where only one run locks in at all
//     (McNemar's discordant pairs) weighted 5: two questions, "later?" and "lost its lock-in?", asked of the
//     same pairs in one exact test, so neither takes alpha from the other;
//   - when none did, the paired sign test on which run's recall is lower;
//   - where no seed pairs (a seed-shift A/A), the unpaired exact log-rank test, or Mann–Whitney on recall.
// Paired tests are group-sequential (stats::sequential_sign_test): looks of `stage_seeds` pairs up to
// `max_stages`, alpha spent by Pocock (default) or O'Brien–Fleming, a non-binding futility stop. The
// primary p-values of the configs form one Holm family (family-wise error ≤ alpha); Fisher on lock-in
// counts, Mann–Whitney on recall and the log-rank test are computed and reported as secondary, not gated.
// The old rule (Rule::kUnpaired, --unpaired) puts those three one-sided unpaired tests of every config in
// one family instead. Either way a config is
//   regression    when its test is significant after adjustment AND the change is at least the minimum
//                 effect (lock-in rate; median recall; restricted mean time to lock-in longer by
//                 min_slowdown, +20% by default);
//   improvement   likewise for a rise (and no regression);
//   inconclusive  when a sequential test is open (the gate runs the next look), the seeds cannot reach
//                 significance at all at the adjusted level, or a change of at least the minimum effect
//                 was seen but is not significant; the verdict then says how many seeds per side the
//                 Fisher power calculation needs;
//   no change     otherwise.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
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
  double min_slowdown = 0.2;      // smallest change in restricted mean time to lock-in that counts (+20%:
                                  // below the +30% the gate is sized to catch, as 20 points is below 30)
  bool allow_model_change = false;  // compare configs whose model changed anyway (flagged in the reason)
  bool allow_data_change = false;   // compare configs whose task or data stream changed anyway (flagged);
                                    // seeds that are not independent are never compared
  bool power_analysis = false;    // also compute each config's detectable effects (DetectableEffect; costs
                                  // a few hundred exact log-rank tests per config)
  // The decision rule (see the file comment): kPaired, one primary test per config; kUnpaired, the three
  // unpaired tests per config in one family (the rule before seeds were paired; --unpaired).
  enum class Rule { kPaired, kUnpaired } rule = Rule::kPaired;
  int64_t stage_seeds = 0;        // paired seeds per look of the sequential rule (0: one look of every pair)
  int64_t max_stages = 1;         // looks up to the cap (stage_seeds × max_stages pairs)
  stats::Spending spending = stats::Spending::kPocock;  // how the primary family's alpha is spent over looks
  double futility_p = 0.5;        // stop at a look, "no regression", when the sign test's p there exceeds this
};

// The smallest changes the gate detects with the target power for one baseline config, were the current
// side to bring `n_current` seeds, each tested alone at `level` (alpha / tests: what Holm asks of a lone
// change) together with the minimum effect.
struct DetectableEffect {
  double lock_in_from = 0.0;     // the baseline's lock-in rate
  double lock_in_to = NAN;       // the highest lower rate detected with the target power (exact Fisher power);
                                 // NaN when no drop is
  double slowdown = NAN;         // the smallest factor on every seed's steps to lock-in detected with the target
                                 // power (exact log-rank test, simulated by resampling the baseline's seeds;
                                 // factors up to 4); NaN when none is, e.g. no seed locks in
  int64_t draws = 0;             // simulated current sides per factor
};
DetectableEffect detectable_effect(const Config& baseline, int64_t n_current, double level, const GateOptions& options);

// In increasing severity.
// The last four are judged by identity, not statistics, and are never compared: the data stream of a seed
// changed (its first training batches differ from the baseline's for the same seed), the task changed (the
// held-out set differs), the model changed (state size, parameters, architecture), or the current seeds
// are not independent draws (two seeds of one config saw the same training batches; never allowed).
enum class Verdict {
  kNoChange, kImprovement, kInconclusive, kRegression,
  kDataStreamChanged, kTaskChanged, kModelChanged, kSeedsNotIndependent
};
// "no change", "improvement", "inconclusive", "regression", "data stream changed", "task changed",
// "model changed", "seeds not independent".
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
  double p_slower = 1.0;              // one-sided exact log-rank p, H1: current locks in later (lower hazard)
  double p_faster = 1.0;
  double p_lockin_drop_adj = 1.0;     // the same after adjustment across the comparison
  double p_lockin_rise_adj = 1.0;
  double p_recall_drop_adj = 1.0;
  double p_recall_rise_adj = 1.0;
  double p_slower_adj = 1.0;
  double p_faster_adj = 1.0;
  int64_t budget = 0;                 // step budget: where seeds that never locked in are censored
  double time_base = 0.0;             // restricted mean steps to lock-in (area under the Kaplan–Meier
  double time_cur = 0.0;              //   curve up to the budget), baseline and current
  double time_ratio = 1.0;            // time_cur / time_base (> 1: slower)
  double median_time_base = 0.0;      // Kaplan–Meier median steps to lock-in (NaN: fewer than half locked in)
  double median_time_cur = 0.0;
  DetectableEffect detectable;        // with GateOptions::power_analysis
  std::string model_change;           // what differs in the model ("" when the same), e.g.
                                      // "state_size 1312 → 1120; parameters 28288 → 27904"
  std::string task_change;            // the held-out set's fingerprint, "3f2a9c0d41be → 71c0e2aa9b13" ("" when
                                      // the same or either side records none)
  std::string stream_change;          // the seeds whose training fingerprint differs, "seeds 0, 3, 7 of 10"
  std::string dependent_seeds;        // seeds sharing one training fingerprint, "current: seeds 0, 1, ..., 9"
  bool data_checked = false;          // both sides record data fingerprints (older baselines do not)
  // The primary test (GateOptions::Rule::kPaired): chosen from the baseline alone, before the current data:
  // time to lock-in when any baseline seed locked in, else per-seed recall; paired by seed when the two sides
  // share seeds (both sides then hold only the shared seeds), the log-rank / Mann–Whitney test otherwise.
  std::string endpoint;               // "time to lock-in" or "recall"
  bool paired = false;                // compared seed with seed
  int64_t pairs = 0;                  // shared seeds
  int64_t unpaired_current = 0;       // current seeds without a baseline partner (left out when paired)
  stats::SignTestResult sign;         // over the pairs the sequential test used (paired)
  stats::SequentialResult sequential; // the looks (paired)
  // Paired on time to lock-in, the lock-in question asked of the same pairs: a pair where only one run locks
  // in (McNemar's discordant pairs) counts lock_in_weight times in the weighted sign test, a pair where both
  // lock in at different steps once (stats::sequential_weighted_sign_test).
  bool co_primary = false;
  int64_t lock_in_weight = 1;
  int64_t lost = 0, gained = 0;       // pairs whose baseline run locked in and current not, and the reverse
  bool primary_open = false;          // paired: the sequential test is open (the gate runs the next look)
  int64_t primary_looks = 0;          // paired: looks evaluated
  int64_t stages_cap = 1;             // looks the rule allows
  double p_primary = 1.0;             // one-sided, H1 "current worse" (stage-wise p when sequential)
  double p_primary_adj = 1.0;         // adjusted over the primary tests of every tested config
  double p_primary_rise = 1.0;        // one-sided, H1 "current better" (the sign test over the pairs used)
  double p_primary_rise_adj = 1.0;
  double primary_level = 0.0;         // alpha / tested configs: the level each sequential test stops at
  std::shared_ptr<const Config> paired_baseline, paired_current;  // the shared-seed subsets (own the copies)
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
  Verdict verdict = Verdict::kNoChange;         // worst of the configs (model changed > regression >
                                                // inconclusive > improvement > no change)
  int64_t regressions = 0, improvements = 0, inconclusive = 0, unchanged = 0, model_changed = 0;
  int64_t data_changed = 0;                     // configs whose task or data stream changed, or whose seeds
                                                // are not independent
  int64_t data_unchecked = 0;                   // matched configs without fingerprints on a side (older files)
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

// Fills cc's task_change, stream_change, dependent_seeds and data_checked from the two sides' data
// fingerprints (tasks/task.h DataFingerprint): called by compare() for every matched config.
void data_difference(ConfigComparison& cc);

// What differs between the models of two configs with the same key ("" when nothing): state size,
// parameter count, architecture hash (when both record one), resolved cell options.
std::string model_difference(const Config& baseline, const Config& current);

// The process exit code: 2 when a model changed (and that was not allowed: the baseline must be
// re-recorded after review), 1 on a regression, 3 when inconclusive and `fail_on_inconclusive`, else 0.
int gate_exit_code(const Comparison& comparison, bool fail_on_inconclusive);

json comparison_to_json(const Comparison& comparison);

}  // namespace rb::reports
