// Training one run: the torch-free interface the command line and the workers call.
// The implementation (model.cpp, trainer.cpp) is the only place that builds models and touches LibTorch.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cells/torch_threads.h"
#include "core/run_document.h"
#include "suite/spec.h"

namespace rb {

struct TrainProgress {
  int64_t seed = 0;
  int64_t step = 0, steps = 0;
  double loss = 0.0;           // mean training loss since the previous report
  double accuracy = -1.0;      // latest held-out accuracy (-1 before the first evaluation)
  double steps_per_second = 0.0;
  std::string stage;           // curriculum stage, "" without a curriculum
};
using ProgressFn = std::function<void(const TrainProgress&)>;

// Fills in defaults through the registries (task options, cell sizing) so that equal runs have equal
// keys however they were spelled. Unknown names, options or impossible configs: UsageError.
RunSpec resolve_spec(RunSpec spec);
// Whether resolve_spec resolves only to count and cost runs (`list batteries` costs every preset): then it
// prints no task warnings (Task::warnings, else once per task configuration on stderr) and does not check the
// cell's causality (seconds per preset on the LibTorch side; `plan` and `run` check it). Off by default.
void set_costing_only(bool on);

// The recurrent state per layer per sequence (in numbers) of a resolved run's cell, as the cell reports it:
// what a state budget is checked against before any training (suite/planner.h over_budget).
int64_t state_size_of(const RunSpec& resolved);

// The width a cell's module is built for: a TorchScript cell's int attribute `d_model`; 0 when the cell takes
// any width (in-tree and plugin cells, a module without the attribute or one that does not load: the run's
// own checks say why). check-cell and an ad hoc run use it when no --d-model is given, so they agree.
int64_t built_width(const NamedSpec& cell);

// Where a run trains: "cpu" (the default, and the only device a baseline of this repository was recorded on)
// or "cuda" (the first visible GPU; "cuda:N" for another). Not part of the run key: a run on another device
// is the same run, whose numbers may differ in the last bits, as on another CPU kind (the gate warns).
inline constexpr const char* kDefaultDevice = "cpu";
// Checks that `device` names a device this process can train on; UsageError (exit 2) otherwise: an unknown
// name, "cuda" where this LibTorch has no CUDA or no GPU is visible, or a GPU index past the last one.
void require_device(const std::string& device);
// The device's name as the run context records it ("device_name"): the GPU's (e.g. "NVIDIA H200") for cuda,
// "cpu" for the CPU (the context's cpu_model names it). Calls require_device.
std::string device_name(const std::string& device);

// Trains and evaluates one (resolved) run with `threads` LibTorch threads on `device` and returns its run
// document (core/run_document.h, RunDocument::to_json; schema: reports/schema/run.schema.json), whose context
// records the device ("device", "device_name"). Training failures (NaN or exploding loss) do not throw: the
// result says status "diverged" with a message.
nlohmann::json train_run(const RunSpec& spec, const ProgressFn& progress, int threads = 1,
                         const std::string& device = kDefaultDevice);

}  // namespace rb
