// The recall gate: the configs of a current result set against a stored baseline, matched by config key,
// each judged by identity first (model, task, data stream, independent seeds), then by one primary test
// per config (paired by seed when the sides share seeds). Typed results only: the sentences are written
// by reports/gate_text.h. The decision rule, its tests and its constants: docs/gate-evidence.md and
// ../shared/reference/regression_gating.md §4.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"
#include "judge/machine.h"
#include "judge/test_result.h"
#include "judge/verdict.h"
#include "stats/stats.h"

namespace rb::judge {

// How the gate decides.
struct GateOptions {
  double alpha = 0.05;            // family-wise error rate of the regression tests (after adjustment)
  double min_lockin_drop = 0.2;   // smallest change in lock-in rate that counts, as a fraction (20 points)
  double min_recall_drop = 0.1;   // smallest drop in recall that counts, relative to the baseline's median (10%)
  double target_power = 0.8;      // power the "seeds needed" calculation aims for
  stats::AdjustMethod adjust = stats::AdjustMethod::kHolm;  // multiple-comparison adjustment
  int64_t max_seeds = 200;        // the seed calculation gives up above this
  double min_slowdown = 0.2;      // smallest slowdown that counts (+20%): paired, the median ratio of lock-in
                                  // steps over the pairs that lock in on both sides; unpaired, the restricted
                                  // mean time to lock-in
  bool allow_model_change = false;  // compare configs whose model changed anyway (flagged)
  bool allow_data_change = false;   // compare configs whose task or data stream changed anyway (flagged);
                                    // seeds that are not independent are never compared
  bool power_analysis = false;    // also compute each config's detectable effects (DetectableEffect)
  // An A/B of a training recipe: a baseline config and a current one of the same cell, task, model and state
  // budget but another recipe (another key) are paired as one config (pair_across_recipes); off, they are refused.
  bool across_recipes = false;
  // kPaired: one primary test per config; kUnpaired: the three unpaired tests per config in one family.
  enum class Rule { kPaired, kUnpaired } rule = Rule::kPaired;
  int64_t stage_seeds = 0;        // paired seeds per look of the sequential rule (0: one look of every pair)
  int64_t max_stages = 1;         // looks up to the cap (stage_seeds × max_stages pairs)
  stats::Spending spending = stats::Spending::kPocock;  // how the primary family's alpha is spent over looks
  double futility_p = 0.5;        // stop at a look, "no regression", when the sign test's p there exceeds this
};

// The smallest changes the gate detects with the target power for one baseline config (power_analysis).
struct DetectableEffect {
  double lock_in_from = 0.0;     // the baseline's lock-in rate
  double lock_in_to = NAN;       // the highest lower rate detected (exact Fisher power); NaN when none is
  double slowdown = NAN;         // the smallest factor on every seed's steps detected (resampled log-rank); NaN
  int64_t draws = 0;             // simulated current sides per factor
};
DetectableEffect detectable_effect(const Config& baseline, int64_t n_current, double level, const GateOptions& options);

// What differs between the models of two configs with one key; empty() when nothing.
struct ModelDifference {
  std::optional<std::pair<int64_t, int64_t>> state_size, parameters;  // baseline → current
  std::optional<std::pair<std::string, std::string>> architecture;    // when both record one
  std::optional<std::pair<json, json>> cell_options;
  bool empty() const { return !state_size && !parameters && !architecture && !cell_options; }
};
ModelDifference model_difference(const Config& baseline, const Config& current);

// What differs in the data under one key (tasks/task.h DataFingerprint).
struct DataDifference {
  std::optional<std::pair<std::string, std::string>> held_out;  // the held-out set's fingerprint, base → current
  std::vector<int64_t> stream_changed;   // seeds whose first training batches differ from the baseline's
  int64_t stream_compared = 0;           // seeds whose training fingerprints were compared
  enum class Side { kCurrent, kBaseline } dependent_side = Side::kCurrent;
  std::vector<int64_t> dependent;        // seeds of one side sharing a training fingerprint (current first)
  bool checked = false;                  // both sides record held-out fingerprints (older files do not)
};
DataDifference data_difference(const Config& baseline, const Config& current);

// The primary test's endpoint, chosen from the baseline alone.
enum class Endpoint { kNone, kTimeToLockIn, kRecall };
const char* endpoint_name(Endpoint e);  // "", "time to lock-in", "recall"

// Why a config got its verdict; the numbers are the comparison's fields.
enum class Reason {
  kSeedsNotIndependent, kModelChanged, kTaskChanged, kDataStreamChanged,   // identity: not compared
  kUnpairedRegression, kUnpairedImprovement, kUnpairedCannotReach, kUnpairedBelowSignificance,
  kUnpairedNoChange,                                                         // Rule::kUnpaired
  kPrimaryRegression, kPrimaryOpen, kPrimaryImprovement, kPairsCannotReach, kPrimaryBelowSignificance,
  kPrimaryBelowMinimumEffect, kAllPairsTied, kPrimaryNoChange,              // Rule::kPaired
};

// One part of the paired primary test (stats::sequential_min_p_test; on time its statistics are each part
// alone and both pooled, "later or never"), as judged at its stopping look. Each
// part measures its own effect on its own scale, with a one-sided (1 - alpha) upper confidence bound:
//   lock-in  the drop in lock-in rate over the compared pairs, (lost - gained) / pairs (Clopper–Pearson on
//            lost / discordant, conditional on the discordant count); floor min_lockin_drop
//   time     the median ratio of current to baseline lock-in step over the pairs that lock in on both sides,
//            minus 1 (the sign test inverted); floor min_slowdown; reachable whatever the budget
//   recall   the median per-pair drop in final recall relative to the baseline's median recall; floor
//            min_recall_drop
enum class PartKind { kLockIn, kTime, kRecall };
const char* part_name(PartKind k);  // "lock-in", "time to lock-in", "recall"
struct PrimaryPart {
  PartKind kind = PartKind::kTime;
  int64_t pairs = 0;         // its untied pairs at the stopping look
  int64_t worse = 0;         // of them, the current worse (lock-in: lost; time: later; recall: lower)
  double p = 1.0;            // its one-sided sign-test p there
  bool rejected = false;     // the test crossed on a statistic over this part (alone, or pooled with the other)
  double effect = NAN;       // the worsening on its scale (NaN: no pair to measure it on)
  double bound = NAN;        // the worsening's one-sided upper bound
  double improvement = NAN;  // the improvement on the same scale (a point estimate)
  double floor = 0.0;        // the minimum effect on that scale
};

// The seeds an inconclusive config would need (for the larger of the observed change and the minimum
// effect, from the baseline rate).
struct SeedPlanning {
  bool planned = false;     // the verdict is inconclusive and the test is not an open sequential one
  int64_t seeds = 0;        // about this many per side reach the target power (0: none up to max_seeds)
  double from = 0.0, to = 0.0, power = 0.0;
};

// One matched configuration. `baseline`/`current` are the configs as read; `compared_*` the seeds the
// tests used (the shared seeds when paired, else the same configs).
struct ConfigComparison {
  std::string key;
  const Config* baseline = nullptr;
  const Config* current = nullptr;
  std::shared_ptr<const Config> paired_baseline, paired_current;  // the shared-seed subsets (paired)
  ModelDifference model;
  DataDifference data;

