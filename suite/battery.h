// Batteries: named sets of runs, as data. A battery is a preset (suite/presets/NAME.json, in the same JSON as
// a file, embedded at build time: battery_presets.h) or a JSON file; the planner (planner.h) expands it into
// resolved RunSpecs with stable keys and the list of contrasts the statistics test.
//
// Schema (version 1; suite/battery_schema.md has the full reference and an example):
//
//   {
//     "schema_version": 1,                        required; must be 1
//     "name": "smoke",                            required; [A-Za-z0-9_.-]+
//     "description": "...",                       optional
//     "cells": ["diag", "diag+conv"] | "all",     required; registered cell names, or every registered cell
//     "reference": "diag+conv",                   optional; the cell every other cell is contrasted with
//     "model": {"d_model": 64, "layers": 2, "mlp": true},          optional; ModelSpec fields
//     "state_budget": 0,                          optional; numbers per layer (0 = each cell's default)
//     "threshold": 0.99,                          optional; lock-in threshold on held-out accuracy
//     "seeds": "0-9" | [0, 1, 2],                 required
//     "tasks": [                                  required, non-empty
//       {"name": "mqar", "options": {"vocab": 256},             fixed options (optional)
//        "grid": {"pairs": [4, 8], "length": [64, 128]},        each key a non-empty list (optional);
//        "recipes": ["curriculum"],                              the recipes it runs under (optional; all)
//        "cells": ["diag", "rank1"]}                             the cells it runs (optional; all)
//     ],                                                        the grid is the cross product
//     "recipes": [                                optional; default one recipe "default" (TrainSpec defaults)
//       {"name": "default", "steps": 2000, "batch": 64, "lr": 3e-3, "curriculum": "none", ...},
//       "lb"                                      a shared recipe by name (suite/presets/recipes.json)
//     ],
//     "contrasts": ["conv", "transition", "decay", "curriculum", "reference"],  optional
//     "tuning": {"lr": [3e-4, 1e-3, 3e-3, 1e-2], "seeds": "100-101",           optional: each cell's learning
//                "rule": "lock-ins-then-recall"}                                      rate chosen first (below)
//   }
//
// Unknown fields, wrong types, empty lists and a wrong schema version are UsageErrors naming the field
// ("battery smoke.json: tasks[0].grid.pairs: expected a non-empty list, got 8").
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/registry.h"
#include "suite/spec.h"

namespace rb {

inline constexpr int kBatterySchemaVersion = 1;

// The knob contrasts a battery may declare (planner.h says how each expands into pairs of configs).
inline const char* const kContrastKinds[] = {"conv", "transition", "decay", "curriculum", "reference"};

// One task with its fixed options and a parameter grid (the cross product of the grid's lists).
struct BatteryTask {
  std::string name;
  nlohmann::json options = nlohmann::json::object();  // fixed options
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> grid;  // key → values, in file order
  std::vector<std::string> recipes;  // the battery recipes this task runs under (empty = all of them)
  std::vector<std::string> cells;    // the battery cells it runs (empty = all of them)

  bool uses(const std::string& recipe) const {
    return recipes.empty() || std::find(recipes.begin(), recipes.end(), recipe) != recipes.end();
  }
  bool runs(const std::string& cell) const {
    return cells.empty() || std::find(cells.begin(), cells.end(), cell) != cells.end();
  }
};

// The tuning stage (issue 44; docs/leaderboard.md "Learning rates"): before its scoring runs, every cell trains
// at each rate of the grid on the tuning seeds (every task point and recipe of the battery, the recipe's lr
// replaced), and the rule picks the cell's rate from those runs alone (judge/tuning.h). The scoring runs then
// train at that rate on the battery's seeds, which must be disjoint from the tuning seeds: a row's seeds never
// choose its rate.
struct BatteryTuning {
  std::vector<double> lrs;          // ascending, distinct, each a plausible lr
  std::vector<int64_t> seeds;       // disjoint from Battery::seeds
  std::string rule = "lock-ins-then-recall";  // judge/tuning.h's rules: lock-ins-then-recall | lock-ins-then-time

