// `recallbench bench`: Google Benchmark over the kernel registry. Every implementation of every recurrence,
// forward (no autograd graph) and forward+backward (gradients of all differentiable inputs), on one grid
// of shapes, with the `_ref` implementation in the same run so that speedups are ratios measured together.
//
// Output: Google Benchmark's own JSON (readable by compare.py, github-action-benchmark, Bencher) with
// recallbench's run context in `context` (keys "recallbench.*") and a top-level `recallbench` block:
// {schema_version, context, speedups: [{kernel, ref, mode, shape, ref_ms, ms, speedup}]}.
#include "kernels/bench_api.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "kernels/bench_extra.h"
#include "kernels/kernel.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb {
namespace {

constexpr int kBenchSchemaVersion = 1;

// The fixed grid: the acceptance shape B=8, H=2, K=V=64 at T = 64 .. 4096, and head dims 32 and 128 at T=256.
std::vector<KernelShape> bench_grid() {
  std::vector<KernelShape> out;
  for (int64_t T : {64, 256, 1024, 2048, 4096}) out.push_back({8, 2, T, 64, 64});
  for (int64_t D : {32, 128}) out.push_back({8, 2, 256, D, D});
  return out;
}

std::string shape_name(const KernelShape& s) {
  return fmt::format("B:{}/H:{}/T:{}/K:{}/V:{}", s.B, s.H, s.T, s.K, s.V);
}

// Forward+backward counts as 3× the forward's FLOPs and bytes (the usual 1 : 2 convention).
constexpr double kBackwardFactor = 3.0;

// `plant` > 0: the test-only planted slowdown (bench_extra.h), timed on the wall clock when `wall`.
void run_one(benchmark::State& state, const KernelEntry& e, const KernelShape& s, bool backward, double plant = 0.0,
             bool wall = false) {
  auto inputs = e.make_inputs(s, 1);
  std::vector<torch::Tensor> diff;
  for (const auto& x : inputs)
    if (x.requires_grad()) diff.push_back(x);
  if (!backward) {
    torch::NoGradGuard no_grad;
    for (auto _ : state) {
      bench_extra::PlantedDelay delay(plant, wall);
      auto y = e.forward(inputs);
      benchmark::DoNotOptimize(y.data_ptr());
      delay.pad();
    }
  } else {
    torch::Tensor dy;
    {
      torch::NoGradGuard no_grad;
      auto gen = at::make_generator<at::CPUGeneratorImpl>(2);
      dy = at::randn(e.forward(inputs).sizes(), gen, torch::TensorOptions().dtype(torch::kFloat32));
    }
    for (auto _ : state) {
      bench_extra::PlantedDelay delay(plant, wall);
      auto y = e.forward(inputs);
      auto grads = torch::autograd::grad({y}, diff, {dy});
      benchmark::DoNotOptimize(grads.front().data_ptr());
      delay.pad();
    }
  }
  const double factor = backward ? kBackwardFactor : 1.0;
  using benchmark::Counter;
  state.counters["tokens/s"] = Counter(static_cast<double>(s.B * s.T), Counter::kIsIterationInvariantRate);
  state.counters["FLOP/s"] = Counter(factor * e.flops(s), Counter::kIsIterationInvariantRate);
  if (e.bytes) {
    state.counters["bytes/s"] = Counter(factor * e.bytes(s), Counter::kIsIterationInvariantRate);
  } else {
    // The kernel's declared minimum traffic is absent: inputs read once, output written once.
    torch::NoGradGuard no_grad;
    double bytes = static_cast<double>(e.forward(inputs).nbytes());
    for (const auto& x : inputs) bytes += static_cast<double>(x.nbytes());
    state.counters["bytes/s"] = Counter(factor * bytes, Counter::kIsIterationInvariantRate);
  }
}

// Registers every benchmark whose name matches `filter` (regex search, as Google Benchmark does) plus the
// `_ref` benchmark of the same recurrence, mode and shape, so that every speedup is measured in one run.
// Returns the number registered.
int register_matching(const std::regex& filter, bool multithreaded) {
  std::vector<std::pair<std::string, bool>> selected;  // name, is the entry's own match
  std::map<std::string, bool> wanted;
  const auto& reg = KernelRegistry::instance();
  std::vector<const KernelEntry*> entries;  // the registry's, then the comparison points (softmax attention)
  for (const auto& e : reg.entries()) entries.push_back(&e);
  for (const auto& e : bench_extra::comparison_entries()) entries.push_back(&e);
  for (const auto* ep : entries)
    for (const auto& s : bench_grid())
      for (const char* mode : {"/fwd/", "/fwdbwd/"}) {
        const auto& e = *ep;
        if (e.backend != "cpu") continue;  // CPU timings only; the GPU's are rb_cuda_bench's (kernels/cuda)
        const auto name = e.name + mode + shape_name(s);
        if (!std::regex_search(name, filter)) continue;
        wanted[name] = true;
        wanted[e.recurrence + "_ref" + mode + shape_name(s)] = true;
      }
  int count = 0;
  for (const auto* entry : entries)
    for (const auto& s : bench_grid())
      for (bool backward : {false, true}) {
        const auto name = entry->name + (backward ? "/fwdbwd/" : "/fwd/") + shape_name(s);
        if (!wanted.count(name)) continue;
        const double plant = bench_extra::planted_slowdown(name);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [entry, s, backward, plant, multithreaded](benchmark::State& st) {
          run_one(st, *entry, s, backward, plant, multithreaded);
        });
        // CPU time of the whole process (all threads), so that a loaded machine's waiting is not counted;
        // wall-clock time decides only when several threads run.
        b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
        if (multithreaded) b->UseRealTime();
        ++count;
      }
  return count;
}

