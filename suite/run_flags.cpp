#include "suite/run_flags.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/battery.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

// "key=value" strings into a JSON object (values stay strings; the unit's OptionReader converts them).
nlohmann::json parse_kv(const std::vector<std::string>& items, const std::string& flag) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(flag + ": expected key=value, got '" + item + "'");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

// An ad hoc battery of one cell, one task point and one recipe: what `--cell C --task T` and `--spec F` run. The
// cell as a battery names it (a TorchScript cell by its file: the plan prepares it again) with the options and
// model given, the task and recipe as resolved (the plan resolves the whole spec again).
Plan ad_hoc_plan(const std::string& cell, const RunSpec& given, const RunSpec& resolved, const std::string& description,
                 const std::vector<int64_t>& seeds) {
  Battery b;
  b.name = "adhoc";
  b.description = description;
  b.cells = {cell};
  b.cell_options = given.cell.options;
  b.seeds = seeds;
  b.tasks = {BatteryTask{resolved.task.name, resolved.task.options, {}, {}, {}}};
  b.model = given.model;
  b.threshold = resolved.train.threshold;
  b.recipes = {BatteryRecipe{"cli", resolved.train}};
  return make_plan(b);
}

// --spec FILE: a run file's "spec" (or a bare spec document), run again on its own seed or on --seeds.
Plan plan_from_spec_file(const RunPlanFlags& o, bool seeds_given) {
  const json doc = read_json_file(o.spec_file);
  const json& spec_json = doc.is_object() && doc.contains("spec") ? doc.at("spec") : doc;
  const RunSpec spec = RunSpec::from_json(spec_json, o.spec_file);
  std::vector<int64_t> seeds = seeds_given ? parse_seeds(o.seeds) : std::vector<int64_t>{spec.seed};
  for (auto& seed : seeds) seed += o.seed_offset;
  const std::string cell = is_script_cell(spec.cell.name) ? kScriptCellPrefix + spec.cell.path : spec.cell.name;
  return ad_hoc_plan(cell, spec, resolve_spec(spec), "recallbench run --spec " + o.spec_file, seeds);
}

}  // namespace

void add_run_plan_flags(CLI::App& sub, RunPlanFlags& f) {
  sub.add_option("--battery", f.battery, "Named battery or battery JSON file (see `recallbench list batteries`)");
  sub.add_option("--cell", f.cell,
                 "Cell name (see `recallbench list cells`); with --battery, a comma-separated list of cells to run "
                 "the battery's recipe on instead of its own cells (e.g. a new cell's leaderboard row)");
  sub.add_option("--task", f.task, "Task name (see `recallbench list tasks`)");
  sub.add_option("--spec", f.spec_file,
                 "Run again what a run file records (OUT/runs/*.json: its spec, on its seed unless --seeds is given): "
                 "the same key, so a finished run in --out is not retrained unless --force");
  sub.add_option("--pairs", f.pairs, "Task option: key-value pairs")->check(CLI::Range(int64_t{1}, int64_t{100000}));
  sub.add_option("--length", f.length, "Task option: sequence length")->check(CLI::Range(int64_t{1}, int64_t{65536}));
  sub.add_option("--vocab", f.vocab, "Task option: vocabulary size")->check(CLI::Range(int64_t{2}, int64_t{1000000}));
  sub.add_option("--task-opt", f.task_opts, "Other task option as key=value (repeatable)");
  sub.add_option("--cell-opt", f.cell_opts, "Cell option as key=value (repeatable), e.g. heads=2");
  f.seeds_option = sub.add_option("--seeds", f.seeds, "Seeds: 3, 0-9 or 0,2,5-7 (default 0)");
  sub.add_option("--seed-offset", f.seed_offset,
                 "Add OFFSET to every seed (battery or --seeds): the same configs on fresh seeds, e.g. a seed-shift "
                 "A/A replicate of a baseline (configs keep their keys; runs get new ones). Default 0, at most 1e9")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  // The model's and the recipe's numbers, one flag per row of model_numbers() and train_numbers().
  static const RunSpec defaults;
  const auto add_number_flags = [&](auto& spec, const auto& rows, const auto& defaults) {
    for (const auto& row : rows) {
      const std::string help = fmt::format("{}{} (default {})", static_cast<char>(std::toupper(row.help[0])),
                                           row.help + 1, row.get(defaults));
      const CLI::Validator in_range(
          [row](std::string& text) {
            double v = 0;
            try { v = std::stod(text); } catch (const std::exception&) { return std::string(); }  // CLI11 reports the type
            return row.in_range(v) ? std::string() : fmt::format("{} is outside {}", text, row.range());
          },
          row.range());
      std::visit([&](auto m) { f.recipe_flags.push_back(sub.add_option(row.flag, spec.*m, help)->check(in_range)); },
                 row.member);
    }
  };
  add_number_flags(f.base.model, model_numbers(), defaults.model);
  add_number_flags(f.base.train, train_numbers(), defaults.train);
  f.recipe_flags.push_back(sub.add_option("--curriculum", f.base.train.curriculum,
                                           "Curriculum: none, distance, ramp, gated (default none)"));
  f.recipe_flags.push_back(sub.add_option("--curriculum-opt", f.curriculum_opts,
                                           "Curriculum option as key=value (repeatable), e.g. stages=4"));
  f.recipe_flags.push_back(sub.add_flag("--stop-on-plateau", f.base.train.stop_on_plateau,
                                         "Stop a run once it has plateaued (the learning diagnosis's rule, "
                                         "docs/budget.md); recorded as stopped. Default off"));
  f.recipe_flags.push_back(sub.add_option("--impl", f.base.train.impl, "Kernel implementation: auto, ref, chunked, fused (default auto); cuda is forward only, so not for training"));
  std::string bounds;
  const auto add_bounds = [&](const auto& rows) {
    for (const auto& row : rows) bounds += fmt::format("{} {}, ", row.name, row.range());
  };
  add_bounds(model_numbers());
  add_bounds(train_numbers());
  sub.footer("Plausible bounds (beyond them a run is refused, exit 2): " + bounds +
             "length [1, 65536], vocab [2, 1e6], pairs [1, 1e5], and batch x length x d_model <= 2^30 "
             "(suite/battery_schema.md).");
}

