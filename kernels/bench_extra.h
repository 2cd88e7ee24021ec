// Pieces of `recallbench bench` beyond the kernel registry (kernels/bench.cpp calls them):
//   - the machine's ceilings, measured in the same run: fp32 GEMM through the BLAS LibTorch uses
//     ("ceiling/gemm_fp32/N:512", FLOP/s, at the run's thread count: one by default) and memory
//     bandwidth ("ceiling/triad/N:..", a[i] = b[i] + s·c[i] over arrays far larger than the caches);
//     every kernel row then gets `gemm_fraction` (FLOP/s ÷ GEMM ceiling) and `bandwidth_fraction`
//     (bytes/s ÷ triad bandwidth);
//   - causal softmax attention as a comparison point (benchmark names "softmax_attn/<mode>/<shape>");
//   - a test-only planted slowdown: RECALLBENCH_BENCH_PLANT="REGEX=FRACTION" makes every benchmark whose
//     name matches REGEX busy-wait FRACTION × the kernel's own time inside the timed region (CPU time
//     when one thread is timed, wall clock otherwise), so that the speed gate can be shown to flag it.
// LibTorch-using (bench.cpp is already a LibTorch translation unit).
#pragma once

#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kernel.h"

namespace rb::bench_extra {

// The environment variable read by planted_slowdown().
inline constexpr const char* kPlantEnv = "RECALLBENCH_BENCH_PLANT";

// The planted extra fraction for benchmark `name` (0 when RECALLBENCH_BENCH_PLANT is unset or does not
// match). Throws UsageError when the variable is malformed.
double planted_slowdown(const std::string& name);

// Times one iteration's kernel and pads it by the planted fraction. Construct before the kernel call,
// call pad() after it (a no-op when the fraction is 0).
class PlantedDelay {
 public:
  PlantedDelay(double fraction, bool wall_clock);
  void pad() const;

 private:
  double fraction_;
  bool wall_clock_;
  double start_ = 0.0;
};

// Comparison entries benchmarked next to the registry's (not registered kernels: no `_ref`, no tests):
// causal softmax attention over [B, H, T, K] queries/keys and [B, H, T, V] values.
const std::vector<KernelEntry>& comparison_entries();

// Registers the ceiling benchmarks (always: the fractions need them). Returns how many.
int register_ceilings(bool multithreaded);

// Adds `gemm_fraction` / `bandwidth_fraction` to every row with FLOP/s / bytes/s, and returns the
// `ceilings` block {gemm_flops, bandwidth_bytes, openblas_core, fractions: [{name, gemm_fraction,
// bandwidth_fraction}]}
// (the fractions of the median rows when there are repetitions, else of the single runs).
nlohmann::json add_ceiling_fractions(nlohmann::json& doc);

}  // namespace rb::bench_extra
