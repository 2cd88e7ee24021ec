// recallbench bench [--filter REGEX] [--repetitions N] [--min-time S] [--threads N] --out FILE
// Kernel microbenchmarks (Google Benchmark underneath; kernels/bench.cpp). Torch-free: the harness is
// reached through kernels/bench_api.h.
#include <fmt/format.h>

#include "kernels/bench_api.h"
#include "judge/speed_gate.h"
#include "reports/speed_gate.h"
#include "suite/cli.h"
#include "suite/context.h"
#include "core/errors.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

struct BenchCmdOptions {
  KernelBenchOptions bench;
  int threads = 1;
  bool calibrate = false;  // A/A: run twice, report the noise (judge/speed_gate.h)
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
  sub.add_flag("--calibrate", o->calibrate,
               "A/A noise calibration: run the benchmarks twice (OUT.aa.json, then OUT), report each benchmark's "
               "spread and the smallest speed-gate --threshold this machine supports");
  return [o]() {
    RB_CHECK_INPUT(o->threads >= 1, "bench: --threads: got " + std::to_string(o->threads) + ", expected ≥ 1");
    set_torch_threads(o->threads);
    o->bench.context = capture_context(o->threads);
    o->bench.threads = o->threads;
    if (o->calibrate && !o->bench.list_only) {
      RB_CHECK_INPUT(o->bench.repetitions >= 9, "bench: --calibrate: got --repetitions " +
                                                    std::to_string(o->bench.repetitions) + ", expected ≥ 9");
      RB_CHECK_INPUT(!o->bench.out.empty(), "bench: --calibrate: got no --out FILE, expected one");
      auto first = o->bench;
      first.out = o->bench.out + ".aa.json";
      run_kernel_bench(first);
      run_kernel_bench(o->bench);
      const auto cal = judge::calibrate_noise(reports::read_bench_file(first.out),
                                                reports::read_bench_file(o->bench.out));
      fmt::print("\n{}", reports::noise_calibration_table(cal));
      return static_cast<int>(kExitOk);
    }
    const int ran = run_kernel_bench(o->bench);
    if (!o->bench.list_only) fmt::print("{} benchmarks written to {}\n", ran, o->bench.out);
    return static_cast<int>(kExitOk);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, bench,
            CommandEntry{"bench", torch_side_help("bench"), add_bench_command});

}  // namespace rb
