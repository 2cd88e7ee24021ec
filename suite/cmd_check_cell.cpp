// recallbench check-cell CELL [--d-model D] [--budget B] [--length L] [--impl I] [--learn]
//
// Whether a cell is a fair entrant before it is trained: the conformance harness (cells/conformance.h,
// the same checks the in-tree tests run) on an in-tree, TorchScript (script:PATH) or plugin cell, one line
// per check with its figure. With --learn, it also trains the cell on tiny MQAR and checks that it locks
// in. Exit 0 when every check passes, 1 naming the checks that failed, 2 when the cell cannot be built.
#include <memory>

#include <fmt/format.h>

#include "cells/conformance.h"
#include "core/errors.h"
#include "core/run_document.h"
#include "suite/cli.h"
#include "suite/spec.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct CheckCellOptions {
  std::string cell;
  int64_t d_model = 32, budget = 0, length = 24;
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
                             run_status_name(r.status), r.final_accuracy, r.steps, r.message.empty() ? "" : ": " + r.message)};
}

int run_check_cell(const CheckCellOptions& o) {
  NamedSpec cell{o.cell, nlohmann::json::object(), ""};
  prepare_script_cell(cell);
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
  fmt::print("check-cell {} (d_model {}, budget {}, length {}, impl {})\n", cell.name, o.d_model, o.budget, o.length, o.impl);
  const std::string failed = print_checks(checks);
  if (!failed.empty()) {
    fmt::print("check-cell: {} failed: {}\n", cell.name, failed);
    return kExitRegression;
  }
  fmt::print("check-cell: {} passes every check\n", cell.name);
  return kExitOk;
}

CommandFn add_check_cell_command(CLI::App& sub) {
  auto o = std::make_shared<CheckCellOptions>();
  sub.add_option("cell", o->cell, "A registered cell (recallbench list cells) or script:PATH (a TorchScript file)")
      ->required();
  sub.add_option("--d-model", o->d_model, "Model width (default 32)")->check(CLI::Range(1, 4096));
  sub.add_option("--budget", o->budget, "State budget per layer in numbers; 0 = the cell's own sizing (default)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  sub.add_option("--length", o->length, "Length of the test sequences (default 24)")->check(CLI::Range(4, 4096));
  sub.add_option("--impl", o->impl, "Kernel implementation for in-tree cells: auto, ref, chunked, fused (default auto)");
  sub.add_flag("--learn", o->learn,
               "Also train on tiny MQAR (2 pairs, length 16, vocabulary 32, batch 64, seed 0) and require held-out "
               "accuracy >= 0.9 within --learn-steps (about a minute of one core for attention)");
  sub.add_option("--learn-steps", o->learn_steps, "Step budget of --learn (default 6000)")->check(CLI::Range(50, 100000));
  sub.footer("Exit codes: 0 every check passes, 1 a check failed (named), 2 the cell cannot be built (bad input).");
  return [o]() { return run_check_cell(*o); };
}

}  // namespace

RB_REGISTER(CommandRegistry, check_cell,
            CommandEntry{"check-cell", "Check that a cell is a fair entrant: shape, causality, gradients, state, step path, determinism",
                         add_check_cell_command});

}  // namespace rb