  // The recipe's name at one rate of the grid: "lb" at 0.001 → "lb-lr0.001".
  static std::string recipe_name(const std::string& recipe, double lr);
};

// A named training recipe: TrainSpec fields over the defaults (threshold comes from the battery).
struct BatteryRecipe {
  std::string name = "default";
  TrainSpec train;
};

struct Battery {
  std::string name;
  std::string description;
  bool all_cells = false;             // "cells": "all": every registered cell, in registry order
  std::vector<std::string> cells;     // otherwise the listed names, in order
  std::string reference;              // "" = none
  nlohmann::json cell_options = nlohmann::json::object();  // options given to every cell (e.g. {"heads": 2})
  ModelSpec model;                    // state_budget is the battery's state budget
  double threshold = 0.99;
  std::vector<int64_t> seeds;
  std::vector<BatteryTask> tasks;
  std::vector<BatteryRecipe> recipes;  // never empty after parsing
  std::vector<std::string> contrasts;
  std::optional<BatteryTuning> tuning;
  // Each cell's learning rate as its tuning stage chose it (not part of the document: the scoring plan's runs
  // carry it, and DIR/tuning/selection.json says how it was chosen). A cell without one trains at its recipes' lr.
  std::map<std::string, double> rates;
  // Where its runs train ("" = the run's --device, default cpu): cpu, cuda or cuda:N (docs/devices.md). Not
  // in any run key: the same runs on another device give other numbers, compared with a warning.
  std::string device;
  std::string base_dir;               // the battery file's directory ("" for presets): script:PATH cells are
                                      // relative to it (not part of the document)

  // Parses and validates a battery document; `where` prefixes every message (e.g. the file name).
  static Battery from_json(const nlohmann::json& j, const std::string& where);
  // "cpu", "cuda", "cuda:N" (N a GPU index): the device names run, worker, slurm and batteries take. Torch-free
  // (the syntax only: whether this build and machine can train there is suite/train's require_device).
  static bool valid_device(const std::string& device);
  // The canonical document (every default spelled out); from_json(to_json()) round-trips.
  nlohmann::json to_json() const;
};

struct BatteryEntry {
  std::string name;
  std::string description;
  std::function<Battery()> make;
};

using BatteryRegistry = Registry<BatteryEntry>;

// A training recipe defined once and named from any battery's `recipes` list ("recipes": ["lb"]), so that the
// batteries using it share its runs' keys. The shared recipes are suite/presets/recipes.json's.
struct SharedRecipeEntry {
  std::string name;
  nlohmann::json recipe;  // the recipe object, as a battery's `recipes` list writes it (validated where used)
};

using SharedRecipeRegistry = Registry<SharedRecipeEntry>;

// The battery `ci/main` and `recallbench run` without --battery/--cell use.
inline constexpr const char* kDefaultBattery = "smoke";

// A preset name, or a path to a JSON battery file (anything ending in .json or naming an existing file).
// Unknown names: UsageError listing the presets.
Battery load_battery(const std::string& name_or_path);

// The battery's recipe on these cells only (comma-separated; a new cell's leaderboard row): `run --battery B
// --cell C` and `plan --battery B --cell C`. A script:PATH is made absolute (relative to the working directory).
void restrict_to_cells(Battery& battery, const std::string& cells);

// Bounds on seeds: a seed is at most kMaxSeed (room for --seed-offset shifts), a list at most kMaxSeeds long.
inline constexpr int64_t kMaxSeed = 2'000'000'000;
inline constexpr int64_t kMaxSeeds = 100'000;

// Parses a seed list: "3", "0-9", "0,2,5-7" (distinct, within the bounds above). UsageError on anything else.
std::vector<int64_t> parse_seeds(const std::string& text);

}  // namespace rb
