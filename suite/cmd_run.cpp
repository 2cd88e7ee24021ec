// recallbench run: train and score runs, one result file per run, written atomically.
//
//   recallbench run --cell diag+conv --task mqar --pairs 8 --length 64 --seeds 0-2 --out DIR
//   recallbench run --battery first --out DIR
//
// Results go to DIR/runs/<run key>.json. A run whose file already exists with the same key and schema is
// not trained again (so an interrupted command, rerun, finishes only the rest); --force retrains.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "suite/core/errors.h"
#include "suite/core/json_io.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct RunOptions {
  std::string battery;
  std::string cell, task;
  std::vector<std::string> task_opts, cell_opts;
  int64_t pairs = -1, length = -1, vocab = -1;
  std::string seeds = "0";
  std::string out = "results";
  RunSpec base;
  int threads = 1;
  bool force = false;
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

std::vector<RunSpec> plan_from_flags(const RunOptions& o) {
  if (!o.battery.empty()) {
    if (!o.cell.empty() || !o.task.empty())
      throw UsageError("--battery cannot be combined with --cell/--task", "a battery fixes its own cells and tasks");
    return BatteryRegistry::instance().get(o.battery, "battery").plan();
  }
  if (o.cell.empty() || o.task.empty())
    throw UsageError("run needs --battery NAME, or --cell NAME and --task NAME", "see recallbench list");
  RunSpec s = o.base;
  s.cell.name = o.cell;
  s.cell.options = parse_kv(o.cell_opts, "--cell-opt");
  s.task.name = o.task;
  s.task.options = parse_kv(o.task_opts, "--task-opt");
  if (o.pairs >= 0) s.task.options["pairs"] = o.pairs;
  if (o.length >= 0) s.task.options["length"] = o.length;
  if (o.vocab >= 0) s.task.options["vocab"] = o.vocab;
  std::vector<RunSpec> runs;
  for (int64_t seed : parse_seeds(o.seeds)) {
    s.seed = seed;
    runs.push_back(s);
  }
  return runs;
}

// True when `path` holds a complete result for `key` in the current schema.
bool has_result(const std::filesystem::path& path, const std::string& key) {
  if (!std::filesystem::exists(path)) return false;
  try {
    const auto j = read_json_file(path);
    return j.value("schema_version", 0) == kRunSchemaVersion && j.value("key", "") == key && j.contains("result");
  } catch (const UsageError& e) {
    fmt::print(stderr, "warning: {} is unreadable ({}); running it again\n", path.string(), e.what());
    return false;
  }
}

int run_run(RunOptions& o) {
  std::vector<RunSpec> runs = plan_from_flags(o);
  // Resolve everything before training anything: a bad spec fails the command with nothing run.
  for (auto& r : runs) r = resolve_spec(r);
  const std::filesystem::path dir = std::filesystem::path(o.out) / "runs";
  const bool tty = ::isatty(STDERR_FILENO);

  struct Tally {
    int n = 0, locked = 0;
    double acc = 0, wall = 0;
    int64_t state = 0;
  };
  std::map<std::string, Tally> tally;
  const auto t0 = std::chrono::steady_clock::now();
  int index = 0;
  for (const auto& spec : runs) {
    ++index;
    const auto path = dir / spec.file_name();
    nlohmann::json result;
    if (!o.force && has_result(path, spec.key())) {
      result = read_json_file(path);
      fmt::print(stderr, "[{}/{}] {} seed {}: already done, skipped\n", index, runs.size(), spec.cell.name, spec.seed);
    } else {
      int reports = 0;
      const std::string label = fmt::format("[{}/{}] {} on {} seed {}", index, runs.size(), spec.cell.name,
                                            spec.task.name, spec.seed);
      result = train_run(spec, [&](const TrainProgress& p) {
        const std::string line = fmt::format("{}  step {:>5}/{}  loss {:.4f}  acc {:.3f}  {:.1f} steps/s", label,
                                             p.step, p.steps, p.loss, p.accuracy, p.steps_per_second);
        if (tty) fmt::print(stderr, "\r{}\033[K", line);
        else if (++reports % 4 == 0) fmt::print(stderr, "{}\n", line);
      }, o.threads);
      write_json_atomic(path, result);
      const auto& r = result["result"];
      if (tty) fmt::print(stderr, "\r\033[K");
      fmt::print(stderr, "{}: {}  acc {:.3f}  {} steps  {:.1f}s{}\n", label,
                 r["locked_in"].get<bool>() ? "LOCKED IN" : "not locked in", r["final_accuracy"].get<double>(),
                 r["steps"].get<int64_t>(), r["wall_seconds"].get<double>(),
                 r["status"] == "ok" ? "" : "  [" + r["status"].get<std::string>() + ": " +
                                                r["message"].get<std::string>() + "]");
    }
    auto& t = tally[spec.config_key()];
    const auto& r = result["result"];
    t.n += 1;
    t.locked += r["locked_in"].get<bool>() ? 1 : 0;
    t.acc += r["final_accuracy"].get<double>();
    t.wall += r["wall_seconds"].get<double>();
    t.state = r["state_size"].get<int64_t>();
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("\n{:<64} {:>9} {:>9} {:>8} {:>9}\n", "config", "locked-in", "mean acc", "state", "mean s");
  for (const auto& [key, t] : tally)
    fmt::print("{:<64} {:>5}/{:<3} {:>9.3f} {:>8} {:>9.1f}\n", key, t.locked, t.n, t.acc / t.n, t.state, t.wall / t.n);
  fmt::print("\n{} runs in {:.1f}s; results: {}\n", runs.size(), elapsed, std::filesystem::absolute(dir).string());
  return kExitOk;
}

}  // namespace

