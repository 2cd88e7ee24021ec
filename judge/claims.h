// Claims as data and their verdicts as typed data (`recallbench verify`): a claim is a contrast
// between two configurations with a statistic, a direction and a claimed effect, or a bound on one
// arm. The file format and the verdict rules are in reports/claims_schema.md; the sentences about a
// verdict are reports/claims.h's.
//
//   ClaimSet set = read_claims("ci/claims/seed-claims.json");
//   std::vector<ClaimVerdict> v = verify_claims(set, {load_results("results")});
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"
#include "judge/learning.h"

namespace rb::judge {

// The schema version of claims files, and of verify's verdicts document.
inline constexpr int kClaimsSchemaVersion = 1;
// The power at which a claimed effect counts as detectable.
inline constexpr double kClaimPower = 0.8;

// What tests a claim. Two arms: kFisher (lock-in counts), kMannWhitney (per-seed final recall). One
// arm (side a alone): kLottery (the share of seeds in between), kAtMost and kAtLeast (the median
// seed's recall against a level). kAllOf: the conjunction of other claims.
enum class Statistic { kFisher, kMannWhitney, kLottery, kAtMost, kAtLeast, kAllOf };
// Where a two-arm claim puts a relative to b: kGreater, kLess, kNone (no difference within a
// margin), kNotLess (a at least as good as b, within a margin), kNotGreater (a no better than b, within a
// margin: the one-sided "no measurable advantage", "adds nothing").
enum class Direction { kGreater, kLess, kNone, kNotLess, kNotGreater };

// A margin claim's interval [low, high] for a − b against its margin m: inside it (none: −m < low and
// high < m; not-less: low > −m; not-greater: high < m), or wholly outside it on the side the claim denies.
bool margin_holds(Direction direction, double low, double high, double m);
bool margin_broken(Direction direction, double low, double high, double m);

// The names claims files and verify's JSON use: "fisher", "mann-whitney", "lottery", "at-most",
// "at-least", "all-of"; "greater", "less", "none", "not-less", "not-greater".
const char* statistic_name(Statistic statistic);
const char* direction_name(Direction direction);
// The statistic or direction a name means; nullopt for any other name.
std::optional<Statistic> parse_statistic(std::string_view name);
std::optional<Direction> parse_direction(std::string_view name);

// Which configs a side of a claim means: equal cell and task, and the given fields of task_options,
// model and train (subsets; e.g. {"curriculum": "distance"}).
struct ClaimSide {
  std::string cell, task;
  json task_options = json::object(), model = json::object(), train = json::object();
  bool matches(const Config& c) const;
  // "diag+conv on mqar pairs:8 curriculum:distance": the cell, the task and the given fields.
  std::string describe() const;
};

struct Claim {
  std::string id;
  std::string quote;   // the sentence it tests, quoted from the source
  std::string source;  // where the sentence is
  std::string preset;  // the batteries (presets or files) whose runs it reads, " and " between them
  std::vector<std::string> presets;  // the same, one name each
  // The setting the runs are in, in words ("" = the sides say it: ClaimSide::describe).
  std::string setting;
  // How that setting differs from the one the sentence is about ("" = tested in the sentence's own terms). A
  // proxy claim is at most "reproduced on a proxy" (issue 45).
  std::string proxy;
  // Not a claim of the source: reported with its test (counts, two-sided p, interval) and not graded.
  bool observation = false;
  ClaimSide a, b;      // b: two-arm claims only
  std::string over;    // per-depth comparison over this task option ("" = one comparison)
  Statistic statistic = Statistic::kFisher;
  // Two-arm claims only (one-arm and all-of claims have none).
  Direction direction = Direction::kGreater;
  double effect_a = 0.0, effect_b = 0.0;  // fisher: the claimed lock-in rates
  double shift = 0.0;  // mann-whitney: the claimed recall difference a − b (> 0)
  double bound = 0.0;  // lottery: largest share of seeds in between; at-most, at-least: the recall
  // at-most, at-least: the level is the task's chance plus this (the file's "above_chance"), computed per
  // depth from the task (verify_claims' ChanceOf), instead of `bound`.
  std::optional<double> above_chance;
  // lottery: the recall floor (below it a seed has not learned) is the task's chance plus this (the file's
  // "floor_above_chance"), per depth, instead of `floor`; the verdict's floor sensitivity shows other floors.
  std::optional<double> floor_above_chance;
  // A claim that explains a gap ("... measure the missing convolution, not the recurrence": a closes the gap
  // between gap_side and b): a depth is informative only where b is significantly better than gap_side in the
  // claim's statistic, one-sided at the depth's level; elsewhere there is no gap to explain (issue 61).
  std::optional<ClaimSide> gap_side;
  // mann-whitney: the recall levels the sentence quotes for a and b ("0.021 → 1.000"); a level above where
  // training stops (the lock-in threshold) cannot be observed, so the size judged is the observable part.
  std::optional<std::pair<double, double>> quoted;
  // A recall tie (none, not-less) whose arms are lottery-shaped (some seeds lock in, others never learn) is
  // tested on the lock-in counts, with this margin on the lock-in rates.
  double lock_in_margin = 0.3;
  std::vector<std::string> of;  // all-of: the claims that must all be reproduced
  // Another claim that states this one's premise ("cells that solve 32-pair recall ..."): unless it is
  // reproduced, this claim is not informative (or not run, when its premise was not run), whatever its own test
  // says.
  std::string premise;
  double alpha = 0.05;
  int sided = 1;  // directional claims: 1 (one-sided test) or 2 (two-sided, observed side checked)
  // The recall below which a seed has not learned (< 0: half the lock-in threshold).
  double floor = -1.0;
  bool gate = false;  // verify exits 1 when a gated claim is not reproduced
  std::string needs;  // the scale this claim needs when it cannot run here ("" = runs here)

