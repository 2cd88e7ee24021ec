// The front end's resolve_spec and state_size_of (train_api.h) and cell registry view (cells/catalog.h),
// without LibTorch: in-tree cells are sized by cells/sizing.h, the same rules their modules are built
// from, so the keys are the ones recallbench-torch computes. What this cannot know throws NeedsLibTorch and
// the command is handed to recallbench-torch (suite/main.cpp): a cell that is not in-tree (a plugin, a
// TorchScript file, or a name that may be a plugin's), the cell catalog and the kernel registry. Not checked
// here: a cell's causality (in-tree cells are causal by their tests; `run` checks again on the LibTorch side
// before training).
#include "cells/catalog.h"
#include "cells/sizing.h"
#include "kernels/catalog.h"
#include "core/errors.h"
#include "suite/needs_libtorch.h"
#include "kernels/impl.h"
#include "suite/train/resolve.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

const CellSizing& sizing_of(const std::string& name) {
  if (const CellSizing* s = find_cell_sizing(name)) return *s;
  throw NeedsLibTorch("cell '" + name + "' is not an in-tree cell: only its module can size it");
}

CellShape shape_of(const RunSpec& spec, int64_t max_length) {
  SizingInput in;
  in.d_model = spec.model.d_model;
  in.state_budget = spec.model.state_budget;
  in.max_length = max_length;
  in.options = spec.cell.options;
  return sizing_of(spec.cell.name).size(in);
}

}  // namespace

RunSpec resolve_spec(RunSpec spec) {
  sizing_of(spec.cell.name);  // before any check or warning: a command handed over must not say anything twice
  std::unique_ptr<Task> task;
  spec = resolve_task_and_recipe(std::move(spec), task);
  require_direction(spec, sizing_of(spec.cell.name).knobs);
  spec.cell.options = shape_of(spec, task->length()).options;
  parse_kernel_impl(spec.train.impl);  // as the cell's module checks it, after its options
  check_plausible(spec, "run " + spec.cell.name + " on " + spec.task.name);  // with the task's defaults filled in
  return spec;
}

int64_t state_size_of(const RunSpec& spec) {
  return shape_of(spec, make_task(spec.task.name, spec.task.options)->length()).state_size;
}

nlohmann::json cell_knobs(const std::string& name) {
  const CellSizing* s = find_cell_sizing(name);
  return s ? s->knobs : nlohmann::json(nullptr);
}

std::vector<std::string> registered_cell_names() {
  std::vector<std::string> names;
  for (const auto& s : cell_sizings()) names.push_back(s.name);
  return names;
}

int64_t built_width(const NamedSpec& cell) {
  if (is_script_cell(cell.name)) throw NeedsLibTorch("only LibTorch can read a TorchScript module's d_model");
  return 0;
}

std::vector<CellInfo> cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length, bool with_parameters) {
  if (with_parameters) throw NeedsLibTorch("counting a cell's parameters builds its module");
  return sized_cell_catalog(d_model, state_budget, max_length);
}

// The kernels are registered by their LibTorch modules (kernels/): `list kernels` is answered over there.
std::vector<KernelInfo> kernel_catalog() { throw NeedsLibTorch("the kernel registry lives with LibTorch"); }

}  // namespace rb
