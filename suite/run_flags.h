// What runs a command means, from its flags: a battery (--battery, optionally --cell to put other cells on its
// recipe, --seed-offset), or one ad hoc config (--cell, --task, task and cell options, the recipe's numbers,
// --seeds). `run` trains the plan these flags give and `plan` prints it, so the two read the same flags the
// same way and `plan` costs any run that `run` accepts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "suite/planner.h"
#include "suite/spec.h"

namespace rb {

struct RunPlanFlags {
  std::string battery;
  std::string spec_file;  // --spec: a run file (or a bare spec) to run again
  std::string cell, task;
  std::vector<std::string> task_opts, cell_opts, curriculum_opts;
  int64_t pairs = -1, length = -1, vocab = -1;
  std::string seeds = "0";
  int64_t seed_offset = 0;
  RunSpec base;
  std::vector<CLI::Option*> recipe_flags;  // flags that only apply to --cell/--task runs
  CLI::Option* seeds_option = nullptr;

};

// Declares the flags above on `sub` (with the bounds of every number in its footer).
void add_run_plan_flags(CLI::App& sub, RunPlanFlags& flags);

// The plan the flags describe: the battery's (with --cell: its recipe on those cells only), or an ad hoc
// battery "adhoc" of one cell, one task point and one recipe (from the flags, or from --spec FILE: the spec a
// run file records, on its own seed unless --seeds is given). Bad flags: UsageError.
Plan plan_from_flags(const RunPlanFlags& flags);

}  // namespace rb
