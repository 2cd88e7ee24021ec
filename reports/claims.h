// Claims as data: each published claim a contrast between two configurations with a direction, a
// statistic and an effect size, and a verdict per claim from results (`recallbench verify`). The file
// format is documented in reports/claims_schema.md; ci/claims/seed-claims.json holds the seed preprint's.
//
//   ClaimSet set = read_claims("ci/claims/seed-claims.json");
//   std::vector<ClaimVerdict> v = verify_claims(set, {load_results("results")});
//
// Verdicts. For a directional claim (a greater or less than b):
//   reproduced    significant in the expected direction (one-sided p <= alpha; Holm over depths);
//   contradicted  significant the other way (the opposite one-sided test);
//   no effect     neither, and the claimed effect would have been detected with >= 80% power;
//   undecided     neither, and underpowered: the note gives the seeds per arm the claimed effect needs.
// For a claim of no difference ("none": ties, adds nothing, no advantage): contradicted when the
// two-sided test is significant; reproduced when it is not and the smallest effect the claim rules out
// would have been detected with >= 80% power; otherwise undecided. "not-less" (a at least as good as b,
// e.g. at every depth): contradicted when a is significantly worse; reproduced when not and powered.
// not run: no results match a side (claims that need a larger scale say which in `needs`).
//
// Power. Fisher: exact, fisher_power at the claim's rates {"a", "b"} with the observed seeds per arm.
// Mann–Whitney: by resampling the observed seeds of arm b, shifted by the claim's {"shift"} for arm a
// (400 draws, fixed seed), so it reflects the spread actually measured. Per depth, each depth's power is
// computed at alpha / depths (Bonferroni, a lower bound for Holm) and the smallest is reported.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results.h"

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
  std::string statistic;    // "fisher" (lock-in counts) or "mann-whitney" (per-seed final recall)
  std::string direction;    // "greater", "less", "none" or "not-less" (a relative to b)
  double effect_a = 0.0, effect_b = 0.0;  // fisher: the claimed lock-in rates
  double shift = 0.0;                     // mann-whitney: the claimed recall difference a − b (> 0)
  double alpha = 0.05;
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
};

struct ClaimVerdict {
  const Claim* claim = nullptr;
  std::string verdict;              // reproduced | contradicted | no effect | undecided | not run
  std::vector<ClaimComparison> comparisons;
  double power = 0.0;               // the smallest per-depth power
  int64_t seeds_needed = 0;         // per arm, for undecided claims (0 = not reached up to 200)
  std::string note;                 // why, in one line
};

// One verdict per claim, in the file's order, from the configs of every results set together. A side
// that matches two configs at one depth is a UsageError (make the selector narrower).
std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results);

// Exit status of `verify`: 1 when a gated claim is not reproduced, else 0.
int verify_exit_code(const std::vector<ClaimVerdict>& verdicts);

json verdicts_json(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_markdown(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_html(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
// The verdict table as one <section> (the report's claims section, and the body of verdicts_html).
std::string verdicts_section_html(const std::vector<ClaimVerdict>& verdicts);

}  // namespace rb::reports
