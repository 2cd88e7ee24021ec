// rb_cuda_bench: Google Benchmark microbenchmarks of the CUDA kernels, timed with CUDA events (manual time),
// run by ci/gpu-check on a GPU machine. Each kernel runs next to its naive CUDA baseline (naive_cuda.h) at
// the same shape in the same run, so a speed claim is a ratio measured together; a device-to-device copy
// measures the machine's bandwidth ceiling first, and every kernel reports its bytes/s as a fraction of it.
//
// Names follow the stable-key style: cuda/<kernel>_<impl>/B:8/H:2/T:2048/K:64/V:64.
// Counters: tokens/s (B·T per call), FLOP/s (the flop models below), bytes/s (compulsory traffic: each input
// read once, each output written once), frac_copy_bw (bytes/s over the measured copy bandwidth).
// Without a device it lists its benchmarks (--benchmark_list_tests) but refuses to run, with exit code 2.
//
// Dimension letters: B batch, H heads, T time, K key dim, V value dim, C channels, W conv width.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cuda/naive_cuda.h"
#include "kernels/cuda/recurrent_cuda.h"
#include "kernels/cuda/short_conv_cuda.h"
#include "core/rng.h"

namespace rb {
namespace {

void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

double g_copy_bytes_per_s = 0;  // measured in main before the kernels run

// A device buffer of n floats filled from a fixed-seed uniform pattern in [lo, hi] (a 1M-value random block
// tiled: random enough for timing, cheap to make at 100M values).
class Filled {
 public:
  Filled(size_t n, float lo, float hi, uint64_t seed) : n_(n) {
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(n, 1) * sizeof(float)), "cudaMalloc");
    Rng rng(seed);
    std::vector<float> block(std::min<size_t>(n, size_t(1) << 20));
    for (auto& x : block) x = static_cast<float>(lo + (hi - lo) * rng.uniform());
    for (size_t off = 0; off < n; off += block.size()) {
      const size_t len = std::min(block.size(), n - off);
      cuda_check(cudaMemcpy(ptr_ + off, block.data(), len * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  ~Filled() { cudaFree(ptr_); }
  Filled(const Filled&) = delete;
  Filled& operator=(const Filled&) = delete;
  float* get() const { return ptr_; }

 private:
  float* ptr_ = nullptr;
  size_t n_;
};

// Times `launch` with CUDA events, one call per iteration, and reports it as the iteration's manual time.
template <typename Launch>
void time_with_events(benchmark::State& state, Launch&& launch) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  try {
    launch();  // warm-up: first-launch costs (module load) stay out of the timings
    cuda_check(cudaDeviceSynchronize(), "warm-up");
    for (auto _ : state) {
      cuda_check(cudaEventRecord(start), "cudaEventRecord");
      launch();
      cuda_check(cudaEventRecord(stop), "cudaEventRecord");
      cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      state.SetIterationTime(ms * 1e-3);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void set_counters(benchmark::State& state, double tokens, double flops, double bytes) {
  using benchmark::Counter;
  state.counters["tokens/s"] = Counter(tokens, Counter::kIsIterationInvariantRate);
  state.counters["FLOP/s"] = Counter(flops, Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = Counter(bytes, Counter::kIsIterationInvariantRate);
  if (g_copy_bytes_per_s > 0) {
    state.counters["frac_copy_bw"] = Counter(bytes / g_copy_bytes_per_s, Counter::kIsIterationInvariantRate);
  }
}

// Inputs of one recurrence shape, kept across the repetitions of all benchmarks at that shape.
struct RecInputs {
  Filled q, k, v, g_key, g_head, beta, o;
  RecInputs(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V)
      : q(B * H * T * K, -0.15f, 0.15f, 1), k(B * H * T * K, -0.15f, 0.15f, 2), v(B * H * T * V, -1.f, 1.f, 3),
        g_key(B * H * T * K, -0.5f, -0.001f, 4), g_head(B * H * T, -0.5f, -0.001f, 5),
        beta(B * H * T, 0.05f, 0.95f, 6), o(B * H * T * V, 0.f, 0.f, 7) {}
};

RecInputs& rec_inputs(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V) {
  static std::map<std::vector<int64_t>, std::unique_ptr<RecInputs>> cache;
  auto& slot = cache[{B, H, T, K, V}];
  if (!slot) {
    cache.clear();  // one shape resident at a time: the grid's largest shapes need ~0.5 GB each
    auto& fresh = cache[{B, H, T, K, V}];
    fresh = std::make_unique<RecInputs>(B, H, T, K, V);
    return *fresh;
  }
  return *slot;
}

// kind: 0 gla fused, 1 gla naive, 2 delta fused, 3 delta naive. Args: B, H, T, K, V.
void bm_recurrence(benchmark::State& state, int kind) {
  const int B = state.range(0), H = state.range(1), T = state.range(2), K = state.range(3), V = state.range(4);
  RecInputs* in = nullptr;
  try {
    in = &rec_inputs(B, H, T, K, V);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  time_with_events(state, [&] {
    switch (kind) {
      case 0: gla_fwd_cuda(in->q.get(), in->k.get(), in->v.get(), in->g_key.get(), in->o.get(), nullptr, nullptr,
                           B, H, T, K, V); break;
      case 1: gla_fwd_cuda_naive(in->q.get(), in->k.get(), in->v.get(), in->g_key.get(), in->o.get(), B, H, T, K,
                                 V); break;
      case 2: delta_rule_fwd_cuda(in->q.get(), in->k.get(), in->v.get(), in->beta.get(), in->g_head.get(),
                                  in->o.get(), nullptr, nullptr, B, H, T, K, V); break;
      default: delta_rule_fwd_cuda_naive(in->q.get(), in->k.get(), in->v.get(), in->beta.get(), in->g_head.get(),
                                         in->o.get(), B, H, T, K, V); break;
    }
  });
  const double bht = double(B) * H * T;
  const bool gla = kind < 2;
  // Flop models per token·head: GLA 5KV (decay·S + k vᵀ: 3KV; read-out 2KV); gated delta rule 7KV
  // (decay KV; Sᵀk and Sᵀq 4KV; rank-1 update 2KV). Compulsory bytes: inputs once, output once.
  const double flops = bht * (gla ? 5.0 : 7.0) * K * V;
  const double bytes = 4.0 * bht * (gla ? 3.0 * K + 2.0 * V : 2.0 * K + 2.0 * V + 2.0);
  set_counters(state, double(B) * T, flops, bytes);
}

// Args: B, T, C, W (SiLU on, bias on).
void bm_short_conv(benchmark::State& state, bool naive) {
  const int B = state.range(0), T = state.range(1), C = state.range(2), W = state.range(3);
  try {
    Filled x(int64_t(B) * T * C, -2.f, 2.f, 11), w(int64_t(C) * W, -1.f, 1.f, 12), b(C, -0.5f, 0.5f, 13),
        y(int64_t(B) * T * C, 0.f, 0.f, 14);
    time_with_events(state, [&] {
      if (naive) {
        short_conv_fwd_cuda_naive(x.get(), w.get(), b.get(), y.get(), B, T, C, W, true);
      } else {
        short_conv_fwd_cuda(x.get(), w.get(), b.get(), y.get(), B, T, C, W, true);
      }
    });
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const double n = double(B) * T * C;
  set_counters(state, double(B) * T, n * (2.0 * W + 4.0), 4.0 * (2.0 * n + double(C) * (W + 1)));
}

// The ceiling: a device-to-device copy of 256 MiB (bytes/s counts the bytes read plus the bytes written).
void bm_copy(benchmark::State& state) {
  const size_t n = size_t(64) << 20;
  try {
    Filled a(n, 0.f, 1.f, 21), b(n, 0.f, 0.f, 22);
    time_with_events(state, [&] {
      cuda_check(cudaMemcpyAsync(b.get(), a.get(), n * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    });
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  state.counters["bytes/s"] = benchmark::Counter(2.0 * 4.0 * n, benchmark::Counter::kIsIterationInvariantRate);
}

// Measures the copy bandwidth once (median of 9 copies), for the frac_copy_bw counters.
double measure_copy_bandwidth() {
  const size_t n = size_t(64) << 20;
  Filled a(n, 0.f, 1.f, 21), b(n, 0.f, 0.f, 22);
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms(10);
  for (auto& m : ms) {
    cuda_check(cudaEventRecord(start), "cudaEventRecord");
    cuda_check(cudaMemcpyAsync(b.get(), a.get(), n * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
    cuda_check(cudaEventRecord(stop), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    cuda_check(cudaEventElapsedTime(&m, start, stop), "cudaEventElapsedTime");
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  ms.erase(ms.begin());  // the first copy pays for page mapping
  std::sort(ms.begin(), ms.end());
  return 2.0 * 4.0 * n / (ms[ms.size() / 2] * 1e-3);
}

void register_benchmarks() {
  // T = 2048, K = V = 64 is the shape the issue quotes; the rest span short/long T, small/large batch·heads
  // and the larger head dim.
  const std::vector<std::vector<int64_t>> rec_shapes = {
      {8, 2, 1024, 64, 64}, {8, 2, 2048, 64, 64}, {8, 2, 4096, 64, 64}, {1, 4, 2048, 64, 64}, {4, 16, 2048, 128, 128}};
  const char* rec_names[] = {"cuda/gla_fused", "cuda/gla_naive", "cuda/delta_rule_fused", "cuda/delta_rule_naive"};
  for (int kind = 0; kind < 4; ++kind) {
    for (const auto& s : rec_shapes) {
      benchmark::RegisterBenchmark(rec_names[kind], bm_recurrence, kind)
          ->Args(s)
          ->ArgNames({"B", "H", "T", "K", "V"})
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  const std::vector<std::vector<int64_t>> conv_shapes = {{8, 1024, 256, 4}, {8, 4096, 1024, 4}, {1, 2048, 4096, 4}};
  for (bool naive : {false, true}) {
    for (const auto& s : conv_shapes) {
      benchmark::RegisterBenchmark(naive ? "cuda/short_conv_naive" : "cuda/short_conv_fused", bm_short_conv, naive)
          ->Args(s)
          ->ArgNames({"B", "T", "C", "W"})
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RegisterBenchmark("cuda/copy_d2d/MiB:256", bm_copy)->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace rb

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing |= std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  rb::register_benchmarks();
  if (!listing) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      std::fprintf(stderr, "rb_cuda_bench: no CUDA device: %s; run it on a GPU machine (ci/gpu-check)\n",
                   err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount reported 0 devices");
      return 2;
    }
    try {
      int dev = 0, driver = 0, runtime = 0;
      rb::cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
      cudaDeviceProp prop{};
      rb::cuda_check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
      cudaDriverGetVersion(&driver);
      cudaRuntimeGetVersion(&runtime);
      benchmark::AddCustomContext("cuda_device", prop.name);
      benchmark::AddCustomContext("cuda_sm_count", std::to_string(prop.multiProcessorCount));
      benchmark::AddCustomContext("cuda_compute_capability",
                                  std::to_string(prop.major) + "." + std::to_string(prop.minor));
      benchmark::AddCustomContext("cuda_memory_GiB", std::to_string(prop.totalGlobalMem / double(1 << 30)));
      benchmark::AddCustomContext("cuda_driver_version", std::to_string(driver));
      benchmark::AddCustomContext("cuda_runtime_version", std::to_string(runtime));
      rb::g_copy_bytes_per_s = rb::measure_copy_bandwidth();
      benchmark::AddCustomContext("cuda_copy_bytes_per_s", std::to_string(rb::g_copy_bytes_per_s));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rb_cuda_bench: device setup failed: %s\n", e.what());
      return 4;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
