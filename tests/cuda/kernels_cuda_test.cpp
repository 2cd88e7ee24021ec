// Tests of the CUDA kernels in kernels/cuda against plain CPU loops (double precision), torch-free.
//
// Tests whose names end in _CUDA need a GPU: they skip with "no CUDA device: ..." when cudaGetDeviceCount
// reports none (CI, the development machines). The launcher argument checks need no device and run everywhere.
// Built a second time as kernels_cuda_emulated_test (RB_CUDA_EMULATION): the same tests, on smaller shapes,
// with the kernels run on CPU fibers by cuda_emulation.h, so CI executes the kernel code without a GPU.
// Dimension letters: B batch, H heads, T time, K key dim, V value dim, C channels, W conv width.
#ifdef RB_CUDA_EMULATION
#include "tests/cuda/cuda_emulation.h"
#endif

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/cuda/naive_cuda.h"
#include "kernels/cuda/recurrent_cuda.h"
#include "kernels/cuda/short_conv_cuda.h"
#include "core/errors.h"
#include "core/rng.h"

namespace rb {
namespace {

// Empty when a CUDA device is usable, else why not.
std::string why_no_cuda_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    return std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
           ")";
  }
  if (count == 0) return "cudaGetDeviceCount reported 0 devices";
  return {};
}

#define RB_SKIP_WITHOUT_CUDA()                                                        \
  do {                                                                                \
    const std::string why = why_no_cuda_device();                                     \
    if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why << "; test skipped";  \
  } while (0)

#define RB_CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(expr)

// A device copy of a host vector (or an uninitialised device buffer); freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    // At least one element, so that empty tensors (T = 0) still have a valid pointer to pass.
    if (cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(n_, 1) * sizeof(float)) != cudaSuccess) {
      ptr_ = nullptr;
    }
    if (ptr_ != nullptr) cudaMemset(ptr_, 0xff, n_ * sizeof(float));  // NaN: unwritten outputs show up
  }
  explicit DeviceBuffer(const std::vector<float>& host) : DeviceBuffer(host.size()) {
    if (ptr_ != nullptr) cudaMemcpy(ptr_, host.data(), n_ * sizeof(float), cudaMemcpyHostToDevice);
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  float* get() const { return ptr_; }
  std::vector<float> download() const {
    std::vector<float> host(n_);
    if (n_ > 0) cudaMemcpy(host.data(), ptr_, n_ * sizeof(float), cudaMemcpyDeviceToHost);
    return host;
  }

 private:
  float* ptr_ = nullptr;
  size_t n_ = 0;
};

std::vector<float> uniform(Rng& rng, size_t n, double lo, double hi) {
  std::vector<float> x(n);
  for (auto& e : x) e = static_cast<float>(lo + (hi - lo) * rng.uniform());
  return x;
}

// Rows of length `len` scaled to unit L2 norm (the delta rule's convention for q and k).
void l2_normalize_rows(std::vector<float>& x, int len) {
  for (size_t r = 0; r < x.size() / len; ++r) {
    double ss = 0;
    for (int i = 0; i < len; ++i) ss += double(x[r * len + i]) * x[r * len + i];
    const double inv = 1.0 / std::sqrt(ss + 1e-6);
    for (int i = 0; i < len; ++i) x[r * len + i] = static_cast<float>(x[r * len + i] * inv);
  }
}

// Log-decays g for one of three regimes: "none" (g = 0), "near_one" (exp g ∈ (0.999, 1]), "mixed"
// (g = log sigmoid(u), u ∈ [-3, 5]: decays from ~0.05 to ~0.993).
std::vector<float> log_decays(Rng& rng, size_t n, const std::string& regime) {
  std::vector<float> g(n, 0.f);
  for (auto& e : g) {
    const double u = rng.uniform();
    if (regime == "near_one") e = static_cast<float>(-1e-3 * u);
    if (regime == "mixed") e = static_cast<float>(-std::log1p(std::exp(-(-3.0 + 8.0 * u))));
  }
  return g;
}

