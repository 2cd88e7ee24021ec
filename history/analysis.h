// What the history says: per-commit series of each config and benchmark, their change points and drifts
// (stats/changepoint.h), the trend document that `history report` renders (reports/history_page.h), the
// `history log` table, and the pooled baseline a gate can compare with.
//
// Method (docs/tracking.md). Series: per config, lock-in (binary per seed), time to lock-in (the step, or
// censored at the budget), recall (final held-out accuracy); per benchmark, speed (time relative to the GEMM
// ceiling of the same run, tested on its logarithm). Commits without a run of the series are gaps. Every series gets two tests: a
// step (the best split of the commit series, log-rank / two-proportion / Mann–Whitney z) and a drift (a
// linear trend over the commits); both p-values by permuting whole commits. All series' tests of one
// history form one Holm family at `alpha`: the chance that a history with no change anywhere reports any
// change is at most alpha, whatever the dependence between series (lock-in, time and recall of a config
// share their seeds). Where two or more configs pair seeds across epochs, battery tests join the family: the
// same paired contributions pooled over the configs (stratified: every pair flipped on its own), at every
// commit where two or more of them start a new epoch and over each one's oldest and newest epoch, so a
// change that moves every config a little is seen by all their pairs together (series "battery").
// Below a significant step, binary segmentation looks for more steps in each side,
// each at alpha. A drift is reported when no step
// is, or when a trend remains inside the steps' segments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "judge/change.h"
#include "reports/report.h"
#include "stats/changepoint.h"

namespace rb::history {

using judge::Change;
using judge::Metric;
using judge::metric_name;
using judge::parse_metric;

// The series name of the battery's pooled tests' changes (every paired config's pairs together).
inline constexpr const char* kBatterySeries = "battery";

struct AnalysisOptions {
  double alpha = 0.05;
  stats::ChangeTestOptions permutation;
  std::string config_selector;  // "" = all; else comma-separated substrings of the key or label
  bool detect = true;           // false: only the per-commit series (history log)
};

// Per-commit summary of one config (one point of the trend page).
struct ConfigPoint {
  std::string commit;
  int64_t index = 0, n = 0, k = 0, budget = 0;
  stats::Interval ci;
  double median_time = 0;  // NaN when the Kaplan–Meier curve does not reach 0.5
  double rmst = 0;         // restricted mean time to lock-in, up to the budget
  double recall_median = 0, recall_q1 = 0, recall_q3 = 0;
};

struct Analysis {
  std::vector<CommitInfo> commits;  // in history order
  struct ConfigSeries {
    std::string key, label;
    int64_t budget = 0;
    int64_t epochs = 0;  // runs of consecutive commits bit-identical per seed (0 when not analysed)
    std::vector<ConfigPoint> points;
  };
  std::vector<ConfigSeries> configs;
  struct BenchSeries {
    std::string name;
    std::vector<std::pair<int64_t, double>> points;  // (commit index, median over samples)
  };
  std::vector<BenchSeries> benchmarks;
  std::vector<Change> changes;  // most significant first
  int64_t tests = 0;            // tests run
  int64_t family = 0;           // K of Tarone's rule: the tests that can reach alpha / K, judged at alpha / K
  int64_t battery_tests = 0;    // the battery's pooled tests: one place of the K, each judged at alpha / (K · these)
  // A test that cannot reach alpha / K with the data it has (it left the family): what it would need, as
  // untied pairs of seeds (design pairs) or groups (epochs or commits, design commits).
  struct Undecided {
    std::string series, label;
    Metric metric = Metric::kLockIn;
    judge::ChangeKind kind = judge::ChangeKind::kStep;
    judge::Design design = judge::Design::kPairs;
    int64_t index = 0;  // the commit it is about (a step's first commit at the new level)
    double min_p = 1;
    int64_t has = 0, needs = 0;
  };
  std::vector<Undecided> undecided;
};

// Reads the history and finds the changes.
Analysis analyse(const History& history, const AnalysisOptions& options);

// The trend document (its fields: reports/history_page.h).
nlohmann::json analysis_json(const Analysis& a, const History& history, const AnalysisOptions& options);
nlohmann::json change_json(const Change& c, const Analysis& a);
// Its text (`history changes`, `history log`): suite/history_text.h.

// The pooled baseline from the history for `current` (the configs to be gated), excluding `exclude_commit`:
// per config, over the commits of its current identity (model and data), the epochs from an anchor on, and
// per seed its run at the first of those epochs that has it. The anchor is the later of the epoch after the
// last improvement (a step in lock-in, time or recall at `alpha`) and the epoch holding the config's last
// accepted commit (`history accept`); a regression never moves it, so steps below the gate's floors add up
// against it (docs/tracking.md). `notes` says per config what was pooled.
reports::Baseline pooled_baseline(const History& history, const std::vector<rb::Config>& current,
                                  const std::string& exclude_commit, double alpha, std::vector<std::string>* notes);

// The recorded runs of one commit as configs, for the configs `keys` (empty: every config it has runs of);
// a config without runs of that commit is absent. Each config carries the identity stored with it (spec,
// state size, architecture, fingerprints) when the history holds its document. What `bisect` reuses
// instead of training a commit again (runs are deterministic per seed).
std::vector<rb::Config> commit_configs(const History& history, const std::string& commit,
                                            const std::vector<std::string>& keys);

// `history accept`: the configs with runs at `commit` whose key or label contains one of `selector`'s
// comma-separated parts ("" = every one), sorted.
std::vector<std::string> configs_at(const History& history, const std::string& commit, const std::string& selector);

// The pooled baseline as `report`/`compare`/`gate` take it (--baseline-history DB): opened when the current
// runs are known; their own commit is left out of the pool; what was pooled goes to stderr.
reports::BaselineSource history_baseline_source(const std::string& database, double alpha);

}  // namespace rb::history
