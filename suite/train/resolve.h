// Resolving a run spec, the part that needs no LibTorch: the task's and the curriculum's defaults, the
// eval lengths, the plausibility checks. Shared by the two implementations of train_api.h's resolve_spec:
//   trainer.cpp          (recallbench-torch) sizes the cell by building it, and checks its causality;
//   resolve_sizing.cpp   (the front end `recallbench`) sizes in-tree cells by cells/sizing.h, so that `plan`,
//                        `merge` and `slurm` start without loading LibTorch; a cell only a module knows
//                        (a plugin, a TorchScript file) throws NeedsLibTorch and the command is handed over.
// Both give the same keys: the cells' modules take their dimensions from cells/sizing.h
// (tests/cli/front_end_test.sh compares every preset's plan from both).
#pragma once

#include <cstdint>
#include <memory>

#include "suite/spec.h"
#include "tasks/curriculum.h"
#include "tasks/task.h"

namespace rb {

// The spec with the task's and the curriculum's options resolved and everything but the cell checked;
// `task` receives the task. Task warnings are printed once per configuration (unless set_costing_only).
RunSpec resolve_task_and_recipe(RunSpec spec, std::unique_ptr<Task>& task);

// The task of `spec` at another length (eval_lengths); UsageError if it has no length option or cannot be
// built at that length.
std::unique_ptr<Task> task_at_length(const RunSpec& spec, int64_t length);

CurriculumContext curriculum_context(const RunSpec& spec, const Task& task);

// Refuses a cell whose knobs declare that it reads the whole sequence (core/knobs.h) in a model that may not
// (every causal battery): a UsageError naming the cell and model.bidirectional.
void require_direction(const RunSpec& spec, const nlohmann::json& knobs);

// Whether set_costing_only(true) is in force (train_api.h).
bool costing_only();

}  // namespace rb