Plan plan_from_flags(const RunPlanFlags& o) {
  if (!o.battery.empty()) {
    if (!o.spec_file.empty()) throw UsageError("--battery cannot be combined with --spec", "give one of them");
    if (!o.task.empty())
      throw UsageError("--battery cannot be combined with --task", "a battery fixes its own tasks");
    for (const auto* flag : o.recipe_flags)
      if (flag->count() > 0)
        throw UsageError(flag->get_name() + " applies to --cell/--task runs, not to --battery",
                         "a battery sets its own recipe and model: copy it to a file (recallbench plan --battery " +
                             o.battery + " --battery-json > b.json), edit it, and run --battery b.json");
    Battery battery = load_battery(o.battery);
    for (auto& seed : battery.seeds) seed += o.seed_offset;
    if (!o.cell.empty()) restrict_to_cells(battery, o.cell);  // e.g. a new cell's leaderboard row
    return make_plan(battery);
  }
  if (!o.spec_file.empty()) {
    if (!o.cell.empty() || !o.task.empty() || o.pairs >= 0 || o.length >= 0 || o.vocab >= 0 || !o.task_opts.empty() ||
        !o.cell_opts.empty())
      throw UsageError("--spec cannot be combined with --cell, --task or their options",
                       "the run file fixes its cell and task: another option is another run (--cell C --task T)");
    for (const auto* flag : o.recipe_flags)
      if (flag->count() > 0)
        throw UsageError(flag->get_name() + " cannot be combined with --spec",
                         "the run file fixes its recipe: another recipe is another run (--cell C --task T with flags)");
    return plan_from_spec_file(o, o.seeds_option != nullptr && o.seeds_option->count() > 0);
  }
  if (o.cell.empty() || o.task.empty())
    throw UsageError("run needs --battery NAME, or --cell NAME and --task NAME",
                     "see recallbench list; the default battery is " + std::string(kDefaultBattery));
  RunSpec s = o.base;
  s.cell.name = o.cell;
  s.cell.options = parse_kv(o.cell_opts, "--cell-opt");
  prepare_script_cell(s.cell);
  // No --d-model: a TorchScript module runs at the width it is built for (check-cell checks at the same one).
  const bool width_given = std::any_of(o.recipe_flags.begin(), o.recipe_flags.end(),
                                       [](const CLI::Option* f) { return f->get_name() == "--d-model" && f->count() > 0; });
  if (const int64_t width = width_given ? 0 : built_width(s.cell); width > 0) s.model.d_model = width;
  s.task.name = o.task;
  s.task.options = parse_kv(o.task_opts, "--task-opt");
  s.train.curriculum_options = parse_kv(o.curriculum_opts, "--curriculum-opt");
  for (const auto& [name, value] : {std::pair{"pairs", o.pairs}, {"length", o.length}, {"vocab", o.vocab}}) {
    if (value < 0) continue;
    if (s.task.options.contains(name))
      throw UsageError(fmt::format("task option '{}' given twice: --{} {} and --task-opt {}={}", name, name, value, name,
                                   s.task.options[name].dump()),
                       "give it once");
    s.task.options[name] = value;
  }
  // The same plan builder as a battery's: an ad hoc battery of one cell, one task point and one recipe.
  // Resolving the spec first gives flag-level messages for a bad option before the battery's own.
  const RunSpec resolved = resolve_spec(s);
  std::vector<int64_t> seeds = parse_seeds(o.seeds);
  for (auto& seed : seeds) seed += o.seed_offset;
  return ad_hoc_plan(o.cell, s, resolved, "recallbench run --cell " + o.cell + " --task " + o.task, seeds);
}

}  // namespace rb
