// recallbench run: train and score runs with a pool of worker processes, one result file per run.
//
//   recallbench run --battery smoke --out DIR [--jobs N] [--shard I/N]
//   recallbench run --battery my_battery.json --out DIR
//   recallbench run --cell diag+conv --task mqar --pairs 8 --length 64 --seeds 0-2 --out DIR
//
// Results go to DIR/runs/<run file>.json (suite/store.h). Finished runs are never retrained (an
// interrupted command, rerun, finishes only the rest; --force retrains); corrupt files, and results another
// build recorded (--keep-other-builds keeps those), are moved aside and rerun. Several runs or shards may share DIR. When the whole plan is complete, DIR/aggregate.json holds
// the per-config lock-in counts (suite/runner.h).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "suite/planner.h"
#include "suite/runner.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct RunOptions {
  std::string battery;
  std::string cell, task;
  std::vector<std::string> task_opts, cell_opts, curriculum_opts;
  int64_t pairs = -1, length = -1, vocab = -1;
  std::string seeds = "0";
  int64_t seed_offset = 0;
  std::string out = "results";
  RunSpec base;
  int threads = 1;
  int jobs = 0;
  int retries = 1;
  std::string shard = "0/1";
  bool force = false;
  bool keep_other_builds = false;
  std::string only;  // --config: keep the configs whose key contains one of these (comma-separated)
  bool allow_over_budget = false;
  std::vector<CLI::Option*> recipe_flags;  // flags that only apply to --cell/--task runs
};

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

