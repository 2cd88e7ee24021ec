// Results as data: a configuration (all seeds of one cell × task × parameters × training recipe) with its
// per-seed outcomes, what a results directory, a baseline, a report or the history is read into
// (reports/results.h reads and writes them), and what every judgement (judge/) takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/outcome.h"

namespace rb {

using json = nlohmann::json;

// One evaluation point of a learning curve.
struct CurvePoint {
  int64_t step = 0;
  double accuracy = 0.0;  // held-out accuracy at `step`
  double loss = 0.0;      // mean training loss since the previous point (NaN when not finite)
};

// The outcome of one seed of a configuration (core/outcome.h), with its learning curve.
struct SeedOutcome : Outcome {
  int64_t seed = 0;
  std::vector<CurvePoint> curve;   // learning curve (empty in baselines)
  // How its learning ended, as stored where there is no curve (baselines, the board); where there is a curve,
  // judge/learning.h diagnoses it from the curve (judge::diagnose_seed), so a store is diagnosed by the
  // current rule whatever wrote it.
  Learning learning = Learning::kUnknown;
  bool stopped = false;            // plateau stopping ended the run before its budget (result.stopped)
};

// All seeds of one configuration.
struct Config {
  std::string key;                    // config key (RunSpec::config_key): joins baselines and results
  std::string cell;                   // cell name, e.g. "diag+conv"
  std::string task;                   // task name, e.g. "mqar"
  json task_options = json::object(); // resolved task options (pairs, length, vocab, ...)
  json cell_options = json::object(); // resolved cell options
  json cell_info = nullptr;           // a script cell's sidecar: description, options (not in the key)
  json model = json::object();        // model spec: d_model, layers, state_budget, mlp
  int64_t state_size = 0;             // recurrent state per layer per sequence, in numbers (measured)
  int64_t state_budget = 0;           // the state budget asked for (model.state_budget; 0 = cell default)
  int64_t parameters = 0;             // trainable parameters
  std::string architecture;           // hash of the parameters' names and shapes ("" in older documents)
  std::string eval_fingerprint;       // hash of the held-out set, the same for every seed ("" in older documents)
  json knobs = nullptr;               // the cell's registered knobs (core/knobs.h); null in older documents
  double capacity_bits = 0.0;         // what the task requires the state to hold: K·log2 V bits
  std::vector<SeedOutcome> seeds;     // sorted by seed, one per seed

  // "mqar pairs:8 length:64 vocab:256": the task with its scalar options, for humans.
  std::string task_label() const;
  // A task option as a number (e.g. "pairs"); NaN when absent or not a number.
  double task_number(const std::string& option) const;

  // The training recipe (RunSpec::train) as stored: what the key's hash covers, compared and written whole.
  const json& train() const { return train_; }
  // Sets the recipe and parses the fields below from it, once: a config read from a document and one built by
  // hand (history/, tests) cannot disagree. A field that is absent or of another type reads as its default
  // (documents older than the field).
  void set_train(json train);

  // The recipe's fields, typed: every reader goes through these, never through train()'s fields.
  // The step budget (train.steps; 0): where a seed that never locked in is censored.
  int64_t step_budget() const { return recipe_.steps; }
  // The lock-in threshold (train.threshold; kDefaultThreshold, the trainer's default).
  double threshold() const { return recipe_.threshold; }
  // The curriculum (train.curriculum; "none").
  const std::string& curriculum() const { return recipe_.curriculum; }
  // Steps between evaluations (train.eval_every; 0 when unknown): lock-in is only seen at an evaluation.
  double eval_every() const { return recipe_.eval_every; }
  // The learning rate as the recipe writes it (train.lr; "?" when absent), for pages.
  const std::string& learning_rate_text() const { return recipe_.lr_text; }
  // The learning rate (train.lr; NaN when absent).
  double learning_rate() const { return recipe_.lr; }

  static constexpr double kDefaultThreshold = 0.99;  // RunSpec's default (suite/spec.h)

 private:
  struct Recipe {
    int64_t steps = 0;
    double threshold = kDefaultThreshold;
    std::string curriculum = "none";
    double eval_every = 0;
    std::string lr_text = "?";
    double lr = 0.0;
  };
  json train_ = json::object();
  Recipe recipe_;
};

// The git commit a document's context names (context.git_commit), "unknown" when it names none; with `digits`
// > 0, at most that many leading characters (the 12 of a short hash).
std::string commit_of(const json& context, size_t digits = 0);

// Two configurations of one battery that differ in one knob (e.g. conv on/off).
struct ContrastSpec {
  std::string name;   // e.g. "conv: diag+conv vs diag on mqar pairs:8 length:64"
  std::string a;      // config key of the arm with the knob (or the battery's first arm)
  std::string b;      // config key of the other arm
  std::string knob;   // what differs, e.g. "conv"
  bool declared = false;  // declared by the battery (true) or inferred from the cell names (false)
};

// What was read from a results directory or file (reports/results.h load_results).
struct RunSet {
  std::vector<Config> configs;        // sorted by key
  json context = json::object();      // the context of the first run (machine, build, commit)
  json commits = json::array();       // distinct git commits the runs came from
  int64_t run_count = 0;              // run documents read
  std::string source;                 // what was read (the path)
  std::string battery;                // the battery of DIR/plan.json ("" when none)
  json battery_document = nullptr;    // the battery document of DIR/plan.json (null when none)
  std::vector<ContrastSpec> declared_contrasts;  // the contrasts DIR/plan.json declares
  std::vector<std::string> missing_planned;      // run keys DIR/plan.json plans that have no document in DIR
};

// A configuration's seeds counted once: k locked in (Outcome::locked_in) of n, and those whose status is
// not ok.
struct Tally {
  int64_t k = 0;       // seeds that locked in
  int64_t n = 0;       // seeds
  int64_t failed = 0;  // seeds whose status is not ok (diverged, error)
  double rate() const { return n ? static_cast<double>(k) / static_cast<double>(n) : 0.0; }
};
Tally tally(const Config& config);

// Per-seed final held-out accuracy (the seeds' "recall"), in seed order. A value that is not finite counts as
// 0, a run that learned nothing (the readers refuse one; configs built by hand may hold NaN).
std::vector<double> recalls(const Config& config);

// The q-quantile of `values` by linear interpolation between order statistics (R's type 7, NumPy's default):
// quantile({1, 2, 3, 4}, 0.25) = 1.75. NaN when `values` is empty.
double quantile(std::vector<double> values, double q);

// The setting a config was run in, as a key: its task with the task options, the model and the recipe, not the
// cell. Configs of different cells with the same key are one task point of the leaderboard and the two arms of
// a contrast. Rates::kPerCell leaves the learning rate out: on a board whose battery tunes each cell's rate
// (issue 44), cells at their own rates meet at one task point.
enum class Rates { kShared, kPerCell };
std::string setting_key(const Config& config, Rates rates = Rates::kShared);

// The spread of a sample (NaN fields when it is empty).
struct Spread {
  double mean = 0.0, median = 0.0, sd = 0.0, min = 0.0, max = 0.0, q1 = 0.0, q3 = 0.0;
};
Spread spread(std::vector<double> values);

// The hash a config's key ends with: short_hash over its cell, model, task and train fields, as the run spec
// computes it (core/json_io.h canonical_config). A stored config whose key ends otherwise was edited.
std::string config_hash(const Config& config);

}  // namespace rb
