// The recall gate's results (judge/recall_gate.h) in words and as JSON: the one place where its sentences
// are written. Reports, the console and bisect read these, never their own spelling.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "judge/learning.h"
#include "judge/recall_gate.h"

namespace rb::reports {

// "state_size 1312 → 1120; parameters 28288 → 27904" ("" when nothing differs).
std::string model_change_text(const judge::ModelDifference& d);
// "held-out set 3f2a9c0d41be → 71c0e2aa9b13" ("" when the same or unrecorded).
std::string task_change_text(const judge::DataDifference& d);
// "seeds 0, 3, 7 of 10 with the same seed number" ("" when none changed).
std::string stream_change_text(const judge::DataDifference& d);
// "current: seeds 0, 1 saw the same training batches" ("" when the seeds are independent).
std::string dependent_seeds_text(const judge::DataDifference& d);

// One line: why this config got its verdict, with the numbers behind it.
std::string gate_reason(const judge::ConfigComparison& cc, const judge::GateOptions& options);

// The battery's pooled test in one line: "battery: regression: 4 paired configs pooled, 31 of 38 untied pairs
// worse, p = 2e-05 (one-sided sign test at alpha/5 = 0.01; ...)"; "" when it was not tested for want of configs.
std::string battery_text(const judge::BatteryTest& battery);
nlohmann::json battery_json(const judge::BatteryTest& battery);

// The minimum effects: "20 points lock-in, 10% recall or 20% time to lock in".
std::string min_effects(const judge::GateOptions& options);

// The seeds that did not lock in, by the learning diagnosis (judge/learning.h), for a table cell: "–" when every
// seed locked in; "budget-limited 7 of 9 (pilot 3000 steps)" when the config is; else the counts,
// "plateaued 9, budget-limited 1" (unknown ones last: a stored outcome without its curve).
std::string learning_text(const judge::ConfigLearning& learning);

// The verdict counts the pages show (from judge::Comparison::counts()).
struct GateCounts {
  explicit GateCounts(const judge::Comparison& c);
  int64_t regressions = 0, improvements = 0, inconclusive = 0, unchanged = 0, model_changed = 0;
  int64_t below_minimum = 0;  // significant, below the minimum effect
  int64_t data_changed = 0;  // task or data stream changed, or seeds not independent
};

nlohmann::json comparison_to_json(const judge::Comparison& comparison);

}  // namespace rb::reports
