// Claims as data: each published claim a contrast between two configurations with a direction, a
// statistic and an effect size, and a verdict per claim from results (`recallbench verify`). The file
// format is documented in reports/claims_schema.md; ci/claims/seed-claims.json holds the seed preprint's.
//
//   ClaimSet set = read_claims("ci/claims/seed-claims.json");
//   std::vector<ClaimVerdict> v = verify_claims(set, {load_results("results")});
//
// Verdicts (the rules, in order; docs/claims.md and reports/claims_schema.md say the same):
//   not run       no results match a side (claims that need a larger scale say which in `needs`);
//   not informative  every compared depth sits where the statistic cannot tell the arms apart: both arms
//                 at the floor (Fisher: 0/n and 0/n; recall: at least half of each arm's seeds never lock in
//                 and never reach the claim's `floor`, by default half the lock-in threshold, so the medians
//                 compare failures), both at the ceiling
//                 (Fisher: n/n and n/n; recall: at least half of each arm's seeds locked in, so runs stopped
//                 at the threshold and their recalls are stopping points), or a vacuous setting (MQAR dense
//                 against sparse labels with zero filler: the same labels). Such depths are left out of
//                 the verdict and named in the note.
// For a directional claim (a greater or less than b), with the claim's one- or two-sided test (`sided`),
// Holm over the depths:
//   reproduced    significant in the expected direction at every depth, and the claimed size is inside
//                 the interval's reach (its bound on the expected side is at least the claimed effect);
//   direction reproduced, size not   significant, but at some depth the (1 - 2 alpha) interval for the
//                 difference ends below the claimed effect: the data rule the claimed size out;
//   contradicted  significant the other way;
//   claimed size not reproduced   neither, and the claimed effect would have been detected with >= 80%
//                 power (the note gives the interval, which says how large an effect is still possible);
//   undecided     neither, underpowered: the note gives the seeds per arm the claimed effect needs.
// For a claim of no difference ("none": ties, adds nothing) the claim's effect is an equivalence margin m:
//   reproduced    the (1 - 2 alpha) interval for a - b lies inside (-m, m) at every depth (two one-sided
//                 tests at alpha); contradicted: it lies outside [-m, m] (a gap larger than the margin);
//                 undecided otherwise (a gap inside the margin is not a contradiction).
// "not-less" (a at least as good as b, non-inferiority with margin m): reproduced when the interval's
// lower end is above -m, contradicted when its upper end is below -m, else undecided.
// The interval: Fisher claims, Newcombe's hybrid score interval for the difference of lock-in rates;
// recall claims, the Hodges-Lehmann shift with its Mann-Whitney interval (stats.h), both at 1 - 2 alpha
// per depth (alpha / depths).
//
// Power. Directional: Fisher's is exact at the claim's rates {"a", "b"} with the observed seeds per arm;
// Mann–Whitney's by resampling the observed seeds of arm b, shifted by the claim's {"shift"} for arm a
// (400 draws, fixed seed), so it reflects the spread actually measured; counted only when the test is
// significant in the expected direction. Ties and non-inferiority: the chance that the interval lands
// inside the margin when the arms do not differ (Fisher: enumerated at the pooled observed rate;
// recall: both arms resampled from the pooled residuals, each arm's recalls less its median). Per depth at alpha / depths; the smallest is reported.
//
// One-arm claims (side a only; `over` allowed; exact binomial tests, Holm over depths):
//   lottery   "a seed either locks in or does not": the share of seeds that neither lock in nor stay
//             below the floor (best accuracy in [floor, threshold)) is below effect.middle. Reproduced
//             when significantly below (P(X <= k | n, middle) <= alpha), contradicted when significantly
//             above; not informative when every seed locks in or none learns.
//   at-most   "falls to chance": the median seed's final recall is at most effect.recall (sign test:
//             reproduced when significantly fewer than half the seeds exceed it, contradicted when
//             significantly more do); at-least the mirror ("does not collapse": fewer than half below).
// all-of: the conjunction of other claims (`of`): contradicted when one is, not run or not informative
// when one is, reproduced when all are, else undecided.
//
// Lock-in claims (Fisher) also carry a threshold sensitivity line: the counts and p at lower thresholds
// (0.1 apart, down to half the stated one), a seed counting as locked in at t when its best held-out
// accuracy reached t (runs stop at the stated threshold, so below it the best accuracy is the first
// evaluation at or above t, or none). The note says when the verdict's significance hangs on the threshold.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results.h"

namespace rb::reports {
struct Document;  // document.h (which includes this header through html_parts.h)
struct Group;
}  // namespace rb::reports

