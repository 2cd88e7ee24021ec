// Reading results: run documents written by `recallbench run` (one JSON file per run), grouped into
// configurations (all seeds of one cell × task × parameters × training recipe), and the summary of a
// configuration that reports and the gate show: lock-in k/n with an exact interval, recall spread,
// median steps to lock in, state size beside the capacity floor of the task.
//
// The same Config structure is what baselines and reports store (config_to_json / config_from_json), so a
// baseline, a report and a results directory can each be read as "the current side" of a comparison.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"
#include "judge/summary.h"

namespace rb::reports {

// Reads results. `path` may be a results directory (its runs/*.json, or *.json directly in it; with the
// battery name and declared contrasts of DIR/plan.json when the runner wrote one), one run document, a
// baseline or a report (their "configs"). Runs are grouped into configs by config_key; a
// second document for the same run key is an error. Malformed or wrong-version files: UsageError naming
// the file and what was expected.
RunSet load_results(const std::filesystem::path& path);

// Groups run documents (kind "recallbench.run") into configs. `where` names the source in messages.
RunSet group_runs(const std::vector<std::pair<std::string, json>>& documents);

// A double as JSON. A finite number is itself; NaN (undefined) is null; an infinity is null too (what the
// reports' schemas say), or the string "inf" / "-inf" with Infinity::kString (the stats command, whose
// readers tell an infinite odds ratio from an undefined one).
enum class Infinity { kNull, kString };
json json_number(double v, Infinity infinity = Infinity::kNull);

// " (over budget by 28%)" when a state exceeds its budget (> 0) by more than 10%, else "": such a cell is
// not a matched-state entrant, and reports and the leaderboard say so beside its state.
std::string over_budget(int64_t state_size, int64_t state_budget);

// Serialisation shared by baselines and reports. `with_curves` keeps the learning curves.
json config_to_json(const Config& config, bool with_curves);
json summary_to_json(const judge::ConfigSummary& summary);
// Parses one stored config; UsageError naming `where` and the field on a bad document (fields that
// contradict the key's config_hash among them).
Config config_from_json(const json& j, const std::string& where);

}  // namespace rb::reports