  // The unpaired one-sided tests (the gate's family under Rule::kUnpaired, shown as secondary otherwise).
  TestResult lock_in_drop{Test::kFisher, stats::Alternative::kGreater};
  TestResult lock_in_rise{Test::kFisher, stats::Alternative::kLess};
  TestResult recall_drop{Test::kMannWhitney, stats::Alternative::kGreater};
  TestResult recall_rise{Test::kMannWhitney, stats::Alternative::kLess};
  TestResult slower{Test::kLogRank, stats::Alternative::kGreater};
  TestResult faster{Test::kLogRank, stats::Alternative::kLess};
  int64_t budget = 0;                 // step budget: where seeds that never locked in are censored
  double min_attainable_p = 1.0;      // smallest one-sided p these seed counts can give (Fisher)
  double level_needed = 0.0;          // alpha / tests: what a lone change must reach after adjustment
  int64_t family_tests = 0;           // the tests in its family (Rule::kUnpaired)

  // The primary test (Rule::kPaired), chosen from the baseline alone.
  Endpoint endpoint = Endpoint::kNone;
  bool paired = false;                // compared seed with seed
  int64_t pairs = 0;                  // shared seeds
  int64_t unpaired_current = 0;       // current seeds without a baseline partner (left out when paired)
  stats::SignTestResult sign;         // over the pairs the sequential test used (paired)
  stats::SequentialResult sequential; // the looks (paired)
  std::vector<PrimaryPart> parts;     // paired: lock-in and time (time endpoint), or recall
  int64_t lost = 0, gained = 0;       // pairs whose baseline run locked in and current not, and the reverse
  // The first look's pairs (all of them under one look): what the battery test pools, a fixed sample whatever
  // the sequential rule does next (paired only).
  int64_t first_look_pairs = 0, first_look_worse = 0, first_look_better = 0;
  int64_t stages_cap = 1;             // looks the rule allows
  TestResult primary{Test::kSequentialMinP, stats::Alternative::kGreater};       // H1: current worse
  TestResult primary_better{Test::kSequentialMinP, stats::Alternative::kLess};   // H1: current better (one look)
  bool better_crossed = false;        // paired: the better-way test crossed at alpha / tested configs
  double primary_level = 0.0;         // alpha / tested configs (Bonferroni): the level each sequential test spends

