// Every registered kernel implementation against its recurrence's reference: outputs and all input
// gradients, at awkward shapes and extreme decays, after NaN/Inf checks. Plus the delta rule's 1e-4
// agreement at T = 512, thread-count independence of the fused kernels, and the dispatchers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "kernels/bench_api.h"
#include "kernels/delta_rule/delta_rule.h"
#include "kernels/gla/gla.h"
#include "kernels/kernel.h"
#include "kernels/linear_attn/linear_attn.h"
#include "kernels/short_conv/short_conv.h"
#include "kernels/ssd/ssd.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb {
namespace {

// fp32, sums over up to T·K terms: differences come from summation order only.
constexpr double kAtol = 1e-4, kRtol = 1e-4;

double normalized_error(const torch::Tensor& ref, const torch::Tensor& got) {
  return ((got - ref).norm() / ref.norm().clamp_min(1e-12)).item<double>();
}

void expect_close(const torch::Tensor& ref, const torch::Tensor& got, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what << ": undefined";
  ASSERT_TRUE(torch::isfinite(got).all().item<bool>()) << what << ": non-finite values";
  ASSERT_EQ(ref.sizes(), got.sizes()) << what;
  const auto bound = kAtol + kRtol * ref.abs();
  const auto excess = ((got - ref).abs() - bound).max().item<double>();
  EXPECT_LE(excess, 0.0) << what << ": |a-b| exceeds atol + rtol·|ref|; normalized error "
                         << normalized_error(ref, got);
}

struct Case {
  std::string kernel;
  KernelShape shape;
};

std::vector<Case> cases() {
  const KernelShape shapes[] = {
      {2, 2, 1, 16, 16},    // T = 1
      {2, 2, 70, 16, 8},    // T not a multiple of the chunk (16 or 64) nor of the fused checkpoint (64)
      {1, 3, 1000, 7, 5},   // long, odd head dims
      {3, 1, 64, 33, 17},   // exactly one chunk, odd dims
      {1, 2, 80, 64, 32},   // the fused kernels' register-blocked paths: 64 keys (4 blocks), 32 values (2)
      {1, 1, 40, 128, 128}, // 8 blocks each way
  };
  // Extreme decays, for recurrences that have one: exp(g) ≈ 1 (g = 0.01·logsigmoid(N(0,1))) over a long
  // sequence, and exp(g) ≈ 0 (g = 30·logsigmoid(N(0,1)), typically e^-20) across checkpoint boundaries.
  const KernelShape decay_shapes[] = {
      {2, 2, 300, 16, 12, 0.01},  // decay near 1
      {2, 2, 130, 16, 12, 30.0},  // decay near 0
  };
#ifdef RB_CUDA_EMULATION
  // The CUDA backend on emulated fibers (tests/cuda): the same kinds of shape, short enough to take seconds.
  const KernelShape emulated_shapes[] = {{2, 2, 1, 16, 16}, {2, 2, 70, 16, 8}, {3, 1, 64, 33, 17},
                                         {2, 2, 40, 16, 12, 0.01}, {2, 2, 40, 16, 12, 30.0}};
#endif
  std::vector<Case> out;
  for (const auto& e : KernelRegistry::instance().entries()) {
    if (e.impl == "ref") continue;
#ifdef RB_CUDA_EMULATION
    if (e.backend == "cuda") {
      for (const auto& s : emulated_shapes)
        if (e.decay || s.gate_scale == 1.0) out.push_back({e.name, s});
      continue;
    }
#endif
    for (const auto& s : shapes) out.push_back({e.name, s});
    if (e.decay)
      for (const auto& s : decay_shapes) out.push_back({e.name, s});
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.kernel << " B" << c.shape.B << " H" << c.shape.H << " T" << c.shape.T << " K" << c.shape.K << " V"
      << c.shape.V << " gate_scale " << c.shape.gate_scale;
}

class KernelVsReference : public testing::TestWithParam<Case> {};

TEST_P(KernelVsReference, OutputsAndGradientsMatch) {
  const auto& c = GetParam();
  const auto& fast = KernelRegistry::instance().get(c.kernel, "kernel");
  if (fast.unavailable) {
    const std::string why = fast.unavailable();
    if (!why.empty()) GTEST_SKIP() << c.kernel << " (" << fast.backend << " backend) cannot run here: " << why;
  }
  const KernelEntry* ref = KernelRegistry::instance().find(fast.recurrence + "_ref");
  ASSERT_NE(ref, nullptr) << "every recurrence needs a _ref implementation";
  auto xr = ref->make_inputs(c.shape, 1234), xf = fast.make_inputs(c.shape, 1234);
  auto yr = ref->forward(xr), yf = fast.forward(xf);
  ASSERT_TRUE(torch::isfinite(yr).all().item<bool>());
  expect_close(yr, yf, c.kernel + " output");
  if (!fast.differentiable) return;  // forward-only backend (CUDA): outputs only
  auto gen = at::make_generator<at::CPUGeneratorImpl>(99);
  auto dy = at::randn(yr.sizes(), gen, yr.options());
  (yr * dy).sum().backward();
  (yf * dy).sum().backward();
  for (size_t i = 0; i < xr.size(); ++i)
    if (xr[i].requires_grad()) expect_close(xr[i].grad(), xf[i].grad(), c.kernel + " grad of input " + std::to_string(i));
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const auto& s = info.param.shape;
  std::string name = info.param.kernel + "_T" + std::to_string(s.T) + "_K" + std::to_string(s.K) + "_V" +
                     std::to_string(s.V);
  if (s.gate_scale < 1) name += "_decay_near_1";
  if (s.gate_scale > 1) name += "_decay_near_0";
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelVsReference, testing::ValuesIn(cases()), case_name);

TEST(KernelRegistry, EveryRecurrenceHasAReference) {
  for (const auto& e : KernelRegistry::instance().entries())
    EXPECT_NE(KernelRegistry::instance().find(e.recurrence + "_ref"), nullptr) << e.name;
}

TEST(KernelRegistry, EveryRecurrenceHasAFusedKernel) {
  for (const auto& e : KernelRegistry::instance().entries())
    EXPECT_NE(KernelRegistry::instance().find(e.recurrence + "_fused"), nullptr) << e.name;
}

// Acceptance (issue 8): the chunked (WY) and fused forms of the rank-1 recurrence agree with the
// token-by-token recurrence to 1e-4 relative error in fp32 at T = 512 (cells' head size K = V = 64),
// outputs and every input gradient, with and without decay.
TEST(DeltaRule, ChunkedAndFusedAgreeWithRecurrenceAtT512) {
  for (const char* rec : {"delta_rule", "gated_delta_rule"}) {
    const KernelShape s{1, 2, 512, 64, 64};
    const auto& reg = KernelRegistry::instance();
    const auto& ref = reg.get(std::string(rec) + "_ref", "kernel");
    auto xr = ref.make_inputs(s, 7);
    auto yr = ref.forward(xr);
    auto dy = at::randn(yr.sizes(), at::make_generator<at::CPUGeneratorImpl>(8), yr.options());
    (yr * dy).sum().backward();
    for (const char* impl : {"_chunked", "_fused"}) {
      const auto& fast = reg.get(std::string(rec) + impl, "kernel");
      auto xf = fast.make_inputs(s, 7);
      auto yf = fast.forward(xf);
      (yf * dy).sum().backward();
      const double err = normalized_error(yr, yf);
      EXPECT_LE(err, 1e-4) << fast.name << " output";
      std::ostringstream errors;
      errors << std::scientific << std::setprecision(2) << "output " << err;
      for (size_t i = 0; i < xr.size(); ++i) {
        const double gerr = normalized_error(xr[i].grad(), xf[i].grad());
        EXPECT_LE(gerr, 1e-4) << fast.name << " grad of input " << i;
        errors << ", grad" << i << " " << gerr;
      }
      RecordProperty(fast.name + "_rel_errors", errors.str());
    }
  }
}

// The fused kernels give bit-identical results whatever the thread count (fixed partition over B×H or
// channels, fixed summation order).
TEST(FusedKernels, ResultsDoNotDependOnThreadCount) {
  const int before = at::get_num_threads();
  for (const auto& e : KernelRegistry::instance().entries()) {
    if (e.impl != "fused") continue;
    const KernelShape s{2, 3, 90, 16, 16};
    std::vector<torch::Tensor> y, g;
    for (int threads : {1, 2}) {
      at::set_num_threads(threads);
      auto x = e.make_inputs(s, 5);
      auto out = e.forward(x);
      out.sum().backward();
      y.push_back(out.detach());
      g.push_back(x[0].grad());
    }
    EXPECT_TRUE(torch::equal(y[0], y[1])) << e.name;
    EXPECT_TRUE(torch::equal(g[0], g[1])) << e.name;
  }
  at::set_num_threads(before);
}

TEST(Dispatchers, EveryImplAgreesAndBadNamesAreUsageErrors) {
  const KernelShape s{1, 2, 40, 8, 8};
  auto x = KernelRegistry::instance().get("gated_delta_rule_ref", "kernel").make_inputs(s, 3);
  auto gk = KernelRegistry::instance().get("gla_ref", "kernel").make_inputs(s, 3)[3];
  torch::NoGradGuard no_grad;
  const auto ref_dr = delta_rule(x[0], x[1], x[2], x[3], x[4], "ref");
  const auto ref_gla = gla(x[0], x[1], x[2], gk, "ref");
  const auto ref_ssd = ssd(x[0], x[1], x[2], x[4], "ref");
  const auto ref_la = linear_attn(x[0], x[1], x[2], "ref");
  for (const char* impl : {"auto", "chunked", "fused"}) {
    expect_close(ref_dr, delta_rule(x[0], x[1], x[2], x[3], x[4], impl), std::string("delta_rule ") + impl);
    expect_close(ref_gla, gla(x[0], x[1], x[2], gk, impl), std::string("gla ") + impl);
    expect_close(ref_ssd, ssd(x[0], x[1], x[2], x[4], impl), std::string("ssd ") + impl);
    expect_close(ref_la, linear_attn(x[0], x[1], x[2], impl), std::string("linear_attn ") + impl);
  }
  EXPECT_THROW(gla(x[0], x[1], x[2], gk, "fast"), UsageError);
  EXPECT_THROW(delta_rule(x[0], x[1], x[2], x[3], x[4], "Fused"), UsageError);
  auto cx = torch::randn({2, 10, 6}), cw = torch::randn({6, 4}), cb = torch::randn({6});
  expect_close(short_conv(cx, cw, cb, true, "ref"), short_conv(cx, cw, cb, true, "auto"), "short_conv auto");
  EXPECT_THROW(short_conv(cx, cw, cb, true, ""), UsageError);
}

// impl "cuda" through every dispatcher: the registered CUDA entries where a device (or the emulation) runs them,
// equal to "ref" and refusing gradients (forward only); elsewhere a UsageError saying what is missing.
TEST(Dispatchers, CudaImplRunsOrSaysWhyNot) {
  const KernelShape s{1, 2, 12, 8, 8};
  auto x = KernelRegistry::instance().get("gated_delta_rule_ref", "kernel").make_inputs(s, 3);
  auto gk = KernelRegistry::instance().get("gla_ref", "kernel").make_inputs(s, 3)[3];
  auto cx = torch::randn({2, 10, 6}), cw = torch::randn({6, 4}), cb = torch::randn({6});
  const KernelEntry* e = KernelRegistry::instance().find("gla_cuda");
  const std::string why = e && e->unavailable ? e->unavailable() : "";
  if (e == nullptr || !why.empty()) {
    try {
      gla(x[0], x[1], x[2], gk, "cuda");
      FAIL() << "expected a UsageError";
    } catch (const UsageError& err) {
      EXPECT_NE(std::string(err.what()).find(e ? "cannot run here" : "this build has no gla_cuda"), std::string::npos)
          << err.what();
    }
    return;
  }
  EXPECT_THROW(gla(x[0], x[1], x[2], gk, "cuda"), UsageError);  // the inputs require gradients
  torch::NoGradGuard no_grad;
  expect_close(delta_rule(x[0], x[1], x[2], x[3], x[4], "ref"), delta_rule(x[0], x[1], x[2], x[3], x[4], "cuda"),
               "gated delta_rule cuda");
  expect_close(delta_rule(x[0], x[1], x[2], x[3], {}, "ref"), delta_rule(x[0], x[1], x[2], x[3], {}, "cuda"),
               "delta_rule cuda");
  expect_close(gla(x[0], x[1], x[2], gk, "ref"), gla(x[0], x[1], x[2], gk, "cuda"), "gla cuda");
  expect_close(ssd(x[0], x[1], x[2], x[4], "ref"), ssd(x[0], x[1], x[2], x[4], "cuda"), "ssd cuda");
  expect_close(linear_attn(x[0], x[1], x[2], "ref"), linear_attn(x[0], x[1], x[2], "cuda"), "linear_attn cuda");
  expect_close(short_conv(cx, cw, cb, true, "ref"), short_conv(cx, cw, cb, true, "cuda"), "short_conv cuda");
  EXPECT_THROW(short_conv(cx, cw, cb, false, "cuda"), UsageError);
}

TEST(Dispatchers, ShapeErrorsSayWhatWasExpected) {
  auto q = torch::randn({1, 2, 5, 4}), v = torch::randn({1, 2, 5, 3});
  try {
    gla(q, q, v, torch::zeros({1, 2, 5}), "fused");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("expected [1, 2, 5, 4]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(delta_rule(q, q, v, torch::zeros({1, 2, 4}), {}, "fused"), UsageError);
  EXPECT_THROW(ssd(q, q, v.to(torch::kFloat64), torch::zeros({1, 2, 5}), "ref"), UsageError);
}

// The bench harness end to end on its cheapest benchmark: Google Benchmark JSON, our context, and the
// `_ref` run alongside (the filter names only the fused kernel).
TEST(KernelBench, WritesGoogleBenchmarkJsonWithContextAndSpeedups) {
  const auto out = std::filesystem::temp_directory_path() / ("rb_kernel_bench_" + std::to_string(::getpid()) + ".json");
  KernelBenchOptions o;
  o.filter = "^short_conv_fused/fwd/B:8/H:2/T:64/";
  o.min_time = 0.01;
  o.out = out.string();
  o.context = {{"git_commit", "test"}, {"threads", 1}};
  o.ceilings = false;  // the kernels alone (the ceilings add two rows)
  EXPECT_EQ(run_kernel_bench(o), 2);
  const auto doc = read_json_file(out);
  std::filesystem::remove(out);
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  EXPECT_EQ(doc["context"]["recallbench.git_commit"], "test");
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_GT(b["tokens/s"].get<double>(), 0.0) << b.dump();
    EXPECT_GT(b["FLOP/s"].get<double>(), 0.0) << b.dump();
  }
  ASSERT_EQ(doc["recallbench"]["speedups"].size(), 1u);
  const auto& sp = doc["recallbench"]["speedups"][0];
  EXPECT_EQ(sp["kernel"], "short_conv_fused");
  EXPECT_EQ(sp["ref"], "short_conv_ref");
  EXPECT_EQ(sp["shape"], "B:8/H:2/T:64/K:64/V:64");
  EXPECT_GT(sp["speedup"].get<double>(), 0.0);

  o.filter = "no_such_kernel";
  EXPECT_THROW(run_kernel_bench(o), UsageError);
  o.filter = "([";
  EXPECT_THROW(run_kernel_bench(o), UsageError);
}

}  // namespace
}  // namespace rb
