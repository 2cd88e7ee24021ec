// The planner: battery → resolved runs + contrasts; shards; cost estimate. See planner.h.
#include "suite/planner.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cells/catalog.h"
#include "core/knobs.h"
#include "core/errors.h"
#include "reports/results.h"
#include "suite/train/train_api.h"

namespace rb {

using nlohmann::json;

nlohmann::json Contrast::to_json() const { return {{"name", name}, {"knob", knob}, {"a", a}, {"b", b}}; }

json Plan::to_json() const {
  json runs_json = json::array();
  double cost = 0;
  for (const auto& r : runs) {
    runs_json.push_back({{"key", r.key()}, {"file", r.file_name()}, {"spec", r.to_json()}});
    cost += estimate_run_seconds(r);
  }
  json c = json::array();
  for (const auto& x : contrasts) c.push_back(x.to_json());
  json out = {{"schema_version", kPlanSchemaVersion},
              {"kind", "recallbench.plan"},
              {"battery", battery.to_json()},
              {"runs", runs_json},
              {"contrasts", c},
              {"estimated_core_seconds", cost}};
  if (stage != PlanStage::kWhole) out["stage"] = stage == PlanStage::kTuning ? "tuning" : "scoring";
  if (!battery.rates.empty()) out["rates"] = battery.rates;
  return out;
}

std::vector<std::string> registered_cells() { return registered_cell_names(); }

namespace {

// One point of a task's grid: the fixed options plus one value per grid key.
struct TaskPoint {
  size_t task_index;
  json options;
  std::string label;  // "mqar length:32 pairs:4"
};

std::vector<TaskPoint> expand_grid(const BatteryTask& t, size_t task_index) {
  std::vector<json> points = {t.options};
  for (const auto& [key, values] : t.grid) {
    std::vector<json> next;
    for (const auto& p : points)
      for (const auto& v : values) {
        json q = p;
        q[key] = v;
        next.push_back(q);
      }
    points = next;
  }
  std::vector<TaskPoint> out;
  for (const auto& p : points) {
    std::string label = t.name;
    for (const auto& [k, v] : p.items()) label += " " + k + ":" + (v.is_string() ? v.get<std::string>() : v.dump());
    out.push_back({task_index, p, label});
  }
  return out;
}

// The recipe with the curriculum switched off, for matching the curriculum contrast's other arm.
json without_curriculum(const TrainSpec& t) {
  RunSpec s;
  s.train = t;
  s.train.curriculum = "none";
  s.train.curriculum_options = json::object();
  return s.to_json()["train"];
}

// The battery's cells, each checked against this build's registry (script cells are checked when loaded).
std::vector<std::string> battery_cells(const Battery& battery, const std::string& where) {
  const std::vector<std::string> registered = registered_cells();
  std::string registered_list;
  for (const auto& n : registered) registered_list += (registered_list.empty() ? "" : ", ") + n;
  auto is_registered = [&](const std::string& c) {
    return std::find(registered.begin(), registered.end(), c) != registered.end();
  };
  for (size_t i = 0; i < battery.cells.size() && !battery.all_cells; ++i)
    if (!is_script_cell(battery.cells[i]) && !is_registered(battery.cells[i]))
      throw UsageError(where + ": field 'cells[" + std::to_string(i) + "]': cell '" + battery.cells[i] +
                           "' is not registered in this build",
                       "registered cells: " + registered_list);
  if (!battery.reference.empty() && !is_registered(battery.reference))
    throw UsageError(where + ": field 'reference': cell '" + battery.reference + "' is not registered in this build",
                     "registered cells: " + registered_list);
  if (!battery.all_cells) return battery.cells;
  // "all": the cells this battery's model can run (a causal model: not the bidirectional denoisers).
  std::vector<std::string> runnable;
  for (const auto& n : registered)
    if (battery.model.bidirectional || !reads_whole_sequence(cell_knobs(n))) runnable.push_back(n);
  return runnable;
}

// The size of the plan before it is built: a battery of a billion runs is bad input, not an allocation
// failure (grids multiply: cells × points × recipes × seeds).
void check_plan_size(const Battery& battery, const std::vector<std::string>& cells, const std::string& where) {
  double runs = 0;
  for (const auto& task : battery.tasks) {
    double points = 1, cells_here = 0, recipes_here = 0;
    for (const auto& [k, values] : task.grid) points *= static_cast<double>(values.size());
    for (const auto& c : cells) cells_here += task.runs(c) ? 1 : 0;
    for (const auto& r : battery.recipes) recipes_here += task.uses(r.name) ? 1 : 0;
    runs += points * cells_here * recipes_here * static_cast<double>(battery.seeds.size());
  }
  if (runs > static_cast<double>(kMaxPlanRuns))
    throw UsageError(fmt::format("{}: {:.3g} runs (cells × grid points × recipes × seeds), more than the {} one plan "
                                 "may hold",
                                 where, runs, kMaxPlanRuns),
                     "split the battery, or use fewer seeds or grid values");
}

// Builds the plan's runs and its knob and reference contrasts, one task point and recipe at a time.
class PlanBuilder {
 public:
  PlanBuilder(const Battery& battery, std::vector<std::string> cells, Plan& plan)
      : battery_(battery), cells_(std::move(cells)), plan_(plan), where_("battery " + battery.name) {}

