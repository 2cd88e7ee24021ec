// recallbench check-cell CELL [--battery B | --d-model D --budget B --length L] [--impl I] [--learn]
//
// Whether a cell is a fair entrant before it is trained: the conformance harness (cells/conformance.h,
// the same checks the in-tree tests run) on an in-tree, TorchScript (script:PATH) or plugin cell, one line
// per check with its figure. With --learn, it also trains the cell on tiny MQAR and checks that it locks
// in. Exit 0 when every check passes, 1 naming the checks that failed, 2 when the cell cannot be built.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "cells/conformance.h"
#include "core/errors.h"
#include "core/run_document.h"
#include "suite/battery.h"
#include "suite/cli.h"
#include "suite/planner.h"
#include "suite/spec.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct CheckCellOptions {
  std::string cell, battery;
  int64_t d_model = 0, budget = 0, length = 24;  // d_model 0: the battery's, else the module's, else run's default
  std::string impl = "auto";
  bool learn = false;
  int64_t learn_steps = 6000;
};

// Tiny MQAR (2 pairs, length 16, vocabulary 32, batch 64) at lock-in threshold 0.9: attention, the slowest
// in-tree learner here, locks in at steps 1350 and 3950 on a 6000-step schedule (seeds 0, 1; issue 8 and
// the leaderboard pilots), the conv-armed cells within a few hundred steps.
ConformanceCheck learn_check(const NamedSpec& cell, const CheckCellOptions& o) {
  RunSpec s;
  s.cell = cell;
  s.model.d_model = o.d_model;
  s.model.state_budget = o.budget;
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}, {"vocab", 32}};
  s.train.steps = o.learn_steps;
  s.train.batch = 64;
  s.train.threshold = 0.9;
  s.train.eval_examples = 256;
  s.seed = 0;
  const RunDocument doc = RunDocument::from_json(train_run(resolve_spec(s), nullptr), "check-cell --learn");
  const auto& r = doc.result;
  const bool pass = r.locked_in();
  return {"learn", pass,
          pass ? fmt::format("tiny MQAR (2 pairs, length 16): held-out accuracy {:.3f} at step {} of {}", r.final_accuracy,
                             r.lock_in_step, o.learn_steps)
               : fmt::format("tiny MQAR (2 pairs, length 16): {} accuracy {:.3f} after {} steps (threshold 0.9){}",
                             run_status_name(r.status), r.final_accuracy, r.steps, r.message.empty() ? "" : ": " + r.message),
          ""};
}

// The sizes to check at, and where the width came from: --battery's model and longest task (what `run
// --battery B --cell C` and `score` will use), else --d-model, else the width a TorchScript module is built
// for, else run's default width: the one an ad hoc `run --cell C --task T` uses.
std::string resolve_sizes(CheckCellOptions& o, const NamedSpec& cell, bool d_model_given, bool budget_given,
                          bool length_given) {
  std::string source = "--d-model";
  if (!o.battery.empty()) {
    Battery battery = load_battery(o.battery);
    restrict_to_cells(battery, o.cell);
    const Plan plan = make_plan(battery);
    if (!d_model_given) o.d_model = battery.model.d_model, source = "battery " + battery.name;
    if (!budget_given) o.budget = battery.model.state_budget;
    if (!length_given) {
      o.length = 0;
      for (const auto& r : plan.runs) o.length = std::max<int64_t>(o.length, r.task.options.value("length", int64_t{0}));
    }
    return source;
  }
  if (d_model_given) return source;
  if (const int64_t width = built_width(cell); width > 0) {
    o.d_model = width;
    return "the module's d_model";
  }
  o.d_model = RunSpec{}.model.d_model;
  return "run's default";
}

int run_check_cell(CheckCellOptions o, bool d_model_given, bool budget_given, bool length_given) {
  NamedSpec cell{o.cell, nlohmann::json::object(), ""};
  prepare_script_cell(cell);
  const std::string width_source = resolve_sizes(o, cell, d_model_given, budget_given, length_given);
  ConformanceOptions c;
  c.cell = cell.name;
  c.path = cell.path;
  c.options = cell.options;
  c.d_model = o.d_model;
  c.state_budget = o.budget;
  c.check_budget = o.budget > 0;
  c.length = o.length;
  c.impl = o.impl;
  auto checks = check_cell(c);
  if (o.learn) checks.push_back(learn_check(cell, o));
  fmt::print("check-cell {} (d_model {} from {}, budget {}, length {}, impl {})\n", cell.name, o.d_model, width_source,
             o.budget > 0 ? std::to_string(o.budget) : "none", o.length, o.impl);
  const std::string failed = print_checks(checks);
  if (!failed.empty()) {
    fmt::print("check-cell: {} failed: {}\n", cell.name, failed);
    return kExitRegression;
  }
  std::string caveats = check_caveats(checks);
  if (o.budget <= 0) caveats += std::string(caveats.empty() ? "" : "; ") + "no state budget checked (--budget or --battery)";
  if (!o.learn) caveats += std::string(caveats.empty() ? "" : "; ") + "learning not tried (--learn)";
  fmt::print("check-cell: {} passes every check{}\n", cell.name, caveats.empty() ? "" : ", with caveats: " + caveats);
  return kExitOk;
}

CommandFn add_check_cell_command(CLI::App& sub) {
  auto o = std::make_shared<CheckCellOptions>();
  sub.add_option("cell", o->cell, "A registered cell (recallbench list cells) or script:PATH (a TorchScript file)")
      ->required();
  sub.add_option("--battery", o->battery,
                 "Check at this battery's sizes (its width, state budget and longest task): what run --battery B "
                 "--cell C and score will use");
  auto* d_model = sub.add_option("--d-model", o->d_model,
                                 "Model width (default: the battery's; else a TorchScript module's own d_model; else "
                                 "run's default, 64)")
                      ->check(CLI::Range(1, 4096));
  auto* budget = sub.add_option("--budget", o->budget, "State budget per layer in numbers (default: the battery's; else none)")
                     ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  auto* length = sub.add_option("--length", o->length, "Length of the test sequences (default: the battery's longest; else 24)")
                     ->check(CLI::Range(4, 65536));
  sub.add_option("--impl", o->impl, "Kernel implementation for in-tree cells: auto, ref, chunked, fused (default auto)");
  sub.add_flag("--learn", o->learn,
               "Also train on tiny MQAR (2 pairs, length 16, vocabulary 32, batch 64, seed 0) and require held-out "
               "accuracy >= 0.9 within --learn-steps (about a minute of one core for attention)");
  sub.add_option("--learn-steps", o->learn_steps, "Step budget of --learn (default 6000)")->check(CLI::Range(50, 100000));
  sub.footer("Exit codes: 0 every check passes, 1 a check failed (named), 2 the cell cannot be built (bad input).");
  return [o, d_model, budget, length]() {
    return run_check_cell(*o, d_model->count() > 0, budget->count() > 0, length->count() > 0);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, check_cell,
            CommandEntry{"check-cell", torch_side_help("check-cell"), add_check_cell_command});

}  // namespace rb