namespace rb::reports {

inline constexpr int kClaimsSchemaVersion = 1;
inline constexpr double kClaimPower = 0.8;

// Which configs a side of a claim means: equal cell and task, and the given fields of task_options,
// model and train (subsets; e.g. {"curriculum": "distance"}).
struct ClaimSide {
  std::string cell, task;
  json task_options = json::object(), model = json::object(), train = json::object();
  bool matches(const Config& c) const;
  std::string describe() const;
};

struct Claim {
  std::string id;
  std::string quote;        // the sentence it tests, quoted from the source
  std::string source;       // where the sentence is
  std::string preset;       // the battery (preset or file) whose runs it reads
  ClaimSide a, b;
  std::string over;         // per-depth comparison over this task option ("" = one comparison)
  std::string statistic;    // fisher | mann-whitney (two arms); lottery | at-most | at-least (arm a alone); all-of
  std::string direction;    // "greater", "less", "none" or "not-less" (a relative to b)
  double effect_a = 0.0, effect_b = 0.0;  // fisher: the claimed lock-in rates
  double shift = 0.0;                     // mann-whitney: the claimed recall difference a − b (> 0)
  double bound = 0.0;                     // lottery: largest share of seeds in between; at-most: the recall
  std::vector<std::string> of;            // all-of: the claims that must all be reproduced
  double alpha = 0.05;
  int sided = 1;            // directional claims: 1 (one-sided test) or 2 (two-sided, observed side checked)
  double floor = -1.0;      // recall below which a seed has not learned (< 0: half the lock-in threshold)
  bool gate = false;        // verify exits 1 when a gated claim is not reproduced
  std::string needs;        // the scale this claim needs when it cannot run here ("" = runs here)
};

struct ClaimSet {
  std::string source;       // the file
  std::vector<Claim> claims;
};

// Reads a claims file; a bad field is a UsageError naming the claim and the field.
ClaimSet read_claims(const std::filesystem::path& path);
ClaimSet claims_from_json(const json& doc, const std::string& where);

// One compared pair of configs (one depth of a per-depth claim).
struct ClaimComparison {
  json depth = nullptr;              // the value of `over` (null without)
  std::string key_a, key_b;
  int64_t k_a = 0, n_a = 0, k_b = 0, n_b = 0;
  double recall_a = 0.0, recall_b = 0.0;  // median final recall
  double p_expected = 1.0;          // p of the test in the expected direction (two-sided for "none")
  double p_opposite = 1.0;          // p of the opposite one-sided test ("none": the two-sided p)
  double p_expected_adj = 1.0, p_opposite_adj = 1.0;  // Holm over depths
  double power = 0.0;               // power for the claimed effect at these seeds
  double effect = 0.0;              // observed a - b: lock-in rate difference, or Hodges–Lehmann recall shift
  double low = 0.0, high = 0.0;     // its (1 - 2 alpha / depths) interval
  std::string uninformative;        // "" or why this depth cannot tell the arms apart (floor, ceiling, vacuous)
  struct AtThreshold {
    double threshold = 0.0;
    int64_t k_a = 0, k_b = 0;
    double p = 1.0;                 // the claim's test in its expected direction, unadjusted
  };
  std::vector<AtThreshold> sensitivity;  // Fisher claims: the stated threshold first, then lower ones
};

// Every verdict `verify` gives, in the order of the rules above.
enum class ClaimOutcome {
  kNotRun,             // "not run"
  kNotInformative,     // "not informative"
  kReproduced,         // "reproduced"
  kDirectionOnly,      // "direction reproduced, size not"
  kContradicted,       // "contradicted"
  kSizeNotReproduced,  // "claimed size not reproduced"
  kUndecided,          // "undecided"
};
// The verdict as `verify` writes it (text, JSON, pages): "not run", ..., "undecided".
const char* claim_outcome_name(ClaimOutcome outcome);

struct ClaimVerdict {
  const Claim* claim = nullptr;
  ClaimOutcome verdict = ClaimOutcome::kNotRun;
  std::vector<ClaimComparison> comparisons;
  double power = 0.0;               // the smallest per-depth power
  int64_t seeds_needed = 0;         // per arm, for undecided claims (0 = not reached up to 200)
  std::string note;                 // why, in one line
  std::string sensitivity;          // Fisher claims: the counts at lower thresholds ("" otherwise)
};

// One verdict per claim, in the file's order, from the configs of every results set together. A side
// that matches two configs at one depth is a UsageError (make the selector narrower).
std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results);

// Exit status of `verify`: 1 when a gated claim is not reproduced, else 0.
int verify_exit_code(const std::vector<ClaimVerdict>& verdicts);

json verdicts_json(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts);

// The claims page's document (document.h), built once: the HTML page (verdicts_html), the Markdown verdict table
// (verdicts_markdown), verdicts_json (JsonRenderer).
Document verdicts_document(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
// The verdict table as one section (HTML: <section id="claims">; Markdown: the table alone): the claims page's,
// and the report's claims section.
Group verdicts_section(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_markdown(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_html(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);

}  // namespace rb::reports