  void add_point(size_t ti, const TaskPoint& point, const BatteryRecipe& recipe) {
    std::map<std::string, std::string> config_of;  // cell → config key at this point and recipe
    for (const auto& cell : cells_)
      if (battery_.tasks[ti].runs(cell)) config_of[cell] = add_runs(ti, point, recipe, cell);
    add_contrasts(point, recipe, config_of);
  }

 private:
  // The cell's runs at this point and recipe, one per seed; returns their config key.
  std::string add_runs(size_t ti, const TaskPoint& point, const BatteryRecipe& recipe, const std::string& cell) {
    const auto& task = battery_.tasks[ti];
    const std::string tf = "tasks[" + std::to_string(ti) + "]";
    RunSpec base;
    base.cell.name = cell;
    base.cell.options = battery_.cell_options;
    prepare_script_cell(base.cell, battery_.base_dir);
    base.task.name = task.name;
    base.task.options = point.options;
    base.model = battery_.model;
    base.train = recipe.train;
    if (const auto rate = battery_.rates.find(cell); rate != battery_.rates.end()) base.train.lr = rate->second;
    RunSpec resolved;
    try {
      resolved = resolve_spec(base);
    } catch (const UsageError& e) {
      throw UsageError(where_ + ": " + tf + " (" + point.label + "), cell " + cell + ", recipe " + recipe.name + ": " +
                           e.what(),
                       e.hint());
    }
    for (int64_t seed : battery_.seeds) {
      RunSpec run = resolved;
      run.seed = seed;
      const std::string origin = tf + " (" + point.label + "), recipe " + recipe.name + ", cell " + cell;
      auto [it, fresh] = seen_.emplace(run.key(), origin);
      if (!fresh)
        throw UsageError(where_ + ": run " + run.key() + " appears twice: from " + it->second + " and from " + origin,
                         "make the task grids or recipes disjoint");
      plan_.runs.push_back(run);
    }
    return resolved.config_key();
  }

  bool wants(const char* kind) const {
    return std::find(battery_.contrasts.begin(), battery_.contrasts.end(), kind) != battery_.contrasts.end();
  }

  // Knob contrasts at this point and recipe, then each cell against the reference cell.
  void add_contrasts(const TaskPoint& point, const BatteryRecipe& recipe,
                     std::map<std::string, std::string>& config_of) {
    const std::string on = " on " + point.label + (battery_.recipes.size() > 1 ? ", recipe " + recipe.name : "");
    std::set<std::pair<std::string, std::string>> knob_pairs;  // cells already contrasted by a knob, either order
    for (const auto& a : cells_) {
      for (const auto& b : cells_) {
        // One knob apart (core/knobs.h), `a` carrying it: conv, decay (booleans), transition (rank1 vs diag).
        const auto kc = knob_contrast(cell_knobs(a), cell_knobs(b));
        if (kc && kc->first_carries && wants(kc->knob.c_str())) {
          plan_.contrasts.push_back({kc->knob + ": " + a + " vs " + b + on, kc->knob, config_of[a], config_of[b]});
          knob_pairs.insert({a, b});
          knob_pairs.insert({b, a});
        }
      }
    }
    const std::string& ref = battery_.reference;
    for (const auto& a : cells_) {
      // Against the reference cell, unless a knob contrast already tests that pair (the same test twice
      // would only enlarge the Holm family).
      if (wants("reference") && a != ref && config_of.count(ref) && !knob_pairs.count({a, ref}))
        plan_.contrasts.push_back({"reference: " + a + " vs " + ref + on, "reference", config_of[a], config_of[ref]});
    }
  }