// got ≈ ref: all finite, |got − ref| ≤ atol + rtol·|ref| elementwise with atol = atol_rel·RMS(ref), and
// RMS(got − ref)/RMS(ref) ≤ rms_rel.
void expect_close(const std::vector<float>& got, const std::vector<double>& ref, double rtol, double atol_rel,
                  double rms_rel, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double ss_ref = 0, ss_diff = 0;
  for (double r : ref) ss_ref += r * r;
  const double rms_ref = std::sqrt(ss_ref / std::max<size_t>(ref.size(), 1));
  const double atol = atol_rel * rms_ref + 1e-30;
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << what << ": non-finite value " << got[i] << " at index " << i;
    const double d = double(got[i]) - ref[i];
    ss_diff += d * d;
    if (std::fabs(d) > atol + rtol * std::fabs(ref[i]) && bad++ == 0) first_bad = i;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements out of tolerance; first at "
                     << first_bad << ": got " << got[first_bad] << ", expected " << ref[first_bad];
  const double rel = std::sqrt(ss_diff / std::max<size_t>(ref.size(), 1)) / (rms_ref + 1e-30);
  EXPECT_LE(rel, rms_rel) << what << ": normalized RMS error";
}

// Tolerances for the recurrences. The kernels accumulate in fp32 over ≤ 300 tokens and ≤ 256-term dot
// products (warp-shuffle order, not sequential); expected normalized error ~1e-6. The bounds leave a 20×
// margin, while an indexing or algebra mistake gives errors of order 1.
constexpr double kRtol = 1e-4, kAtolRel = 1e-4, kRmsRel = 2e-5;

// ---- CPU references: the definitions, token by token, in double ----------------------------------------

// q, k, g {B, H, T, K}; v {B, H, T, V}; h0 {B, H, K, V} or empty → o {B, H, T, V}, ht {B, H, K, V}.
void gla_cpu(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
             const std::vector<float>& g, const std::vector<float>& h0, int B, int H, int T, int K, int V,
             std::vector<double>& o, std::vector<double>& ht) {
  o.assign(size_t(B) * H * T * V, 0.0);
  ht.assign(size_t(B) * H * K * V, 0.0);
  for (int bh = 0; bh < B * H; ++bh) {
    double* S = &ht[size_t(bh) * K * V];
    if (!h0.empty()) std::copy_n(&h0[size_t(bh) * K * V], size_t(K) * V, S);
    for (int t = 0; t < T; ++t) {
      const size_t rk = (size_t(bh) * T + t) * K, rv = (size_t(bh) * T + t) * V;
      for (int i = 0; i < K; ++i) {
        const double a = std::exp(double(g[rk + i]));
        for (int j = 0; j < V; ++j) S[i * V + j] = a * S[i * V + j] + double(k[rk + i]) * v[rv + j];
      }
      for (int j = 0; j < V; ++j) {
        double acc = 0;
        for (int i = 0; i < K; ++i) acc += S[i * V + j] * q[rk + i];
        o[rv + j] = acc;
      }
    }
  }
}

// beta {B, H, T}; g {B, H, T} or empty (no decay); rest as gla_cpu.
void delta_rule_cpu(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                    const std::vector<float>& beta, const std::vector<float>& g, const std::vector<float>& h0,
                    int B, int H, int T, int K, int V, std::vector<double>& o, std::vector<double>& ht) {
  o.assign(size_t(B) * H * T * V, 0.0);
  ht.assign(size_t(B) * H * K * V, 0.0);
  std::vector<double> pred(V);
  for (int bh = 0; bh < B * H; ++bh) {
    double* S = &ht[size_t(bh) * K * V];
    if (!h0.empty()) std::copy_n(&h0[size_t(bh) * K * V], size_t(K) * V, S);
    for (int t = 0; t < T; ++t) {
      const size_t rk = (size_t(bh) * T + t) * K, rv = (size_t(bh) * T + t) * V, rs = size_t(bh) * T + t;
      const double alpha = g.empty() ? 1.0 : std::exp(double(g[rs]));
      for (int i = 0; i < K * V; ++i) S[i] *= alpha;
      std::fill(pred.begin(), pred.end(), 0.0);  // Sᵀk after the decay
      for (int i = 0; i < K; ++i)
        for (int j = 0; j < V; ++j) pred[j] += S[i * V + j] * k[rk + i];
      for (int i = 0; i < K; ++i)
        for (int j = 0; j < V; ++j) S[i * V + j] += double(k[rk + i]) * beta[rs] * (v[rv + j] - pred[j]);
      for (int j = 0; j < V; ++j) {
        double acc = 0;
        for (int i = 0; i < K; ++i) acc += S[i * V + j] * q[rk + i];
        o[rv + j] = acc;
      }
    }
  }
}

