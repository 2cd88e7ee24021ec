// Ceilings, softmax attention, the planted slowdown and the fractions of `recallbench bench` (see
// bench_extra.h).
#include "kernels/bench_extra.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"

namespace rb::bench_extra {
namespace {

constexpr int64_t kGemmN = 512;            // 512³ fp32 GEMM: 3 MiB of operands, BLAS at full speed
constexpr int64_t kTriadN = 16 * 1024 * 1024;  // 3 arrays × 64 MiB: far beyond any last-level cache

double now_seconds(bool wall_clock) {
  timespec ts{};
  clock_gettime(wall_clock ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Causal softmax attention, the O(T²) comparison point: softmax(q kᵀ / √K + causal mask) v.
std::vector<torch::Tensor> softmax_inputs(const KernelShape& s, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  auto q = at::randn({s.B, s.H, s.T, s.K}, gen, opts);  // [B, H, T, K]
  auto k = at::randn({s.B, s.H, s.T, s.K}, gen, opts);  // [B, H, T, K]
  auto v = at::randn({s.B, s.H, s.T, s.V}, gen, opts);  // [B, H, T, V]
  return {q.requires_grad_(), k.requires_grad_(), v.requires_grad_()};
}

torch::Tensor softmax_forward(const std::vector<torch::Tensor>& in) {
  const auto& q = in[0];
  const auto T = q.size(2);
  auto scores = torch::matmul(q, in[1].transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(3)));  // [B, H, T, T]
  auto mask = torch::ones({T, T}, torch::TensorOptions().dtype(torch::kBool)).triu(1);
  return torch::matmul(torch::softmax(scores.masked_fill(mask, -INFINITY), -1), in[2]);  // [B, H, T, V]
}

double softmax_flops(const KernelShape& s) {
  // Both matmuls computed in full (q kᵀ: 2T²K, p v: 2T²V); the mask does not skip work.
  return 2.0 * s.B * s.H * s.T * s.T * (s.K + s.V);
}

double softmax_bytes(const KernelShape& s) { return 4.0 * s.B * s.H * s.T * (2.0 * s.K + 2.0 * s.V); }

// The value of `counter` in the rows of benchmark `prefix*`: the median row when there is one, else the
// median over the iteration rows. 0 when absent.
double ceiling_value(const nlohmann::json& doc, const std::string& prefix, const std::string& counter) {
  std::vector<double> it;
  for (const auto& b : doc.value("benchmarks", nlohmann::json::array())) {
    const auto name = b.value("run_name", b.value("name", std::string()));
    if (name.rfind(prefix, 0) != 0 || !b.contains(counter)) continue;
    if (b.value("aggregate_name", std::string()) == "median") return b[counter].get<double>();
    if (b.value("run_type", std::string("iteration")) == "iteration") it.push_back(b[counter].get<double>());
  }
  if (it.empty()) return 0.0;
  std::sort(it.begin(), it.end());
  return it[it.size() / 2];
}

// OpenBLAS's kernel choice ("Prescott", "SkylakeX", ...; its dynamic-arch detection can fall back to an old
// core on a VM, which OPENBLAS_CORETYPE overrides), or "" when the BLAS is not OpenBLAS.
std::string openblas_core() {
  using CoreName = char* (*)();
  auto fn = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = fn ? fn() : nullptr;
  return name ? std::string(name) : std::string();
}

}  // namespace

double planted_slowdown(const std::string& name) {
  const char* env = std::getenv(kPlantEnv);
  if (!env || !*env) return 0.0;
  const std::string spec(env);
  const auto eq = spec.rfind('=');
  double fraction = 0.0;
  try {
    if (eq == std::string::npos) throw std::invalid_argument("no '='");
    size_t used = 0;
    fraction = std::stod(spec.substr(eq + 1), &used);
    if (used != spec.size() - eq - 1 || !(fraction >= 0)) throw std::invalid_argument("fraction");
  } catch (const std::exception&) {
    throw UsageError(std::string(kPlantEnv) + ": got '" + spec + "', expected REGEX=FRACTION (e.g. 'gla_fused/fwd/=0.3')");
  }
  try {
    return std::regex_search(name, std::regex(spec.substr(0, eq))) ? fraction : 0.0;
  } catch (const std::regex_error& err) {
    throw UsageError(std::string(kPlantEnv) + ": got regex '" + spec.substr(0, eq) + "', expected a regular expression (" +
                     err.what() + ")");
  }
}

PlantedDelay::PlantedDelay(double fraction, bool wall_clock) : fraction_(fraction), wall_clock_(wall_clock) {
  if (fraction_ > 0) start_ = now_seconds(wall_clock_);
}

void PlantedDelay::pad() const {
  if (fraction_ <= 0) return;
  const double t = now_seconds(wall_clock_);
  const double until = t + fraction_ * (t - start_);
  volatile double sink = 0.0;  // busy-wait: it must cost CPU time, which is what one thread is timed by
  while (now_seconds(wall_clock_) < until) sink = sink + 1.0;
}

const std::vector<KernelEntry>& comparison_entries() {
  static const std::vector<KernelEntry> entries{
      KernelEntry{"softmax_attn", "softmax_attn", "ref", "causal softmax attention (LibTorch matmul + softmax)",
                  softmax_inputs, softmax_forward, softmax_flops, softmax_bytes}};
  return entries;
}

int register_ceilings(bool multithreaded) {
  auto* gemm = benchmark::RegisterBenchmark(fmt::format("ceiling/gemm_fp32/N:{}", kGemmN).c_str(),
                                            [](benchmark::State& st) {
                                              auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
                                              auto opts = torch::TensorOptions().dtype(torch::kFloat32);
                                              auto a = at::randn({kGemmN, kGemmN}, gen, opts);
                                              auto b = at::randn({kGemmN, kGemmN}, gen, opts);
                                              auto c = torch::empty({kGemmN, kGemmN}, opts);
                                              for (auto _ : st) {
                                                torch::mm_out(c, a, b);
                                                benchmark::DoNotOptimize(c.data_ptr());
                                              }
                                              st.counters["FLOP/s"] = benchmark::Counter(
                                                  2.0 * kGemmN * kGemmN * kGemmN,
                                                  benchmark::Counter::kIsIterationInvariantRate);
                                            });
  auto* triad = benchmark::RegisterBenchmark(fmt::format("ceiling/triad/N:{}", kTriadN).c_str(),
                                             [](benchmark::State& st) {
                                               std::vector<float> a(kTriadN, 0.f), b(kTriadN, 1.f), c(kTriadN, 2.f);
                                               const float s = 0.5f;
                                               for (auto _ : st) {
                                                 float* __restrict pa = a.data();
                                                 const float* __restrict pb = b.data();
                                                 const float* __restrict pc = c.data();
                                                 for (int64_t i = 0; i < kTriadN; ++i) pa[i] = pb[i] + s * pc[i];
                                                 benchmark::ClobberMemory();
                                               }
                                               // Two arrays read, one written (write-allocate traffic not counted).
                                               st.counters["bytes/s"] = benchmark::Counter(
                                                   3.0 * sizeof(float) * kTriadN,
                                                   benchmark::Counter::kIsIterationInvariantRate);
                                             });
  for (auto* b : {gemm, triad}) {
    b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
    if (multithreaded) b->UseRealTime();
  }
  return 2;
}

nlohmann::json add_ceiling_fractions(nlohmann::json& doc) {
  const double gemm = ceiling_value(doc, "ceiling/gemm_fp32/", "FLOP/s");
  const double bw = ceiling_value(doc, "ceiling/triad/", "bytes/s");
  bool have_median = false;
  for (const auto& b : doc.value("benchmarks", nlohmann::json::array()))
    if (b.value("aggregate_name", std::string()) == "median") have_median = true;
  nlohmann::json fractions = nlohmann::json::array();
  if (!doc.contains("benchmarks")) return {};
  for (auto& b : doc["benchmarks"]) {
    const auto name = b.value("run_name", b.value("name", std::string()));
    if (name.rfind("ceiling/", 0) == 0) continue;
    const bool agg = b.value("run_type", std::string("iteration")) == "aggregate";
    const auto agg_name = b.value("aggregate_name", std::string());
    if (agg && agg_name != "mean" && agg_name != "median") continue;  // no fraction of a stddev or cv
    nlohmann::json row = {{"name", name}};
    if (gemm > 0 && b.contains("FLOP/s")) row["gemm_fraction"] = b["gemm_fraction"] = b["FLOP/s"].get<double>() / gemm;
    if (bw > 0 && b.contains("bytes/s"))
      row["bandwidth_fraction"] = b["bandwidth_fraction"] = b["bytes/s"].get<double>() / bw;
    if (row.size() > 1 && (have_median ? agg_name == "median" : !agg)) fractions.push_back(row);
  }
  return {{"gemm_flops", gemm}, {"bandwidth_bytes", bw}, {"gemm_benchmark", fmt::format("ceiling/gemm_fp32/N:{}", kGemmN)},
          {"bandwidth_benchmark", fmt::format("ceiling/triad/N:{}", kTriadN)}, {"openblas_core", openblas_core()},
          {"fractions", fractions}};
}

}  // namespace rb::bench_extra