  const Battery& battery_;
  const std::vector<std::string> cells_;
  Plan& plan_;
  const std::string where_;
  std::map<std::string, std::string> seen_;  // run key → where it came from
};

// Curriculum contrasts: a recipe with a curriculum against the same recipe without one.
void add_curriculum_contrasts(Plan& plan) {
  std::map<std::string, std::string> config_by;  // cell|task point|recipe json → config key
  for (const auto& r : plan.runs) {
    json t = r.to_json()["train"];
    config_by[r.cell.name + "|" + r.task.name + r.task.options.dump() + "|" + t.dump()] = r.config_key();
  }
  std::set<std::pair<std::string, std::string>> made;
  for (const auto& r : plan.runs) {
    if (r.train.curriculum == "none") continue;
    const std::string other =
        r.cell.name + "|" + r.task.name + r.task.options.dump() + "|" + without_curriculum(r.train).dump();
    auto it = config_by.find(other);
    if (it == config_by.end() || !made.insert({r.config_key(), it->second}).second) continue;
    std::string label = r.task.name;
    for (const auto& [k, v] : r.task.options.items())
      if (v.is_number_integer()) label += " " + k + ":" + v.dump();
    plan.contrasts.push_back({"curriculum: " + r.train.curriculum + " vs none, " + r.cell.name + " on " + label,
                              "curriculum", r.config_key(), it->second});
  }
}

}  // namespace

Plan make_plan(const Battery& battery) {
  const std::string where = "battery " + battery.name;
  Plan plan;
  plan.battery = battery;
  if (battery.tuning) plan.stage = PlanStage::kScoring;
  std::vector<std::string> cells = battery_cells(battery, where);
  check_plan_size(battery, cells, where);
  PlanBuilder builder(battery, std::move(cells), plan);
  for (size_t ti = 0; ti < battery.tasks.size(); ++ti)
    for (const auto& point : expand_grid(battery.tasks[ti], ti))
      for (const auto& recipe : battery.recipes)
        if (battery.tasks[ti].uses(recipe.name)) builder.add_point(ti, point, recipe);
  if (std::find(battery.contrasts.begin(), battery.contrasts.end(), "curriculum") != battery.contrasts.end())
    add_curriculum_contrasts(plan);
  return plan;
}

Battery tuning_battery(const Battery& battery) {
  RB_CHECK_INPUT(battery.tuning.has_value(), "battery " + battery.name + " has no tuning stage");
  const BatteryTuning& tuning = *battery.tuning;
  Battery t = battery;
  t.name = battery.name + "-tuning";
  t.seeds = tuning.seeds;
  t.reference.clear();
  t.contrasts.clear();
  t.tuning.reset();
  t.rates.clear();
  t.recipes.clear();
  for (const auto& r : battery.recipes)
    for (double lr : tuning.lrs) {
      BatteryRecipe at = r;
      at.name = BatteryTuning::recipe_name(r.name, lr);
      at.train.lr = lr;
      t.recipes.push_back(at);
    }
  for (size_t ti = 0; ti < t.tasks.size(); ++ti) {
    std::vector<std::string> names;
    for (const auto& r : battery.recipes)
      if (battery.tasks[ti].uses(r.name))
        for (double lr : tuning.lrs) names.push_back(BatteryTuning::recipe_name(r.name, lr));
    t.tasks[ti].recipes = names;
  }
  return t;
}

Plan make_tuning_plan(const Battery& battery) {
  Plan plan = make_plan(tuning_battery(battery));
  plan.stage = PlanStage::kTuning;
  return plan;
}

Shard Shard::parse(const std::string& text) {
  const auto bad = [&]() {
    return UsageError("bad shard '" + text + "'", "expected I/N with 0 ≤ I < N, e.g. 0/4 (shards count from 0)");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  Shard s;
  try {
    size_t pa = 0, pb = 0;
    const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
    s.index = std::stoi(a, &pa);
    s.count = std::stoi(b, &pb);
    if (pa != a.size() || pb != b.size()) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count) throw bad();
  return s;
}

std::vector<size_t> shard_indices(size_t runs, const Shard& shard) {
  std::vector<size_t> out;
  for (size_t i = static_cast<size_t>(shard.index); i < runs; i += static_cast<size_t>(shard.count)) out.push_back(i);
  return out;
}

std::string core_time_text(double s) {
  if (s < 60) return fmt::format("{:.0f} core-second{}", s, std::lround(s) == 1 ? "" : "s");
  if (s < 3600) return fmt::format("{:.1f} core-minutes", s / 60.0);
  return fmt::format("{:.1f} core-hours", s / 3600.0);
}

double estimate_run_seconds(const RunSpec& spec) {
  // Per training step: a fixed overhead plus a term in tokens × layers × width². Calibrated with
  // tests/bench/plan_cost.sh (one thread, CPU time per step, docs/speed.md §7) on the slowest in-tree cell,
  // rank1+decay+conv, with margin: measured/estimate 0.65–0.71 for rank1+decay+conv at width 32
  // and lengths 64–256, 0.45 at width 64 (batch 64, length 64), 0.22–0.58 for the others. Evaluation is
  // forward-only (~1/3 of a step per batch of examples).
  int64_t length = 64;
  if (spec.task.options.contains("length") && spec.task.options["length"].is_number_integer())
    length = spec.task.options["length"].get<int64_t>();
  const double d = static_cast<double>(spec.model.d_model);
  const double per_step =
      4e-3 + 6e-9 * static_cast<double>(spec.train.batch * length * spec.model.layers) * std::max(d * d, 1024.0);
  const double evals = static_cast<double>(spec.train.steps) / static_cast<double>(spec.train.eval_every);
  const double per_eval = per_step / 3.0 * static_cast<double>(spec.train.eval_examples) /
                          static_cast<double>(spec.train.batch);
  return static_cast<double>(spec.train.steps) * per_step + evals * per_eval;
}

std::vector<std::string> over_budget(const Plan& plan) {
  std::vector<std::string> notes;
  std::set<std::string> seen;
  for (const auto& r : plan.runs) {
    if (r.model.state_budget <= 0 || !seen.insert(r.config_key()).second) continue;
    const int64_t state = state_size_of(r);
    const std::string over = reports::over_budget(state, r.model.state_budget);
    if (!over.empty())
      notes.push_back(fmt::format("cell {} on {}: state {} numbers per layer, budget {}{}", r.cell.name, r.task.name,
                                  state, r.model.state_budget, over));
  }
  return notes;
}

std::string over_budget_hint(const std::string& cell, int64_t budget) {
  const int64_t most = static_cast<int64_t>(std::floor(1.10 * static_cast<double>(budget)));
  const std::string fits = fmt::format("at most {} numbers per layer pass (budget {} + 10%)", most, budget);
  const std::string anyway = "or pass --allow-over-budget to run it anyway (reports and the leaderboard then flag it)";
  if (cell.rfind("script:", 0) == 0)
    return fmt::format("a TorchScript cell's state is what its module's state_size() returns: save the module with a "
                       "smaller state ({}; examples/script_cell/linear_attention_conv.py has K*K + 9K at --key-dim K, "
                       "and --key-dim 28 gives 1036 for budget 1024), {}", fits, anyway);
  return fmt::format("shrink the cell's state with its options (key_dim, heads, ...) or let the battery size it "
                     "(\"sizing\": \"budget\"); {}, {}", fits, anyway);
}

}  // namespace rb