// x {B, T, C}; weight {C, W}; bias {C} or empty → y {B, T, C}.
std::vector<double> short_conv_cpu(const std::vector<float>& x, const std::vector<float>& weight,
                                   const std::vector<float>& bias, int B, int T, int C, int W, bool silu) {
  std::vector<double> y(size_t(B) * T * C);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) {
        double acc = bias.empty() ? 0.0 : bias[c];
        for (int w = 0; w < W; ++w) {
          const int ts = t - (W - 1) + w;
          if (ts >= 0) acc += double(weight[size_t(c) * W + w]) * x[(size_t(b) * T + ts) * C + c];
        }
        y[(size_t(b) * T + t) * C + c] = silu ? acc / (1.0 + std::exp(-acc)) : acc;
      }
  return y;
}

// ---- The recurrences ----------------------------------------------------------------------------------

struct RecCase {
  int B, H, T, K, V;
  std::string decay;  // "none" | "near_one" | "mixed" (GLA has no "none": it always decays per key)
  bool state;         // pass h0 and read back ht
};

std::string rec_case_name(const testing::TestParamInfo<RecCase>& info) {
  const RecCase& c = info.param;
  return "B" + std::to_string(c.B) + "_H" + std::to_string(c.H) + "_T" + std::to_string(c.T) + "_K" +
         std::to_string(c.K) + "_V" + std::to_string(c.V) + "_" + c.decay + (c.state ? "_state" : "") + "_CUDA";
}

// Awkward shapes: T = 1, T not a multiple of the token tile, odd K and V, K at the 256 limit, V not a
// multiple of the 4 columns per block, a carried state; decays near 1 (slow forgetting, large states).
#ifdef RB_CUDA_EMULATION
// Emulated fibers are far slower than a GPU (a context switch per shuffle step): the same kinds of shape,
// smaller (several token tiles, every register-tile width, partial column tiles), so the run takes seconds.
const std::vector<RecCase> kRecCases = {
    {1, 2, 1, 16, 8, "mixed", false},     {2, 1, 70, 33, 6, "mixed", true},   {1, 1, 20, 256, 5, "near_one", true},
    {1, 1, 40, 100, 9, "near_one", true}, {1, 1, 17, 128, 5, "none", false},  {1, 1, 0, 32, 8, "mixed", true},
};
#else
const std::vector<RecCase> kRecCases = {
    {2, 3, 67, 64, 64, "mixed", false},  {1, 2, 1, 16, 8, "mixed", false},    {2, 1, 100, 33, 17, "mixed", true},
    {1, 1, 40, 256, 40, "near_one", true}, {1, 2, 300, 100, 130, "near_one", true}, {3, 1, 129, 128, 5, "none", false},
    {1, 1, 0, 32, 8, "mixed", true},
};
#endif

void PrintTo(const RecCase& c, std::ostream* os) { *os << rec_case_name({c, 0}); }

class GlaFwd : public testing::TestWithParam<RecCase> {};

TEST_P(GlaFwd, MatchesCpuLoops) {
  RB_SKIP_WITHOUT_CUDA();
  const RecCase& c = GetParam();
  Rng rng(derive_seed(7, rec_case_name({c, 0})));
  const size_t nk = size_t(c.B) * c.H * c.T * c.K, nv = size_t(c.B) * c.H * c.T * c.V;
  const size_t ns = size_t(c.B) * c.H * c.K * c.V;
  const double sk = std::sqrt(3.0 / c.K);  // unit-norm rows on average
  const auto q = uniform(rng, nk, -sk, sk), k = uniform(rng, nk, -sk, sk), v = uniform(rng, nv, -1, 1);
  const auto g = log_decays(rng, nk, c.decay);
  const auto h0 = c.state ? uniform(rng, ns, -1, 1) : std::vector<float>{};
  std::vector<double> o_ref, ht_ref;
  gla_cpu(q, k, v, g, h0, c.B, c.H, c.T, c.K, c.V, o_ref, ht_ref);

  DeviceBuffer dq(q), dk(k), dv(v), dg(g), dh0(h0), do_(nv), dht(ns);
  ASSERT_NE(dht.get(), nullptr);
  gla_fwd_cuda(dq.get(), dk.get(), dv.get(), dg.get(), do_.get(), c.state ? dh0.get() : nullptr, dht.get(), c.B,
               c.H, c.T, c.K, c.V);
  RB_CUDA_OK(cudaDeviceSynchronize());
  expect_close(do_.download(), o_ref, kRtol, kAtolRel, kRmsRel, "o");
  expect_close(dht.download(), ht_ref, kRtol, kAtolRel, kRmsRel, "final state");
}

