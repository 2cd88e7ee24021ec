// The planner: expands a Battery into resolved runs (stable keys) and the contrasts to test, and slices
// a plan into shards. Torch-free: specs are resolved through suite/train/train_api.h.
//
//   Plan plan = make_plan(load_battery("smoke"));      // throws UsageError naming the bad field
//   for (size_t i : shard_indices(plan.runs.size(), {1, 3})) ... plan.runs[i] ...
//
// Plan order: task entry → grid point (cross product, in the grid's key order) → recipe → cell → seed.
// Shards are round-robin over that order (run i belongs to shard i mod N), so every shard gets a similar
// mix of cheap and expensive configs, and the slice depends only on the plan.
//
// Contrasts (pairs of configs that differ in one knob, same task point and everything else):
//   conv        X+conv vs X            (cell names are knobs joined by '+': "diag+decay+conv")
//   decay       X+decay vs X
//   transition  rank1[+knobs] vs diag[+knobs]
//   curriculum  recipe R (curriculum ≠ none) vs the recipe equal to R but with curriculum none
//   reference   every other cell vs the battery's reference cell
// Arm `a` carries the knob (or is the non-reference cell); `b` is the other arm. Only pairs whose both
// cells are in the battery are formed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/battery.h"
#include "suite/spec.h"

namespace rb {

inline constexpr int kPlanSchemaVersion = 1;

struct Contrast {
  std::string name;  // e.g. "conv: diag+conv vs diag on mqar length:32 pairs:4 vocab:64"
  std::string knob;  // conv | decay | transition | curriculum | reference
  std::string a;     // config key of the arm with the knob
  std::string b;     // config key of the other arm
  nlohmann::json to_json() const;
};

// A battery with a tuning block (battery.h) is two plans: its tuning stage, then its scoring runs at the rates
// the tuning stage chose (Battery::rates).
enum class PlanStage { kWhole, kTuning, kScoring };

struct Plan {
  Battery battery;
  PlanStage stage = PlanStage::kWhole;
  std::vector<RunSpec> runs;          // resolved, in plan order; keys are unique
  std::vector<Contrast> contrasts;
  // {"schema_version", "kind": "recallbench.plan", "battery": {...}, "runs": [{"key", "file", "spec"}],
  //  "contrasts": [...], "estimated_core_seconds"}, with "stage" ("tuning" | "scoring") and "rates" ({cell: lr})
  // for a battery with a tuning stage
  nlohmann::json to_json() const;
};

// Expands and resolves every run before anything is trained. Unregistered cells, unknown tasks or task
// options, impossible grid points and duplicate runs: UsageError naming the battery field.
// The most runs one plan may hold (1e6: the paper preset is 2400, a Slurm array of 1e6 tasks is beyond any
// cluster's limit); larger batteries are refused before anything is expanded.
inline constexpr int64_t kMaxPlanRuns = 1'000'000;

// A battery with a tuning block gives its scoring plan (stage kScoring): each cell at Battery::rates' rate,
// or at its recipes' lr while none is chosen (what `plan` costs; `run` never trains it before the choice).
Plan make_plan(const Battery& battery);

// The tuning stage of a battery with a tuning block: the same cells, task points and recipes, each recipe once
// per rate of the grid (named BatteryTuning::recipe_name), on the tuning seeds; no contrasts. UsageError for a
// battery without one.
Battery tuning_battery(const Battery& battery);
Plan make_tuning_plan(const Battery& battery);

// Configs of the plan whose cell's state exceeds the state budget by more than 10% (reports/results.h
// over_budget: not matched-state entrants), one line each: "cell X on TASK: state N numbers, over the budget B
// by P%". Measured from the cells themselves, before anything is trained.
std::vector<std::string> over_budget(const Plan& plan);

// What to change when `cell` is over `budget`, for the kind of cell it is: a TorchScript module's state is
// what its state_size() returns (save it smaller; the example script's --key-dim), an in-tree or plugin
// cell's comes from its options; and the flag that runs it anyway. The largest state that passes is said.
std::string over_budget_hint(const std::string& cell, int64_t budget);

// Names of the cells registered in this build, in registry order.
std::vector<std::string> registered_cells();

// A slice I/N of a plan: `index` in [0, count).
struct Shard {
  int index = 0;
  int count = 1;
  // Parses "I/N" with 0 ≤ I < N; anything else is a UsageError.
  static Shard parse(const std::string& text);
};

// The plan indices of shard `shard` (round-robin: i mod count == index).
std::vector<size_t> shard_indices(size_t runs, const Shard& shard);

// Upper-bound estimate of one run's single-thread cost in seconds (every run to its maximum steps),
// calibrated on the 2-core development VM on the slowest in-tree cells (tests/bench/plan_cost.sh). A planning aid,
// not a promise.
double estimate_run_seconds(const RunSpec& spec);

// A cost in core-seconds as people read it: "40 core-seconds", "12.5 core-minutes", "3.2 core-hours".
std::string core_time_text(double core_seconds);

}  // namespace rb