  bool one_arm() const;  // lottery, at-most or at-least: side a alone
  bool graded() const { return !observation; }
  bool all_of() const { return statistic == Statistic::kAllOf; }
  // A tie or one-sided margin claim (none, not-less, not-greater): its effect is a margin, judged by the
  // interval.
  bool equivalence() const;
  // The claimed size: the lock-in rate difference or the recall shift (none, not-less: the margin).
  double claimed_size() const;
  // The recall below which a seed of `config` has not learned: `floor`, or half its threshold.
  double floor_for(const Config& config) const;
};

struct ClaimSet {
  std::string source;  // the file
  std::vector<Claim> claims;
};

// Reads a claims file; a bad field is a UsageError naming the claim and the field, an unknown
// statistic or direction one naming the names there are (judge/claims_file.cpp).
ClaimSet read_claims(const std::filesystem::path& path);
ClaimSet claims_from_json(const json& doc, const std::string& where);

// Why a depth cannot tell the arms apart and is left out of the verdict.
enum class DepthReason {
  kInformative,     // it can: the verdict reads it
  kVacuousSetting,  // MQAR dense against sparse labels with zero filler: the same labels
  // Fisher: 0/n vs 0/n; recall: most seeds of both arms never learn; lottery: no seed learns.
  kFloor,
  // Fisher: n/n vs n/n; recall: most seeds of both arms lock in; lottery: every seed does.
  kCeiling,
  // A tie or non-inferiority claim (none, not-less) whose comparator, arm b, fails the task (Fisher: no seed
  // locks in; recall: most seeds never learn and none locks in): "a is as good as b" says nothing when b does
  // not function, whatever the direction (issue 45).
  kComparatorFails,
  // A floor whose failed runs were still learning when the budget ended (judge/learning.h: an arm's config is
  // budget-limited): "not informative (budget-limited)", with the steps a pilot should try.
  kBudgetLimited,
  // A claim that explains a gap (Claim::gap_side) at a depth where the gap is not there: b is not
  // significantly better than the gap side (or the gap side was not run there).
  kNoGap,
};

// One compared pair of configs (one depth of a per-depth claim); one-arm claims fill the a fields
// alone.
struct ClaimComparison {
  json depth = nullptr;  // the value of `over` (null without)
  std::string key_a, key_b;
  // The recording each arm's runs come from: the results set's file, its commits and CPU ("seed-claims-results.json:
  // commits 0901fd9 … (15), Intel Xeon"); the same text for two arms of one recording (one arm: recording_a only).
  std::string recording_a, recording_b;
  // Seeds that locked in of the seeds, per arm; one arm: k_a counts the seeds in between, above or
  // below (the claim's statistic).
  int64_t k_a = 0, n_a = 0, k_b = 0, n_b = 0;
  double recall_a = 0.0, recall_b = 0.0;  // median final recall
  double p_expected = 1.0;  // p of the test in the expected direction (two-sided for "none")
  double p_opposite = 1.0;  // p of the opposite one-sided test ("none": the two-sided p)
  double p_expected_adj = 1.0, p_opposite_adj = 1.0;  // Holm over depths
  double power = 0.0;                                 // power for the claimed effect at these seeds
  double effect = 0.0;  // observed a - b: lock-in rate difference, or Hodges–Lehmann recall shift
  double low = 0.0, high = 0.0;  // its interval: 1 − 2·alpha_each for one-sided and equivalence tests,
                                 // 1 − alpha_each for a two-sided test (alpha_each = alpha / depths)
  double interval_level = 0.0;   // that level
  DepthReason reason = DepthReason::kInformative;
  double floor = 0.0;                  // recall and one-arm claims: the recall floor of this depth
  int64_t failed_a = 0, failed_b = 0;  // recall claims: seeds below the floor that never locked in
  // The arms' seeds that did not lock in, by the learning diagnosis; suggested_steps for kBudgetLimited.
  ConfigLearning learning_a, learning_b;
  int64_t suggested_steps = 0;
  // A recall tie whose arms are lottery-shaped: tested on the lock-in counts (k, n) with the claim's
  // lock_in_margin, as a Fisher tie is.
  bool on_lock_in = false;
  // The size this depth is judged against: the claimed size or margin, the lock-in margin (on_lock_in), or the
  // observable part of a quoted size (size_capped).
  double size = 0.0;
  bool size_capped = false;  // the quoted level of a is above where a's training stops
  double stop_level = 0.0;   // that level (a's lock-in threshold)
  // One-arm claims: the recall level of this depth, and the task's chance when the level is computed from it.
  double level = 0.0;
  double chance = -1.0;
  struct AtThreshold {
    double threshold = 0.0;
    int64_t k_a = 0, k_b = 0;
    double p = 1.0;  // the claim's test in its expected direction, unadjusted
  };
  // Fisher claims: the stated threshold first, then lower ones.
  std::vector<AtThreshold> sensitivity;