INSTANTIATE_TEST_SUITE_P(Shapes, GlaFwd,
                         testing::ValuesIn([] {
                           std::vector<RecCase> cases;
                           for (auto c : kRecCases) {
                             if (c.decay == "none") c.decay = "mixed";
                             cases.push_back(c);
                           }
                           return cases;
                         }()),
                         rec_case_name);

class DeltaRuleFwd : public testing::TestWithParam<RecCase> {};

TEST_P(DeltaRuleFwd, MatchesCpuLoops) {
  RB_SKIP_WITHOUT_CUDA();
  const RecCase& c = GetParam();
  Rng rng(derive_seed(11, rec_case_name({c, 0})));
  const size_t nk = size_t(c.B) * c.H * c.T * c.K, nv = size_t(c.B) * c.H * c.T * c.V;
  const size_t ns = size_t(c.B) * c.H * c.K * c.V, nt = size_t(c.B) * c.H * c.T;
  auto q = uniform(rng, nk, -1, 1), k = uniform(rng, nk, -1, 1);
  l2_normalize_rows(q, c.K);
  l2_normalize_rows(k, c.K);
  const auto v = uniform(rng, nv, -1, 1), beta = uniform(rng, nt, 0.05, 0.95);
  const auto g = c.decay == "none" ? std::vector<float>{} : log_decays(rng, nt, c.decay);
  const auto h0 = c.state ? uniform(rng, ns, -1, 1) : std::vector<float>{};
  std::vector<double> o_ref, ht_ref;
  delta_rule_cpu(q, k, v, beta, g, h0, c.B, c.H, c.T, c.K, c.V, o_ref, ht_ref);

  DeviceBuffer dq(q), dk(k), dv(v), db(beta), dg(g), dh0(h0), do_(nv), dht(ns);
  ASSERT_NE(dht.get(), nullptr);
  delta_rule_fwd_cuda(dq.get(), dk.get(), dv.get(), db.get(), g.empty() ? nullptr : dg.get(), do_.get(),
                      c.state ? dh0.get() : nullptr, dht.get(), c.B, c.H, c.T, c.K, c.V);
  RB_CUDA_OK(cudaDeviceSynchronize());
  expect_close(do_.download(), o_ref, kRtol, kAtolRel, kRmsRel, "o");
  expect_close(dht.download(), ht_ref, kRtol, kAtolRel, kRmsRel, "final state");
}

INSTANTIATE_TEST_SUITE_P(Shapes, DeltaRuleFwd, testing::ValuesIn(kRecCases), rec_case_name);

