// `recallbench bench`: Google Benchmark over every registered kernel implementation, forward and
// forward+backward, on a fixed grid of shapes. Torch-free, so the command line can call it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rb {

struct KernelBenchOptions {
  std::string filter = "";      // regular expression on benchmark names (Google Benchmark's --benchmark_filter); "" = all
  int repetitions = 1;          // repetitions of each benchmark (≥ 9 for anything a gate reads)
  double min_time = 0.0;        // seconds per repetition; 0 = Google Benchmark's default
  std::string out;              // Google Benchmark JSON written here, with `context` (recallbench's run context
                                // under context.recallbench) and a `recallbench` block of speedups over _ref
  nlohmann::json context;       // the run context (capture_context), recorded in the output
  bool list_only = false;       // print the benchmark names and exit
  int threads = 1;              // LibTorch threads the caller set; > 1 times wall clock, else process CPU time
  bool ceilings = true;         // also measure the machine's ceilings (fp32 GEMM, triad bandwidth) and give each
                                // kernel's fraction of them (kernels/bench_extra.h)
};

// `filter` selects benchmarks by regex search on "<kernel>/<fwd|fwdbwd>/B:8/H:2/T:1024/K:64/V:64"; the
// matching `_ref` benchmarks always run too. Speedups use process CPU time with one thread (robust to a
// loaded machine) and wall-clock time with several.
// Runs the benchmarks and writes `out`. Returns the number of benchmarks run (0 when the filter matched
// none). Throws UsageError for a bad filter or option.
int run_kernel_bench(const KernelBenchOptions& options);

}  // namespace rb
