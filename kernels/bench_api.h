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
};

// Runs the benchmarks and writes `out`. Returns the number of benchmarks run (0 when the filter matched
// none). Throws UsageError for a bad filter or option.
int run_kernel_bench(const KernelBenchOptions& options);

}  // namespace rb