  Verdict verdict = Verdict::kNoChange;
  Reason reason = Reason::kPrimaryNoChange;
  SeedPlanning planning;
  DetectableEffect detectable;        // with GateOptions::power_analysis

  const Config& compared_baseline() const { return paired_baseline ? *paired_baseline : *baseline; }
  const Config& compared_current() const { return paired_current ? *paired_current : *current; }
  // Derived from the compared seeds.
  Tally baseline_tally() const { return tally(compared_baseline()); }
  Tally current_tally() const { return tally(compared_current()); }
  double rate_change() const { return current_tally().rate() - baseline_tally().rate(); }
  double recall_baseline() const;     // median per-seed recall
  double recall_current() const;
  double recall_change() const { return recall_current() - recall_baseline(); }
  double time_baseline() const;       // restricted mean steps to lock-in, up to the budget
  double time_current() const;
  double time_ratio() const;          // time_current / time_baseline (> 1: slower; 1 when undefined)
  double median_time_baseline() const;  // Kaplan–Meier median (NaN: fewer than half locked in)
  double median_time_current() const;
  bool primary_open() const { return paired && sequential.open; }
  bool has_part(PartKind k) const {
    for (const auto& p : parts)
      if (p.kind == k) return true;
    return false;
  }
  int64_t primary_looks() const { return static_cast<int64_t>(sequential.looks.size()); }
};

// One field of a training recipe that differs between two paired configs (baseline → current).
struct RecipeField {
  std::string field;
  json baseline, current;
};
std::vector<RecipeField> recipe_difference(const json& baseline_train, const json& current_train);

// A baseline config compared with a current config of another recipe (GateOptions::across_recipes).
struct RecipePair {
  std::string baseline_key, current_key;
  std::vector<RecipeField> differences;
};

// The battery's test (issue 61): a change that moves every config a little is seen by all their pairs
// together, where each config's own test at alpha / K has too few. Stratified by config: each paired
// config's untied primary pairs (lock-in and time, "later or never", or recall; its own sign per pair)
// pooled into one one-sided sign test, exact under the paired null (every untied pair of every config is
// then a fair coin, independently). It is one more test of the primary family: with it every config's test
// and this one are judged at alpha / (configs + 1) (Bonferroni). Computed when two or more tested configs
// are paired. Under the sequential rule it pools each config's first look (the first stage_seeds pairs: a
// fixed sample, taken before any config's data decides whether it gets more seeds), so it is one test, once.
// Its verdict follows the per-config rule: a regression when it rejects and a pooled part's one-sided upper
// bound reaches that part's minimum effect, below the minimum effect when every bound is under it.
struct BatteryTest {
  bool tested = false;
  // Two or more paired configs, but their untied first-look pairs (u) cannot reach alpha / (configs + 1) even all
  // worse (2^-u above it): the battery takes no place in the family, so the configs keep alpha / configs. The
  // untied count is the same under every sign flip of the pairs, so choosing the family on it keeps the level.
  bool left_out = false;
  bool first_look_only = false; // the sequential rule: each config's first look pooled
  int64_t configs = 0;          // the paired configs pooled
  int64_t pairs = 0;            // their compared pairs
  int64_t worse = 0, better = 0;  // untied pairs, the current worse / better (left_out: counted, not tested)
  double p = 1.0;               // one-sided sign test p (current worse)
  double p_better = 1.0;        // the other direction
  double level = 0.0;           // alpha / family
  int64_t family = 0;           // the primary family: the tested configs' tests and this one
  std::vector<PrimaryPart> parts;  // pooled effects: lock-in, time, recall (those with pairs), bounds at alpha
  Verdict verdict = Verdict::kNoChange;
  bool rejected() const { return tested && stats::significant(p, level); }
};

// The whole comparison.
struct Comparison {
  GateOptions options;
  std::vector<RecipePair> recipe_pairs;         // across_recipes: the configs paired across recipes
  // across_recipes: the re-keyed baseline configs the comparisons point into (shared, so copies stay valid).
  std::shared_ptr<const std::vector<Config>> rekeyed_baseline;
  std::vector<ConfigComparison> configs;        // matched, sorted by verdict severity then key
  std::vector<std::string> missing_in_current;  // baseline configs the current results lack
  std::vector<std::string> missing_in_baseline; // current configs the baseline lacks (new)
  // Run keys the current results' plan (DIR/plan.json) lists with no result in DIR: a partial store. While any
  // is missing the comparison is at best inconclusive (verdict()), whatever the runs present say.
  std::vector<std::string> missing_planned;
  // Run keys of baseline seeds the current results lack where the paired rule expects them: every baseline
  // seed (one look), or those of the looks the current seeds reach (the sequential rule: the first ⌈pairs /
  // stage_seeds⌉ × stage_seeds baseline seeds). Found with or without a plan.json; like missing_planned, while
  // any is missing the comparison is at best inconclusive.
  std::vector<std::string> missing_paired;
  int64_t tests = 0;                            // tests in the drop family
  BatteryTest battery;                          // the paired rule's pooled test over the configs
  json baseline_context = json::object();
  json current_context = json::object();

