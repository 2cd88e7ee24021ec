// The tasks' chance levels as verify reads them (judge::ChanceOf): judge/ does not see tasks/, so the
// commands that judge claims pass this rule in.
#pragma once

#include <optional>

#include "core/results.h"
#include "tasks/task.h"

namespace rb {

// Task::chance of a config's task with its recorded options (nullopt where the task has none).
inline std::optional<double> task_chance_of(const Config& c) { return task_chance(c.task, c.task_options); }

}  // namespace rb