std::string context_string(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Speedup of every non-reference implementation over its recurrence's `_ref` at the same mode and shape,
// from the medians when repetitions give aggregates, else from the single runs.
nlohmann::json speedups(const nlohmann::json& doc, const std::string& time_key) {
  std::map<std::string, double> ms;  // benchmark name → time in ms
  bool have_median = false;
  for (const auto& b : doc.value("benchmarks", nlohmann::json::array()))
    if (b.value("aggregate_name", "") == "median") have_median = true;
  for (const auto& b : doc.value("benchmarks", nlohmann::json::array())) {
    const bool median = b.value("aggregate_name", "") == "median";
    if (have_median ? !median : b.value("run_type", "iteration") != "iteration") continue;
    const auto name = b.value("run_name", b.value("name", ""));
    if (!ms.count(name)) ms[name] = b.value(time_key, 0.0);  // unit is ms (set at registration)
  }
  nlohmann::json out = nlohmann::json::array();
  const auto& reg = KernelRegistry::instance();
  for (const auto& [name, t] : ms) {
    const auto slash = name.find('/');
    const KernelEntry* e = reg.find(name.substr(0, slash));
    if (!e || e->impl == "ref") continue;
    const auto ref_name = e->recurrence + "_ref" + name.substr(slash);
    auto it = ms.find(ref_name);
    if (it == ms.end() || t <= 0) continue;
    auto rest = name.substr(slash + 1);
    for (const char* suffix : {"/real_time", "/process_time"}) {
      const auto at = rest.rfind(suffix);
      if (at != std::string::npos) rest.erase(at);
    }
    out.push_back({{"kernel", e->name}, {"ref", e->recurrence + "_ref"}, {"mode", rest.substr(0, rest.find('/'))},
                   {"shape", rest.substr(rest.find('/') + 1)}, {"ref_ms", it->second}, {"ms", t},
                   {"speedup", it->second / t}});
  }
  return out;
}

}  // namespace

