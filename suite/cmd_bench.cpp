// recallbench bench [--filter REGEX] [--repetitions N] [--min-time S] [--threads N] --out FILE
// Kernel microbenchmarks (Google Benchmark underneath; kernels/bench.cpp). Torch-free: the harness is
// reached through kernels/bench_api.h.
#include <fmt/format.h>

#include "kernels/bench_api.h"
#include "suite/cli.h"
#include "suite/core/context.h"
#include "suite/core/errors.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct BenchCmdOptions {
  KernelBenchOptions bench;
  int threads = 1;
};

CommandFn add_bench_command(CLI::App& sub) {
  auto o = std::make_shared<BenchCmdOptions>();
  sub.add_option("--filter", o->bench.filter,
                 "Regular expression on benchmark names <kernel>/<fwd|fwdbwd>/B:../H:../T:../K:../V:.. (default: all)");
  sub.add_option("--repetitions", o->bench.repetitions, "Repetitions per benchmark (≥ 9 for the speed gate; default 1)");
  sub.add_option("--min-time", o->bench.min_time, "Seconds per repetition (default: Google Benchmark's 0.5)");
  sub.add_option("--threads", o->threads, "LibTorch (and OpenBLAS) threads (default 1)");
  sub.add_option("--out", o->bench.out, "Google Benchmark JSON output with recallbench's context");
  sub.add_flag("--list", o->bench.list_only, "Print the benchmark names and exit");
  return [o]() {
    RB_CHECK_INPUT(o->threads >= 1, "bench: --threads: got " + std::to_string(o->threads) + ", expected ≥ 1");
    set_torch_threads(o->threads);
    o->bench.context = capture_context(o->threads);
    o->bench.threads = o->threads;
    const int ran = run_kernel_bench(o->bench);
    if (!o->bench.list_only) fmt::print("{} benchmarks written to {}\n", ran, o->bench.out);
    return static_cast<int>(kExitOk);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, bench,
            CommandEntry{"bench", "Kernel microbenchmarks: every kernel implementation, forward and forward+backward, "
                                  "tokens/s and FLOP/s, next to its _ref (Google Benchmark JSON)",
                         add_bench_command});

}  // namespace rb