// The naive baselines are checked too (the benchmarks quote ratios to them), and the fused kernels give
// bitwise identical results on a second launch (no atomics, fixed reduction order).
TEST(CudaKernels, NaiveBaselinesMatchAndFusedIsDeterministic_CUDA) {
  RB_SKIP_WITHOUT_CUDA();
#ifdef RB_CUDA_EMULATION
  const int B = 1, H = 2, T = 40, K = 48, V = 6;
#else
  const int B = 2, H = 2, T = 150, K = 48, V = 24;
#endif
  Rng rng(23);
  const size_t nk = size_t(B) * H * T * K, nv = size_t(B) * H * T * V, nt = size_t(B) * H * T;
  auto q = uniform(rng, nk, -1, 1), k = uniform(rng, nk, -1, 1);
  l2_normalize_rows(q, K);
  l2_normalize_rows(k, K);
  const auto v = uniform(rng, nv, -1, 1), beta = uniform(rng, nt, 0.05, 0.95);
  const auto g_key = log_decays(rng, nk, "mixed"), g_head = log_decays(rng, nt, "mixed");
  std::vector<double> o_gla, o_delta, unused;
  gla_cpu(q, k, v, g_key, {}, B, H, T, K, V, o_gla, unused);
  delta_rule_cpu(q, k, v, beta, g_head, {}, B, H, T, K, V, o_delta, unused);

  DeviceBuffer dq(q), dk(k), dv(v), db(beta), dgk(g_key), dgh(g_head), o1(nv), o2(nv);
  ASSERT_NE(o2.get(), nullptr);
  gla_fwd_cuda_naive(dq.get(), dk.get(), dv.get(), dgk.get(), o1.get(), B, H, T, K, V);
  RB_CUDA_OK(cudaDeviceSynchronize());
  expect_close(o1.download(), o_gla, kRtol, kAtolRel, kRmsRel, "gla naive");
  delta_rule_fwd_cuda_naive(dq.get(), dk.get(), dv.get(), db.get(), dgh.get(), o1.get(), B, H, T, K, V);
  RB_CUDA_OK(cudaDeviceSynchronize());
  expect_close(o1.download(), o_delta, kRtol, kAtolRel, kRmsRel, "delta rule naive");

  for (int kernel = 0; kernel < 2; ++kernel) {
    std::vector<float> runs[2];
    for (auto& run : runs) {
      if (kernel == 0) {
        gla_fwd_cuda(dq.get(), dk.get(), dv.get(), dgk.get(), o2.get(), nullptr, nullptr, B, H, T, K, V);
      } else {
        delta_rule_fwd_cuda(dq.get(), dk.get(), dv.get(), db.get(), dgh.get(), o2.get(), nullptr, nullptr, B, H,
                            T, K, V);
      }
      RB_CUDA_OK(cudaDeviceSynchronize());
      run = o2.download();
    }
    EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), nv * sizeof(float)), 0)
        << (kernel == 0 ? "gla" : "delta rule") << ": two launches differ";
  }
}

// ---- The short convolution ----------------------------------------------------------------------------

struct ConvCase {
  int B, T, C, W;
  bool bias, silu;
};

std::string conv_case_name(const testing::TestParamInfo<ConvCase>& info) {
  const ConvCase& c = info.param;
  return "B" + std::to_string(c.B) + "_T" + std::to_string(c.T) + "_C" + std::to_string(c.C) + "_W" +
         std::to_string(c.W) + (c.bias ? "_bias" : "") + (c.silu ? "_silu" : "") + "_CUDA";
}

void PrintTo(const ConvCase& c, std::ostream* os) { *os << conv_case_name({c, 0}); }

class ShortConvFwd : public testing::TestWithParam<ConvCase> {};

TEST_P(ShortConvFwd, MatchesCpuLoops) {
  RB_SKIP_WITHOUT_CUDA();
  const ConvCase& c = GetParam();
  Rng rng(derive_seed(13, conv_case_name({c, 0})));
  const size_t n = size_t(c.B) * c.T * c.C;
  const auto x = uniform(rng, n, -2, 2), weight = uniform(rng, size_t(c.C) * c.W, -1, 1);
  const auto bias = c.bias ? uniform(rng, c.C, -0.5, 0.5) : std::vector<float>{};
  const auto ref = short_conv_cpu(x, weight, bias, c.B, c.T, c.C, c.W, c.silu);

  DeviceBuffer dx(x), dw(weight), db(bias), dy(n), dy_naive(n);
  ASSERT_NE(dy_naive.get(), nullptr);
  short_conv_fwd_cuda(dx.get(), dw.get(), c.bias ? db.get() : nullptr, dy.get(), c.B, c.T, c.C, c.W, c.silu);
  short_conv_fwd_cuda_naive(dx.get(), dw.get(), c.bias ? db.get() : nullptr, dy_naive.get(), c.B, c.T, c.C, c.W,
                            c.silu);
  RB_CUDA_OK(cudaDeviceSynchronize());
  // ≤ 9 fp32 terms per output: expected relative error ~1e-7; bounds 10× above that, far below a wrong tap.
  expect_close(dy.download(), ref, 1e-5, 1e-6, 2e-6, "y");
  expect_close(dy_naive.download(), ref, 1e-5, 1e-6, 2e-6, "y (naive)");
}

