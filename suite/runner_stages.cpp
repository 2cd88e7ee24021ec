#include "suite/runner_stages.h"

#include <algorithm>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/results.h"
#include "reports/tuning_text.h"
#include "suite/runner.h"

namespace rb {

Stage parse_stage(const std::string& text) {
  if (text == "all") return Stage::kAll;
  if (text == "tuning") return Stage::kTuning;
  if (text == "scoring") return Stage::kScoring;
  throw UsageError("--stage " + text + ": expected all, tuning or scoring");
}

std::filesystem::path tuning_dir(const std::filesystem::path& out) { return out / "tuning"; }

judge::TuningRule tuning_rule(const Battery& battery) {
  RB_CHECK_INPUT(battery.tuning.has_value(), "battery " + battery.name + " has no tuning stage");
  const auto rule = judge::parse_tuning_rule(battery.tuning->rule);
  RB_CHECK_INPUT(rule.has_value(), "battery " + battery.name + ": unknown tuning rule " + battery.tuning->rule);
  return *rule;
}

Selection read_selection(const Plan& tuning_plan, const std::filesystem::path& dir, judge::TuningRule rule) {
  Selection out;
  out.runs = tuning_plan.runs.size();
  const auto store = read_store(dir);
  std::vector<std::pair<std::string, nlohmann::json>> docs;
  std::vector<std::string> cells;  // in plan order
  for (const auto& r : tuning_plan.runs) {
    if (std::find(cells.begin(), cells.end(), r.cell.name) == cells.end()) cells.push_back(r.cell.name);
    const auto it = store.find(r.key());
    if (it == store.end()) {
      ++out.missing;
      continue;
    }
    docs.emplace_back((dir / "runs" / r.file_name()).string(), it->second);
  }
  if (!out.complete()) return out;
  const RunSet runs = reports::group_runs(docs);
  const std::vector<int64_t>& seeds = tuning_plan.battery.seeds;  // the tuning battery's seeds are the tuning seeds
  for (const auto& cell : cells) out.choices.push_back(judge::choose_rate(cell, runs.configs, seeds, rule));
  return out;
}

nlohmann::json selection_json(const Battery& battery, const Selection& selection) {
  RB_CHECK_INPUT(battery.tuning.has_value(), "battery " + battery.name + " has no tuning stage");
  nlohmann::json j = reports::tuning_json(selection.choices, battery.tuning->seeds);
  j["kind"] = "recallbench.tuning-selection";
  j["schema_version"] = 1;
  j["battery"] = battery.name;
  j["lr"] = battery.tuning->lrs;
  j["rule"] = battery.tuning->rule;
  j["runs"] = selection.runs;
  return j;
}

Selection finish_selection(const Battery& battery, const Plan& tuning_plan, const std::filesystem::path& dir) {
  Selection selection = read_selection(tuning_plan, dir, tuning_rule(battery));
  if (selection.complete()) write_json_atomic(dir / "selection.json", selection_json(battery, selection), 2);
  return selection;
}

Battery with_rates(Battery battery, const Selection& selection) {
  RB_CHECK_INPUT(selection.complete(), "the scoring stage needs the tuning stage's choice, and it is incomplete");
  for (const auto& c : selection.choices) battery.rates[c.cell] = c.lr;
  return battery;
}

}  // namespace rb