int run_kernel_bench(const KernelBenchOptions& o) {
  RB_CHECK_INPUT(o.repetitions >= 1, "bench: --repetitions: got " + std::to_string(o.repetitions) + ", expected ≥ 1");
  RB_CHECK_INPUT(o.min_time >= 0, "bench: --min-time: got " + std::to_string(o.min_time) + ", expected ≥ 0 seconds");
  if (!o.list_only && o.out.empty()) throw UsageError("bench: got no --out FILE, expected one", "e.g. --out bench.json");
  std::regex filter;
  try {
    filter = std::regex(o.filter.empty() ? "." : o.filter);
  } catch (const std::regex_error& err) {
    throw UsageError("bench: --filter: got '" + o.filter + "', expected a regular expression (" + err.what() + ")");
  }
  const bool multithreaded = o.threads > 1;
  const std::string raw = o.out.empty() ? std::string() : o.out + ".gbench.tmp";
  std::vector<std::string> args{"recallbench-bench"};
  if (o.list_only) {
    args.push_back("--benchmark_list_tests=true");
  } else {
    args.push_back("--benchmark_out=" + raw);
    args.push_back("--benchmark_out_format=json");
    args.push_back("--benchmark_repetitions=" + std::to_string(o.repetitions));
    if (o.min_time > 0) args.push_back("--benchmark_min_time=" + fmt::format("{}", o.min_time));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  benchmark::ClearRegisteredBenchmarks();  // a second call in one process starts afresh
  if (register_matching(filter, multithreaded) == 0)
    throw UsageError("bench: --filter '" + o.filter + "' matched no benchmark", "see `recallbench bench --list`");
  if (o.ceilings) bench_extra::register_ceilings(multithreaded);  // every kernel's fraction of the ceilings
  // Google Benchmark 1.7's Shutdown() frees the custom context without resetting it, so this harness never
  // calls Shutdown and adds each context key once per process.
  static std::set<std::string> added;
  for (const auto& [key, value] : o.context.items())
    if (added.insert(key).second) benchmark::AddCustomContext("recallbench." + key, context_string(value));
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  if (o.list_only) return static_cast<int>(ran);
  auto doc = read_json_file(raw);
  const std::string time_key = multithreaded ? "real_time" : "cpu_time";
  auto sp = speedups(doc, time_key);
  const auto ceilings = bench_extra::add_ceiling_fractions(doc);
  doc["recallbench"] = {{"schema_version", kBenchSchemaVersion}, {"context", o.context}, {"time", time_key},
                        {"speedups", sp}, {"ceilings", ceilings}};
  write_json_atomic(o.out, doc);
  std::filesystem::remove(raw);
  if (!sp.empty()) {
    fmt::print("\nspeedup over _ref ({}, {}):\n", time_key, o.repetitions > 1 ? "medians" : "single runs");
    for (const auto& s : sp)
      fmt::print("  {:<24} {:<7} {:<26} {:>10.3f} ms vs {:>10.3f} ms  {:>7.1f}x\n", s["kernel"].get<std::string>(),
                 s["mode"].get<std::string>(), s["shape"].get<std::string>(), s["ms"].get<double>(),
                 s["ref_ms"].get<double>(), s["speedup"].get<double>());
  }
  fmt::print("\nceilings: fp32 GEMM {:.1f} GFLOP/s, triad bandwidth {:.1f} GB/s; fraction of each ({}):\n",
             ceilings.value("gemm_flops", 0.0) / 1e9, ceilings.value("bandwidth_bytes", 0.0) / 1e9,
             o.repetitions > 1 ? "medians" : "single runs");
  for (const auto& f : ceilings.value("fractions", nlohmann::json::array()))
    fmt::print("  {:<56} GEMM {:>6.3f}  bandwidth {:>6.3f}\n", f["name"].get<std::string>(),
               f.value("gemm_fraction", 0.0), f.value("bandwidth_fraction", 0.0));
  return static_cast<int>(ran);
}

}  // namespace rb
