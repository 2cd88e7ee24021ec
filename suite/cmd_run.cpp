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
//
// A battery with a tuning stage (suite/battery.h) runs it first into DIR/tuning/, writes the choice of each
// cell's learning rate to DIR/tuning/selection.json, then trains the scoring runs at those rates into DIR
// (suite/runner_stages.h); --stage tuning|scoring runs one stage (the Slurm scripts' two arrays).
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
#include <fmt/ranges.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "suite/planner.h"
#include "suite/run_flags.h"
#include "suite/runner.h"
#include "suite/runner_stages.h"
#include "reports/tuning_text.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct RunOptions {
  RunPlanFlags what;  // the battery or ad hoc config to run (suite/run_flags.h)
  std::string out = "results";
  int threads = 1;
  std::string device;  // "" = the battery's device, else cpu
  int jobs = 0;
  int retries = 1;
  std::string shard = "0/1";
  bool force = false;
  bool keep_other_builds = false;
  std::string only;  // --config: keep the configs whose key contains one of these (comma-separated)
  bool allow_over_budget = false;
  std::string stage = "all";  // a battery with a tuning stage: all | tuning | scoring
};

// Keeps the configs whose key contains one of `only`'s comma-separated parts; false when none is left.
bool keep_configs(Plan& plan, const std::string& only) {
  if (only.empty()) return true;
  std::vector<std::string> parts;
  for (size_t at = 0; at <= only.size();) {
    const size_t comma = std::min(only.find(',', at), only.size());
    if (comma > at) parts.push_back(only.substr(at, comma - at));
    at = comma + 1;
  }
  std::vector<RunSpec> kept;
  for (auto& r : plan.runs) {
    const std::string key = r.config_key();
    if (std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return key.find(p) != std::string::npos; }))
      kept.push_back(std::move(r));
  }
  plan.runs = std::move(kept);
  return !plan.runs.empty();
}

void make_results_dir(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  if (out.empty()) throw UsageError("--out is empty", "give a results directory, e.g. --out results");
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw UsageError("--out " + out.string() + " exists and is not a directory", "give a results directory");
  fs::create_directories(out / "runs", ec);
  if (ec) throw UsageError("--out " + out.string() + ": cannot create the results directory: " + ec.message());
}

// Trains `plan` (this shard of it) into ro.out and says how it went; the command's exit code, or -1 when
// every run of the shard has a result (the caller goes on).
int train(const Plan& plan, const RunnerOptions& ro, int jobs) {
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
  return -1;
}

// A battery with a tuning stage: its tuning runs (unless --stage scoring), then, once the choice is final, the
// scoring plan at the chosen rates. Returns the exit code, or -1 with `plan` replaced by the scoring plan.
int run_tuning_stage(Plan& plan, const RunOptions& o, const RunnerOptions& ro, int jobs, Stage stage) {
  const Battery& battery = plan.battery;
  Plan tuning = make_tuning_plan(battery);
  RunnerOptions tro = ro;
  tro.out = tuning_dir(ro.out);
  if (stage != Stage::kScoring) {
    make_results_dir(tro.out);
    const auto& t = *battery.tuning;
    fmt::print(stderr, "tuning stage: each cell at {} learning rates ({:g} to {:g}) on tuning seeds {}, rule {}\n",
               t.lrs.size(), t.lrs.front(), t.lrs.back(), fmt::join(t.seeds, ","), t.rule);
    Plan mine = tuning;
    keep_configs(mine, o.only);
    if (const int code = train(mine, tro, jobs); code >= 0) return code;
    if (stage == Stage::kTuning) {
      fmt::print("tuning stage done for this shard; the scoring stage: the same command with --stage scoring\n");
      return kExitOk;
    }
  }
  const Selection selection = finish_selection(battery, tuning, tro.out);
  if (!selection.complete()) {
    const std::string what = fmt::format("the tuning stage is incomplete: {} of its {} runs have no result in {} "
                                         "(other shards', or runs that failed); scoring starts only when the choice "
                                         "is final",
                                         selection.missing, selection.runs, std::filesystem::absolute(tro.out).string());
    if (stage == Stage::kScoring) throw UsageError(what, "run the tuning stage (every shard) first: --stage tuning");
    fmt::print("{}: run the same command again when every shard's tuning runs are done\n", what);
    return kExitOk;
  }
  const auto selection_path = tro.out / "selection.json";
  fmt::print("\nlearning rates chosen on the tuning seeds ({}):\n{}", selection_path.string(),
             reports::tuning_table(selection.choices));
  plan = make_plan(with_rates(battery, selection));
  keep_configs(plan, o.only);
  return -1;
}