  // Claim::gap_side: the gap side's config at this depth ("" when not run), its counts, median recall, the
  // one-sided p that b is better than it, and the gap b − gap side (lock-in rate difference, or the
  // Hodges–Lehmann recall shift): a depth has a gap to explain when it is significant and at least the claim's
  // size (its margin).
  std::string key_gap;
  int64_t k_gap = 0, n_gap = 0;
  double recall_gap = 0.0, p_gap = 1.0, gap = 0.0;

  bool informative() const { return reason == DepthReason::kInformative; }
};

// Every verdict `verify` gives (the rules: reports/claims_schema.md).
enum class ClaimOutcome {
  kNotRun,             // "not run"
  kNotInformative,     // "not informative"
  kReproduced,         // "reproduced"
  kReproducedOnProxy,  // "reproduced on a proxy": reproduced, in a setting other than the sentence's
  kReproducedOnSubset, // "reproduced on a subset": an all-of whose tested parts are reproduced, some left out
  kDirectionOnly,      // "direction reproduced, size not"
  kContradicted,       // "contradicted"
  kSizeNotReproduced,  // "claimed size not reproduced"
  kUndecided,          // "undecided"
  kObserved,           // "observation": not a claim of the source, so not graded
};
// The verdict as `verify` writes it (text, JSON, pages): "not run", ..., "undecided".
const char* claim_outcome_name(ClaimOutcome outcome);
// Reproduced, on a proxy or on a subset: what meets a premise and passes a gated claim.
bool reproduced(ClaimOutcome outcome);

// Why a claim got its verdict, beyond the verdict itself.
enum class ClaimReason {
  kTested,             // the tests at the informative depths decide (comparisons, power)
  kNeedsScale,         // not run: the claim needs a scale that does not run here (Claim::needs)
  kNoResults,          // not run: no config matches a side (Claim::preset names the battery to run)
  kEveryDepthLeftOut,  // not informative: each depth at a floor, a ceiling or vacuous (DepthReason)
  kUnderpowered,       // undecided: power below kClaimPower; seeds_needed: how many would reach it
  kParts,              // all-of: its parts' verdicts (parts)
  kObservation,        // observed, not graded (Claim::observation); the comparisons hold the test
  kPremiseUnmet,       // not informative or not run: the premise claim is not reproduced (premise)
  // not informative: a negative verdict (capped_from: contradicted, claimed size not reproduced) on a proxy, a
  // setting the claim itself says is not the sentence's: a proxy caps a negative verdict as it caps "reproduced"
  kProxyNegative,
  // not informative (budget-limited): a verdict that rests on an arm not doing better (a negative verdict of a
  // greater or less claim, a reproduced tie or one-sided margin), where that arm was still learning when its
  // budget ended (most of its seeds did not lock in, most of those budget-limited); capped_from keeps the tests'
  // verdict, suggested_steps the pilot's budget
  kBudgetLimited,
};

// An all-of claim's part: its id and its verdict.
struct ClaimPart {
  std::string id;
  ClaimOutcome verdict = ClaimOutcome::kNotRun;
  // Outside the conjunction's scope: the part is about cells that meet a premise ("cells that solve 32-pair
  // recall ...") and its premise is contradicted, so the cell is not one the sentence speaks of. Such a part
  // drops out of the all-of rather than keeping it from being reproduced; an undecided premise does not.
  bool outside = false;
};

struct ClaimVerdict {
  const Claim* claim = nullptr;
  ClaimOutcome verdict = ClaimOutcome::kNotRun;
  ClaimReason reason = ClaimReason::kNoResults;
  std::optional<ClaimOutcome> capped_from;  // kProxyNegative, kBudgetLimited: what the tests alone say
  int64_t suggested_steps = 0;              // kBudgetLimited: the budget a pilot should try
  std::vector<ClaimComparison> comparisons;
  double power = 0.0;  // the smallest power over the informative depths
  // Undecided: the seeds per arm that reach kClaimPower (0 = not within the search).
  int64_t seeds_needed = 0;
  std::vector<ClaimPart> parts;  // all-of: in the order of Claim::of
  std::optional<ClaimPart> premise;  // the premise claim's verdict, when the claim has one
  // Fisher claims: whether the significance at some lower threshold differs from the stated one's; lottery
  // claims: whether the verdict's significance at some other floor differs from the stated floor's.
  bool threshold_hangs = false;
  // Whether some compared pair's arms come from different recordings (other commits or another CPU): their
  // difference may be the builds' or the machines', not the cells' (issue 45).
  bool mixed_recordings = false;

  // The depths the verdict reads (those not left out), in depth order.
  std::vector<const ClaimComparison*> informative() const;
  // The depths whose threshold sensitivity the verdict reports: the informative ones, or the first
  // depth when none is (a not-informative claim still shows how its counts move with the
  // threshold).
  std::vector<const ClaimComparison*> sensitivity_depths() const;
};

// A task's chance level for a config (the accuracy of a uniform guess over the labels a query can take;
// nullopt when the task has none). judge/ does not see tasks/: the caller passes the tasks' rule.
using ChanceOf = std::function<std::optional<double>(const Config&)>;

// One verdict per claim, in the file's order, from the configs of every results set together. A
// side that matches two configs at one depth is a UsageError (make the selector narrower), and so is a
// level above chance for a task without one.
std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results,
                                        const ChanceOf& chance = {});

// Exit status of `verify`: 1 when a gated claim is not reproduced, else 0.
int verify_exit_code(const std::vector<ClaimVerdict>& verdicts);

}  // namespace rb::judge
