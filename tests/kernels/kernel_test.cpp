// Every registered kernel implementation against its recurrence's reference: outputs and all input
// gradients, at awkward shapes, after NaN/Inf checks.
#include <gtest/gtest.h>

#include "kernels/kernel.h"

namespace rb {
namespace {

// fp32, sums over up to T·K terms: differences come from summation order only.
constexpr double kAtol = 1e-4, kRtol = 1e-4;

void expect_close(const torch::Tensor& ref, const torch::Tensor& got, const std::string& what) {
  ASSERT_TRUE(torch::isfinite(got).all().item<bool>()) << what << ": non-finite values";
  ASSERT_EQ(ref.sizes(), got.sizes()) << what;
  const auto bound = kAtol + kRtol * ref.abs();
  const auto excess = ((got - ref).abs() - bound).max().item<double>();
  const double rel = ((got - ref).norm() / ref.norm().clamp_min(1e-12)).item<double>();
  EXPECT_LE(excess, 0.0) << what << ": |a-b| exceeds atol + rtol·|ref|; normalized error " << rel;
}

struct Case {
  std::string kernel;
  KernelShape shape;
};

std::vector<Case> cases() {
  const KernelShape shapes[] = {
      {2, 2, 1, 16, 16},    // T = 1
      {2, 2, 70, 16, 8},    // T not a multiple of the chunk
      {1, 3, 1000, 7, 5},   // long, odd head dims
      {3, 1, 64, 33, 17},   // exactly one chunk, odd dims
  };
  std::vector<Case> out;
  for (const auto& e : KernelRegistry::instance().entries())
    if (e.impl != "ref")
      for (const auto& s : shapes) out.push_back({e.name, s});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.kernel << " B" << c.shape.B << " H" << c.shape.H << " T" << c.shape.T << " K" << c.shape.K << " V" << c.shape.V;
}

class KernelVsReference : public testing::TestWithParam<Case> {};

TEST_P(KernelVsReference, OutputsAndGradientsMatch) {
  const auto& c = GetParam();
  const auto& fast = KernelRegistry::instance().get(c.kernel, "kernel");
  const KernelEntry* ref = KernelRegistry::instance().find(fast.recurrence + "_ref");
  ASSERT_NE(ref, nullptr) << "every recurrence needs a _ref implementation";
  auto xr = ref->make_inputs(c.shape, 1234), xf = fast.make_inputs(c.shape, 1234);
  auto yr = ref->forward(xr), yf = fast.forward(xf);
  ASSERT_TRUE(torch::isfinite(yr).all().item<bool>());
  expect_close(yr, yf, c.kernel + " output");
  auto gen = at::make_generator<at::CPUGeneratorImpl>(99);
  auto dy = at::randn(yr.sizes(), gen, yr.options());
  (yr * dy).sum().backward();
  (yf * dy).sum().backward();
  for (size_t i = 0; i < xr.size(); ++i)
    if (xr[i].requires_grad()) expect_close(xr[i].grad(), xf[i].grad(), c.kernel + " grad of input " + std::to_string(i));
}

INSTANTIATE_TEST_SUITE_P(AllKernels, KernelVsReference, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           const auto& s = info.param.shape;
                           return info.param.kernel + "_T" + std::to_string(s.T) + "_K" + std::to_string(s.K) + "_V" +
                                  std::to_string(s.V);
                         });

TEST(KernelRegistry, EveryRecurrenceHasAReference) {
  for (const auto& e : KernelRegistry::instance().entries())
    EXPECT_NE(KernelRegistry::instance().find(e.recurrence + "_ref"), nullptr) << e.name;
}

}  // namespace
}  // namespace rb