// T = 1; T crossing the 64-step runs; C crossing the 128-channel blocks; widths 1, 3, 4, 8.
INSTANTIATE_TEST_SUITE_P(Shapes, ShortConvFwd,
                         testing::Values(ConvCase{2, 50, 7, 4, true, true}, ConvCase{1, 1, 1, 1, false, false},
#ifndef RB_CUDA_EMULATION
                                         ConvCase{3, 200, 300, 4, true, true},
#endif
                                         ConvCase{2, 65, 129, 3, false, true}, ConvCase{1, 130, 64, 8, true, false}),
                         conv_case_name);

// ---- Argument checks: no device needed ----------------------------------------------------------------

// Launchers validate before touching the device, so these never dereference the (fake) pointers.
float* fake_ptr() { return reinterpret_cast<float*>(uintptr_t{256}); }

template <typename F>
std::string usage_error_of(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError thrown)";
}

TEST(CudaLaunchers, RejectBadArgumentsWithGotExpected) {
  float* p = fake_ptr();
  EXPECT_EQ(usage_error_of([&] { gla_fwd_cuda(p, p, p, p, p, nullptr, nullptr, 1, 1, 8, 257, 8); }),
            "gla_fwd_cuda: got K = 257, expected 1 <= K <= 256");
  EXPECT_EQ(usage_error_of([&] { gla_fwd_cuda(p, p, p, nullptr, p, nullptr, nullptr, 1, 1, 8, 16, 8); }),
            "gla_fwd_cuda: got g = nullptr, expected a device pointer");
  EXPECT_EQ(usage_error_of([&] { delta_rule_fwd_cuda(p, p, p, p, nullptr, p, nullptr, nullptr, 0, 1, 8, 16, 8); }),
            "delta_rule_fwd_cuda: got B = 0, expected 1 <= B <= 2147483647");
  EXPECT_EQ(usage_error_of([&] { delta_rule_fwd_cuda(p, p, p, nullptr, p, p, nullptr, nullptr, 1, 1, 8, 16, 8); }),
            "delta_rule_fwd_cuda: got beta = nullptr, expected a device pointer");
  EXPECT_EQ(usage_error_of([&] { delta_rule_fwd_cuda(p, p, p, p, p, p, nullptr, nullptr, 1, 1, -1, 16, 8); }),
            "delta_rule_fwd_cuda: got T = -1, expected 0 <= T <= 2147483647");
  EXPECT_EQ(usage_error_of([&] { short_conv_fwd_cuda(p, p, nullptr, p, 1, 8, 4, 9, true); }),
            "short_conv_fwd_cuda: got W = 9, expected 1 <= W <= 8");
  EXPECT_EQ(usage_error_of([&] { short_conv_fwd_cuda(p, nullptr, nullptr, p, 1, 8, 4, 4, true); }),
            "short_conv_fwd_cuda: got weight = nullptr, expected a device pointer");
  EXPECT_EQ(usage_error_of([&] { gla_fwd_cuda_naive(p, p, p, p, p, 1, 1, 8, 0, 8); }),
            "gla_fwd_cuda_naive: got K = 0, expected 1 <= K <= 256");
  EXPECT_EQ(usage_error_of([&] { short_conv_fwd_cuda_naive(p, p, nullptr, p, 1, 0, 4, 4, false); }),
            "short_conv_fwd_cuda_naive: got T = 0, expected 1 <= T <= 2147483647");
}

#ifndef RB_CUDA_EMULATION
// Without a device a launch must fail loudly (an exception naming the launcher), never silently do nothing.
TEST(CudaLaunchers, LaunchWithoutDeviceThrows) {
  if (why_no_cuda_device().empty()) GTEST_SKIP() << "a CUDA device exists: this checks the no-device path";
  float* p = fake_ptr();
  try {
    gla_fwd_cuda(p, p, p, p, p, nullptr, nullptr, 1, 1, 8, 16, 8);
    FAIL() << "gla_fwd_cuda launched without a device and did not throw";
  } catch (const UsageError& e) {
    FAIL() << "unexpected UsageError: " << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("gla_fwd_cuda: kernel launch failed"), std::string::npos) << e.what();
  }
}
#endif

}  // namespace
}  // namespace rb