  // The machine fields (CPU model and instruction set, BLAS core) that differ between the two recordings: a
  // seed's run is bit-identical only on one CPU kind and BLAS core, so elsewhere its pair may be redrawn, as
  // a neutral numerical change redraws it. The paired test stays valid (its null covers redraws: it is
  // calibrated by exactly such changes, docs/gate-evidence.md) but loses power; the gate warns, shows the tie
  // rate, and does not refuse.
  std::vector<ContextDifference> machine_difference() const;
  struct Ties {
    int64_t tied = 0, pairs = 0;               // over the paired configs compared
  };
  Ties ties() const;

  Verdict verdict() const;                      // the worst of the configs and the battery test (kNoChange
                                                // when none), at least kInconclusive while runs are missing
  GateEffect effect() const { return gate_effect(verdict()); }  // for gate_exit_code
  VerdictCounts<Verdict> counts() const;        // configs per verdict
  int64_t data_unchecked() const;               // matched configs without fingerprints on a side
};

// Refuses (UsageError naming the field) to compare a baseline config and a current config that are the same
// cell on the same task but differ in recipe or state budget, when neither has a same-key partner.
void check_comparable(const std::vector<Config>& baseline, const std::vector<Config>& current);

// The baseline with each config that has no same-key partner in `current` re-keyed to the one current config of
// the same cell, task, model and state budget and another recipe (also without a partner), and those pairs.
// UsageError when a config has several such partners, or the two recipes' step budgets differ (each side's
// time to lock-in is censored at its own budget).
std::vector<Config> pair_across_recipes(const std::vector<Config>& baseline, const std::vector<Config>& current,
                                        std::vector<RecipePair>& pairs);

// Compares `current` against `baseline`. UsageError when nothing matches or the two are not comparable.
Comparison compare(const std::vector<Config>& baseline, const std::vector<Config>& current,
                   const GateOptions& options = {});

}  // namespace rb::judge