Plan plan_from_flags(const RunOptions& o) {
  if (!o.battery.empty()) {
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
  Battery b;
  b.name = "adhoc";
  b.description = "recallbench run --cell " + o.cell + " --task " + o.task;
  b.cells = {o.cell};
  b.cell_options = s.cell.options;
  b.seeds = parse_seeds(o.seeds);
  for (auto& seed : b.seeds) seed += o.seed_offset;
  b.tasks = {BatteryTask{o.task, resolved.task.options, {}, {}, {}}};
  b.model = s.model;
  b.threshold = resolved.train.threshold;
  b.recipes = {BatteryRecipe{"cli", resolved.train}};
  return make_plan(b);
}

int run_run(RunOptions& o) {
  RunnerOptions ro;
  ro.shard = Shard::parse(o.shard);
  Plan plan = plan_from_flags(o);
  if (!o.only.empty()) {
    std::vector<std::string> parts;
    for (size_t at = 0; at <= o.only.size();) {
      const size_t comma = std::min(o.only.find(',', at), o.only.size());
      if (comma > at) parts.push_back(o.only.substr(at, comma - at));
      at = comma + 1;
    }
    std::vector<RunSpec> kept;
    for (auto& r : plan.runs) {
      const std::string key = r.config_key();
      if (std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return key.find(p) != std::string::npos; }))
        kept.push_back(std::move(r));
    }
    if (kept.empty())
      throw UsageError("--config " + o.only + " matches no config of the plan",
                       "config keys look like mqar/diag+conv/length:32/pairs:4/vocab:64/<hash>: give a part of one");
    plan.runs = std::move(kept);
  }
  // The state budget before the compute: a new entrant on a battery's budget (--battery B --cell C) that is over it
  // is refused; anything else over a budget is said, and runs.
  if (const auto over = over_budget(plan); !over.empty()) {
    const bool entrant = !o.battery.empty() && !o.cell.empty();
    for (const auto& line : over) fmt::print(stderr, "{}: {}\n", entrant && !o.allow_over_budget ? "error" : "warning", line);
    if (entrant && !o.allow_over_budget)
      throw UsageError("over the battery's state budget: not a matched-state entrant (nothing was trained)",
                       over_budget_hint(plan.runs.front().cell.name, plan.runs.front().model.state_budget));
  }
  ro.out = o.out;
  {  // A results directory that cannot be one is bad input, before anything is planned or trained.
    namespace fs = std::filesystem;
    if (o.out.empty()) throw UsageError("--out is empty", "give a results directory, e.g. --out results");
    std::error_code ec;
    if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec))
      throw UsageError("--out " + o.out + " exists and is not a directory", "give a results directory");
    fs::create_directories(fs::path(o.out) / "runs", ec);
    if (ec) throw UsageError("--out " + o.out + ": cannot create the results directory: " + ec.message());
  }
  ro.jobs = o.jobs;
  ro.threads = o.threads;
  ro.force = o.force;
  ro.keep_other_builds = o.keep_other_builds;
  ro.retries = o.retries;
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const std::string shard_text = ro.shard.count > 1 ? fmt::format(", shard {}/{}", ro.shard.index, ro.shard.count) : "";
  fmt::print(stderr, "battery {}: {} runs{}, {} worker{}, results in {}\n", plan.battery.name, plan.runs.size(),
             shard_text, jobs, jobs == 1 ? "" : "s", std::filesystem::absolute(ro.out / "runs").string());
  const RunnerSummary sum = run_plan(plan, ro);

  const auto agg_path = std::filesystem::absolute(ro.out / "aggregate.json");
  // The runner rewrites the aggregate only when the whole plan is done: otherwise a file there is another time's,
  // and one of another shape is bad input naming it (exit 2), not an internal error.
  if (!sum.interrupted && std::filesystem::exists(agg_path)) {
    const json agg = read_json_file(agg_path);
    with_json_errors(agg_path.string(), [&] {
      if (agg.at("missing").empty()) print_aggregate_table(agg);
    });
  }
  fmt::print("\n{} runs{}: {} trained, {} already done{}{}{} in {:.1f}s ({} locked in); results: {}\n", sum.total,
             shard_text, sum.trained, sum.already, sum.failed ? fmt::format(", {} FAILED", sum.failed) : "",
             sum.corrupt ? fmt::format(", {} corrupt file(s) rerun", sum.corrupt) : "",
             sum.other_build ? fmt::format(", {} from another build rerun", sum.other_build) : "", sum.elapsed,
             sum.locked_in,
             std::filesystem::absolute(ro.out / "runs").string());
  if (sum.interrupted) {
    fmt::print(stderr, "interrupted: finished runs are kept; run the same command again to finish the rest\n");
    return 130;
  }
  if (sum.failed_disk_full > 0) {
    fmt::print(stderr, "{} run(s) failed on a full disk (not retried); free some space under {} and run the same "
                       "command again: finished runs are kept\n",
               sum.failed_disk_full, ro.out.string());
    return kExitUsage;
  }
  if (sum.failed > 0 && sum.failed == sum.failed_bad_input) {
    fmt::print(stderr, "{} run(s) failed on bad input (the worker logs above say what: a cell that raises, an "
                       "impossible option); fix it and run the same command again\n",
               sum.failed);
    return kExitUsage;
  }
  if (sum.failed > 0) {
    fmt::print(stderr, "{} run(s) failed (see the worker logs above); run the same command again to retry them\n",
               sum.failed);
    return kExitInternal;
  }
  if (std::filesystem::exists(agg_path)) {
    const json agg = read_json_file(agg_path);
    if (with_json_errors(agg_path.string(), [&] { return agg.at("missing").empty(); }))
      fmt::print("aggregate: {}\n", agg_path.string());
  } else if (ro.shard.count > 1) {
    fmt::print("other shards still running; when all are done: recallbench merge {}\n",
               std::filesystem::absolute(ro.out).string());
  }
  return kExitOk;
}

}  // namespace

