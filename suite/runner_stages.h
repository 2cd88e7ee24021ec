// Running a battery with a tuning stage (battery.h BatteryTuning; issue 44), for `run` and `score`:
//
//   1. the tuning plan (planner.h make_tuning_plan) into OUT/tuning/, like any plan: resumable, sharded;
//   2. once every tuning run has a result (all shards), the selection (judge/tuning.h) from those runs alone,
//      written to OUT/tuning/selection.json (deterministic bytes: the same runs give the same file);
//   3. the scoring plan, each cell at its chosen rate, into OUT/ as a battery without tuning would be.
//
// The scoring stage never starts before the selection is final: a shard whose own tuning runs are done while
// others' are not stops there (rerun it, or let Slurm's second array, which depends on the first, run it).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/tuning.h"
#include "suite/planner.h"

namespace rb {

// Which stages a command runs: both (default), the tuning runs only, or the scoring runs only (the tuning
// stage must then be complete).
enum class Stage { kAll, kTuning, kScoring };
Stage parse_stage(const std::string& text);  // all | tuning | scoring; anything else: UsageError

// Where a battery's tuning stage keeps its runs: OUT/tuning.
std::filesystem::path tuning_dir(const std::filesystem::path& out);

struct Selection {
  size_t runs = 0;                           // the tuning plan's runs
  size_t missing = 0;                        // of them, without a valid result in the store
  std::vector<judge::RateChoice> choices;    // one per cell of the plan, in the plan's cell order (when complete)
  bool complete() const { return missing == 0; }
};

// The selection from the tuning plan's runs in `dir` (only those keys: other runs in the folder are ignored).
// An incomplete stage gives no choices.
Selection read_selection(const Plan& tuning_plan, const std::filesystem::path& dir, judge::TuningRule rule);

// The battery's tuning rule (battery.h BatteryTuning::rule, checked when the battery was read).
judge::TuningRule tuning_rule(const Battery& battery);

// kind "recallbench.tuning-selection": the battery's name and tuning block, the tuning seeds and per cell the
// chosen rate, the step of the rule that chose it and every rate's row (reports/tuning_text.h tuning_json).
nlohmann::json selection_json(const Battery& battery, const Selection& selection);

// read_selection, and when it is complete, its document written to DIR/selection.json (atomically).
Selection finish_selection(const Battery& battery, const Plan& tuning_plan, const std::filesystem::path& dir);

// The battery with each cell's chosen rate (Battery::rates).
Battery with_rates(Battery battery, const Selection& selection);

}  // namespace rb