int run_run(RunOptions& o) {
  if (!o.device.empty()) require_device(o.device);  // before anything is planned: exit 2 where it cannot train
  RunnerOptions ro;
  ro.shard = Shard::parse(o.shard);
  const Stage stage = parse_stage(o.stage);
  Plan plan = plan_from_flags(o.what);
  // The device: --device, else the battery's own, else the CPU; checked before any store is made.
  const std::string device = !o.device.empty()        ? o.device
                             : !plan.battery.device.empty() ? plan.battery.device
                                                            : std::string(kDefaultDevice);
  if (o.device.empty()) require_device(device);
  if (stage != Stage::kAll && !plan.battery.tuning)
    throw UsageError("--stage " + o.stage + ": battery " + plan.battery.name + " has no tuning stage");
  // --config keeps configs of the scoring plan and, for a tuned battery, of its tuning plan (run_tuning_stage).
  const bool scoring_matches = keep_configs(plan, o.only);
  if (!scoring_matches && !(plan.battery.tuning && [&] {
        Plan tuning = make_tuning_plan(plan.battery);
        return keep_configs(tuning, o.only);
      }()))
    throw UsageError("--config " + o.only + " matches no config of the plan",
                     "config keys look like mqar/diag+conv/length:32/pairs:4/vocab:64/<hash>: give a part of one");
  // The state budget before the compute: a new entrant on a battery's budget (--battery B --cell C) that is over it
  // is refused; anything else over a budget is said, and runs.
  if (const auto over = over_budget(plan); !over.empty()) {
    const bool entrant = !o.what.battery.empty() && !o.what.cell.empty();
    for (const auto& line : over) fmt::print(stderr, "{}: {}\n", entrant && !o.allow_over_budget ? "error" : "warning", line);
    if (entrant && !o.allow_over_budget)
      throw UsageError("over the battery's state budget: not a matched-state entrant (nothing was trained)",
                       over_budget_hint(plan.runs.front().cell.name, plan.runs.front().model.state_budget));
  }
  ro.out = o.out;
  make_results_dir(ro.out);  // a results directory that cannot be one is bad input, before anything is trained
  ro.jobs = o.jobs;
  ro.threads = o.threads;
  ro.device = device;
  ro.force = o.force;
  ro.keep_other_builds = o.keep_other_builds;
  ro.retries = o.retries;
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (plan.battery.tuning)
    if (const int code = run_tuning_stage(plan, o, ro, jobs, stage); code >= 0) return code;

  if (const int code = train(plan, ro, jobs); code >= 0) return code;
  const auto agg_path = std::filesystem::absolute(ro.out / "aggregate.json");
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
  add_run_plan_flags(*sub, o->what);
  sub->add_option("--out", o->out, "Results directory (default results); runs go to OUT/runs/");
  sub->add_option("--jobs,-j", o->jobs, "Worker processes (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub->add_flag("--allow-over-budget", o->allow_over_budget,
                "With --battery and --cell: run a cell whose state exceeds the battery's budget by more than 10% "
                "(refused by default: it is not a matched-state entrant)");
  sub->add_option("--config", o->only,
                  "Run only the configs whose key contains one of these (comma-separated), e.g. the ones bisect probes");
  sub->add_option("--shard", o->shard, "Run only slice I/N of the plan (round-robin; I counts from 0)");
  sub->add_option("--retries", o->retries, "Extra attempts for a worker that crashes (default 1)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--threads", o->threads,
                  "LibTorch threads per run, 1 to 64 (default 1; results are identical at 1)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--device", o->device,
                  "Where runs train: cpu, cuda (the first GPU) or cuda:N (default: the battery's \"device\", else "
                  "cpu). Not part of the run key: a "
                  "baseline recorded on another device is compared with a warning, as one from another CPU kind "
                  "(docs/devices.md); needs a CUDA LibTorch and a GPU, else exit 2");
  sub->add_option("--stage", o->stage,
                  "A battery with a tuning stage: all (default: the tuning runs, then, once every tuning run has a "
                  "result, the scoring runs at each cell's chosen rate), tuning (its runs only), or scoring (needs "
                  "the tuning stage complete; Slurm's second array)")
      ->check(CLI::IsMember({"all", "tuning", "scoring"}));
  sub->add_flag("--force", o->force, "Retrain runs whose result files already exist");
  sub->add_flag("--keep-other-builds", o->keep_other_builds,
                "Count results recorded by another build (commit, compiler, LibTorch, build type) as done; by "
                "default they are moved to DIR/other-build/ and rerun");
  return [o]() { return run_run(*o); };
}

RB_REGISTER(CommandRegistry, run,
            CommandEntry{"run", torch_side_help("run"), add_run_command});

}  // namespace rb