CommandFn add_run_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<RunOptions>();
  sub->add_option("--battery", o->battery, "Named battery to run (see `recallbench list batteries`)");
  sub->add_option("--cell", o->cell, "Cell name (see `recallbench list cells`)");
  sub->add_option("--task", o->task, "Task name (see `recallbench list tasks`)");
  sub->add_option("--pairs", o->pairs, "Task option: key-value pairs")->check(CLI::PositiveNumber);
  sub->add_option("--length", o->length, "Task option: sequence length")->check(CLI::PositiveNumber);
  sub->add_option("--vocab", o->vocab, "Task option: vocabulary size")->check(CLI::PositiveNumber);
  sub->add_option("--task-opt", o->task_opts, "Other task option as key=value (repeatable)");
  sub->add_option("--cell-opt", o->cell_opts, "Cell option as key=value (repeatable), e.g. heads=2");
  sub->add_option("--seeds", o->seeds, "Seeds: 3, 0-9 or 0,2,5-7 (default 0)");
  sub->add_option("--out", o->out, "Results directory (default results); runs go to OUT/runs/");
  sub->add_option("--steps", o->base.train.steps, "Maximum training steps (default 2000)")->check(CLI::PositiveNumber);
  sub->add_option("--batch", o->base.train.batch, "Sequences per step (default 64)")->check(CLI::PositiveNumber);
  sub->add_option("--lr", o->base.train.lr, "Peak learning rate, AdamW (default 3e-3)")->check(CLI::PositiveNumber);
  sub->add_option("--eval-every", o->base.train.eval_every, "Steps between held-out evaluations (default 50)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--eval-examples", o->base.train.eval_examples, "Held-out set size (default 512)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--threshold", o->base.train.threshold, "Lock-in threshold on held-out accuracy (default 0.99)");
  sub->add_option("--d-model", o->base.model.d_model, "Model width (default 64)")->check(CLI::PositiveNumber);
  sub->add_option("--layers", o->base.model.layers, "Number of blocks (default 2)")->check(CLI::PositiveNumber);
  sub->add_option("--budget", o->base.model.state_budget, "State budget per layer in numbers; 0 = cell default")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--impl", o->base.train.impl, "Kernel implementation: auto, ref, chunked, fused (default auto)");
  sub->add_option("--threads", o->threads, "LibTorch threads per run (default 1; results are identical at 1)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--force", o->force, "Retrain runs whose result files already exist");
  return [o]() { return run_run(*o); };
}

RB_REGISTER(CommandRegistry, run,
            CommandEntry{"run", "Train and score runs (a battery, or one cell on one task over seeds)", add_run_command});

}  // namespace rb
