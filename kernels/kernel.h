// The kernel registry: every implementation of every recurrence on every backend, by name, so that one
// parameterized test (tests/kernels/kernel_test.cpp) and one benchmark harness cover each the moment it
// exists. Backends: "cpu" (ref, chunked, fused; kernels/<family>/) and "cuda" (kernels/cuda/torch_backend.cpp,
// registered only in builds with nvcc; forward only; it reports itself unavailable where no GPU is present).
//
// Dimension letters used throughout kernels/: B batch, H heads, T time, K key dim, V value dim, C chunk.
// Layout: q, k {B, H, T, K}; v, o {B, H, T, V}; fp32.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/registry.h"

namespace rb {

struct KernelShape {
  int64_t B = 2, H = 2, T = 64, K = 16, V = 16;
  // Multiplies the generated log-decays (typically logsigmoid(N(0, 1)), decay ≈ 0.45): 0.01 puts decays
  // near 1 (long memory), 30 near 0 (state forgotten every token). Ignored by recurrences without decay.
  double gate_scale = 1.0;
};

// One implementation of one recurrence. Inputs come from the recurrence's own generator, so every
// implementation of a recurrence sees identical inputs.
struct KernelEntry {
  std::string name;        // "<recurrence>_<impl>", e.g. "linear_attn_chunked"
  std::string recurrence;  // "linear_attn"
  std::string impl;        // "ref" | "chunked" | "fused" | "cuda"
  std::string description;
  // Random inputs of `shape` (requires_grad set on the differentiable ones), deterministic in `seed`.
  std::function<std::vector<torch::Tensor>(const KernelShape& shape, uint64_t seed)> make_inputs;
  // The forward pass: inputs → output.
  std::function<torch::Tensor(const std::vector<torch::Tensor>& inputs)> forward;
  // Floating-point operations of one forward pass at `shape` (for FLOP/s counters).
  std::function<double(const KernelShape& shape)> flops;
  // Minimum bytes one forward pass must move (inputs read once, output written once), for bytes/s
  // counters; empty when not given.
  std::function<double(const KernelShape& shape)> bytes = {};
  // Whether the recurrence has a data-dependent decay (its inputs honour KernelShape::gate_scale).
  bool decay = false;
  std::string backend = "cpu";  // "cpu" | "cuda"
  bool differentiable = true;   // forward builds an autograd graph (the CUDA kernels are forward only)
  // Why this entry cannot run on this machine (e.g. "no CUDA device"), or "" when it can; empty = always runs.
  std::function<std::string()> unavailable = {};
};

// Runs the registered implementation `recurrence`_`impl` (e.g. "gla", "cuda") on `inputs`, for the dispatchers'
// non-CPU implementations. UsageError (exit 2) naming what is missing when the build has no such entry, the
// entry is unavailable here, or gradients are needed from a forward-only entry.
torch::Tensor forward_registered(const std::string& recurrence, const std::string& impl,
                                 const std::vector<torch::Tensor>& inputs);

// Every family's dispatcher (gla(q, k, v, g, impl), ...): `impl` (kernels/impl.h) picks the family's
// reference, chunked or fused function, or the registered CUDA entry on `inputs`; auto/fused fall back to
// chunked for tensors off the CPU.
using KernelFn = std::function<torch::Tensor()>;
torch::Tensor dispatch_impl(const std::string& recurrence, const std::string& impl,
                            const std::vector<torch::Tensor>& inputs, const KernelFn& ref, const KernelFn& chunked,
                            const KernelFn& fused);

// Random q, k {B, H, T, K} and v {B, H, T, V} from N(0, 1), drawn in that order from `gen`, k scaled by
// `k_scale` (1/√(K·T) keeps outputs O(1) over long sequences): the shared part of the families' make_inputs.
std::vector<torch::Tensor> random_qkv(const KernelShape& s, at::Generator& gen, double k_scale);

using KernelRegistry = Registry<KernelEntry>;

}  // namespace rb