CommandFn add_run_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<RunOptions>();
  sub->add_option("--battery", o->battery, "Named battery to run (see `recallbench list batteries`)");
  sub->add_option("--cell", o->cell,
                  "Cell name (see `recallbench list cells`); with --battery, a comma-separated list of cells to run "
                  "the battery's recipe on instead of its own cells (e.g. a new cell's leaderboard row)");
  sub->add_option("--task", o->task, "Task name (see `recallbench list tasks`)");
  sub->add_option("--pairs", o->pairs, "Task option: key-value pairs")->check(CLI::Range(int64_t{1}, int64_t{100000}));
  sub->add_option("--length", o->length, "Task option: sequence length")->check(CLI::Range(int64_t{1}, int64_t{65536}));
  sub->add_option("--vocab", o->vocab, "Task option: vocabulary size")->check(CLI::Range(int64_t{2}, int64_t{1000000}));
  sub->add_option("--task-opt", o->task_opts, "Other task option as key=value (repeatable)");
  sub->add_option("--cell-opt", o->cell_opts, "Cell option as key=value (repeatable), e.g. heads=2");
  sub->add_option("--seeds", o->seeds, "Seeds: 3, 0-9 or 0,2,5-7 (default 0)");
  sub->add_option("--seed-offset", o->seed_offset,
                  "Add OFFSET to every seed (battery or --seeds): the same configs on fresh seeds, e.g. a seed-shift "
                  "A/A replicate of a baseline (configs keep their keys; runs get new ones). Default 0, at most 1e9")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000000}));
  sub->add_option("--out", o->out, "Results directory (default results); runs go to OUT/runs/");
  std::string bounds;
  const auto add_bounds = [&](const auto& rows) {
    for (const auto& row : rows) bounds += fmt::format("{} {}, ", row.name, row.range());
  };
  add_bounds(model_numbers());
  add_bounds(train_numbers());
  sub->footer("Plausible bounds (beyond them a run is refused, exit 2): " + bounds +
              "length [1, 65536], vocab [2, 1e6], pairs [1, 1e5], and batch x length x d_model <= 2^30 "
              "(suite/battery_schema.md).");
  sub->add_option("--jobs,-j", o->jobs, "Worker processes (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub->add_flag("--allow-over-budget", o->allow_over_budget,
                "With --battery and --cell: run a cell whose state exceeds the battery's budget by more than 10% "
                "(refused by default: it is not a matched-state entrant)");
  sub->add_option("--config", o->only,
                  "Run only the configs whose key contains one of these (comma-separated), e.g. the ones bisect probes");
  sub->add_option("--shard", o->shard, "Run only slice I/N of the plan (round-robin; I counts from 0)");
  sub->add_option("--retries", o->retries, "Extra attempts for a worker that crashes (default 1)")
      ->check(CLI::Range(0, 100));
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
      std::visit([&](auto m) { o->recipe_flags.push_back(sub->add_option(row.flag, spec.*m, help)->check(in_range)); },
                 row.member);
    }
  };
  add_number_flags(o->base.model, model_numbers(), defaults.model);
  add_number_flags(o->base.train, train_numbers(), defaults.train);
  o->recipe_flags.push_back(sub->add_option("--curriculum", o->base.train.curriculum,
                                            "Curriculum: none, distance, ramp, gated (default none)"));
  o->recipe_flags.push_back(sub->add_option("--curriculum-opt", o->curriculum_opts,
                                            "Curriculum option as key=value (repeatable), e.g. stages=4"));
  o->recipe_flags.push_back(sub->add_option("--impl", o->base.train.impl, "Kernel implementation: auto, ref, chunked, fused (default auto); cuda is forward only, so not for training"));
  sub->add_option("--threads", o->threads,
                  "LibTorch threads per run, 1 to 64 (default 1; results are identical at 1)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--force", o->force, "Retrain runs whose result files already exist");
  sub->add_flag("--keep-other-builds", o->keep_other_builds,
                "Count results recorded by another build (commit, compiler, LibTorch, build type) as done; by "
                "default they are moved to DIR/other-build/ and rerun");
  return [o]() { return run_run(*o); };
}

RB_REGISTER(CommandRegistry, run,
            CommandEntry{"run", "Train and score runs (a battery, or one cell on one task over seeds)", add_run_command});

}  // namespace rb
