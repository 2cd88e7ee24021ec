// Cells, every registered one: shapes, causality, gradients, the token-by-token step path against the
// sequence forward, the reported state size against the tensors the step path actually carries, budget
// sizing, option errors.
#include <gtest/gtest.h>

#include <cctype>

#include <set>

#include "cells/catalog.h"
#include "cells/cell.h"
#include "core/errors.h"

namespace rb {
namespace {

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& c : n)  // GoogleTest names take letters, digits and '_': "rank1+conv" → rank1_conv, "my-cell" → my_cell
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

// Cells whose state does not depend on the sequence length (all but `attention`).
bool fixed_state(const std::string& name) { return name != "attention"; }

class EveryCell : public testing::TestWithParam<std::string> {};

TEST_P(EveryCell, ShapeCausalityAndGradients) {
  torch::manual_seed(0);
  CellConfig cfg;
  cfg.d_model = 32;
  cfg.max_length = 24;
  auto cell = make_cell(GetParam(), cfg);
  auto x = torch::randn({2, 24, 32}, torch::requires_grad());
  auto y = cell->forward(x);
  ASSERT_EQ(y.sizes(), x.sizes());
  ASSERT_TRUE(torch::isfinite(y).all().item<bool>());
  // Changing the future must not change the past.
  auto x2 = x.detach().clone();
  x2.narrow(1, 12, 12).normal_();
  auto y2 = cell->forward(x2);
  EXPECT_TRUE(torch::allclose(y.narrow(1, 0, 12), y2.narrow(1, 0, 12), 1e-5, 1e-6)) << GetParam();
  // Every parameter takes part (a gradient that is defined and finite) and the input gets one.
  y.pow(2).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(torch::isfinite(x.grad()).all().item<bool>());
  for (const auto& p : cell->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << GetParam() << ": no gradient for " << p.key();
    EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << GetParam() << ": " << p.key();
  }
}

// The step path (one token at a time, explicit carried state) computes what forward computes, and the
// state it carries holds exactly state_size() numbers per sequence, before and after the sequence.
// Run at the sizes batteries use (width 64, budget 4096) and at a small odd configuration.
void check_step_path(const std::string& name, const CellConfig& cfg, int64_t T) {
  SCOPED_TRACE(name + " at d_model " + std::to_string(cfg.d_model) + ", budget " +
               std::to_string(cfg.state_budget));
  torch::manual_seed(1);
  torch::NoGradGuard no_grad;
  auto cell = make_cell(name, cfg);
  const int64_t B = 3;
  auto x = torch::randn({B, T, cfg.d_model});
  auto y = cell->forward(x);
  CellState state = cell->initial_state(B);
  EXPECT_EQ(state.numbers_per_sequence(), cell->state_size());
  std::vector<int64_t> numel_before;
  for (const auto& t : state.tensors) numel_before.push_back(t.numel());
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < T; ++t) steps.push_back(cell->step(x.select(1, t), state));
  auto y_step = torch::stack(steps, 1);
  // Tolerance: fp32, the chunked/fused kernels sum in a different order than the token loop.
  const double err = (y_step - y).abs().max().item<double>(), scale = y.abs().max().item<double>();
  EXPECT_LE(err, 2e-4 * std::max(1.0, scale)) << "step path differs from forward by " << err;
  EXPECT_EQ(state.position, T);
  ASSERT_EQ(state.tensors.size(), numel_before.size());
  for (size_t i = 0; i < state.tensors.size(); ++i) EXPECT_EQ(state.tensors[i].numel(), numel_before[i]);
  EXPECT_EQ(state.numbers_per_sequence(), cell->state_size());
}

TEST_P(EveryCell, StepPathMatchesForwardAndCarriesTheReportedState) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.state_budget = 4096;
  cfg.max_length = 40;
  check_step_path(GetParam(), cfg, 40);
  cfg.d_model = 24;
  cfg.state_budget = 0;
  cfg.max_length = 13;
  for (const char* impl : {"auto", "ref", "chunked", "fused"}) {  // every kernel implementation a cell can train on
    cfg.impl = impl;
    SCOPED_TRACE(std::string("impl ") + impl);
    check_step_path(GetParam(), cfg, 13);
  }
}

TEST_P(EveryCell, SizesItselfToTheBudget) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.max_length = 256;
  for (int64_t budget : {4096, 16384}) {
    cfg.state_budget = budget;
    auto cell = make_cell(GetParam(), cfg);
    if (fixed_state(GetParam())) {
      EXPECT_NEAR(static_cast<double>(cell->state_size()), budget, 0.1 * budget) << GetParam();
    } else {  // attention: the KV cache at max_length, whatever the budget
      EXPECT_EQ(cell->state_size(), 2 * 64 * 256);
    }
  }
}

TEST_P(EveryCell, RejectsUnknownOptionsAndImpl) {
  CellConfig cfg;
  cfg.max_length = 16;
  cfg.options = {{"colour", 1}};
  EXPECT_THROW(make_cell(GetParam(), cfg), UsageError);
  cfg.options = nlohmann::json::object();
  cfg.impl = "warp";
  EXPECT_THROW(make_cell(GetParam(), cfg), UsageError);
}

INSTANTIATE_TEST_SUITE_P(AllCells, EveryCell, testing::ValuesIn(CellRegistry::instance().names()), test_name);

TEST(CellRegistry, HoldsEveryCellTheScienceNeeds) {
  std::set<std::string> names;
  for (const auto& n : CellRegistry::instance().names()) names.insert(n);
  for (const char* n : {"diag", "diag+conv", "diag+decay", "diag+decay+conv", "rank1", "rank1+conv", "rank1+decay",
                        "rank1+decay+conv", "mamba2", "attention", "swa", "baseconv"})
    EXPECT_EQ(names.count(n), 1u) << n;
}

TEST(CellCatalog, ListsEveryCellWithStateAndParameters) {
  const auto cells = cell_catalog(64, 4096, 128);
  ASSERT_EQ(cells.size(), CellRegistry::instance().names().size());
  for (const auto& c : cells) {
    EXPECT_GT(c.state_size, 0) << c.name;
    EXPECT_GT(c.parameters, 0) << c.name;
    EXPECT_FALSE(c.description.empty()) << c.name;
  }
}

TEST(DiagCell, StateSizeCountsStateAndConvBuffer) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.options = {{"heads", 2}, {"key_dim", 16}, {"value_dim", 8}};
  EXPECT_EQ(make_cell("diag", cfg)->state_size(), 2 * 16 * 8);
  // Conv on q, k, v: (W-1) = 3 past inputs for each of H·(2K+V) channels.
  EXPECT_EQ(make_cell("diag+conv", cfg)->state_size(), 2 * 16 * 8 + 3 * 2 * (2 * 16 + 8));
  EXPECT_EQ(make_cell("rank1+decay+conv", cfg)->state_size(), 2 * 16 * 8 + 3 * 2 * (2 * 16 + 8));
}

TEST(OtherCells, StateSizeFormulas) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.max_length = 100;
  // Mamba-2: E = 2·64 = 128, P = 32 → H = 4; H·N·P + 3·(E + 2N).
  cfg.options = {{"d_state", 8}};
  EXPECT_EQ(make_cell("mamba2", cfg)->state_size(), 4 * 8 * 32 + 3 * (128 + 16));
  // Attention: keys and values of every position up to max_length.
  cfg.options = {{"heads", 2}, {"head_dim", 16}};
  EXPECT_EQ(make_cell("attention", cfg)->state_size(), 2 * 2 * 16 * 100);
  cfg.options = {{"heads", 2}, {"head_dim", 16}, {"window", 5}};
  EXPECT_EQ(make_cell("swa", cfg)->state_size(), 2 * 2 * 16 * 5);
  // BaseConv: the last W−1 inputs of each of the D channels.
  cfg.options = {{"kernel_size", 7}};
  EXPECT_EQ(make_cell("baseconv", cfg)->state_size(), 64 * 6);
}

TEST(SwaCell, SeesExactlyItsWindow) {
  // With window w, output t depends on inputs t−w..t and on nothing earlier. T = 12 takes the full
  // masked path, T = 90 the banded one (blocks of 32 queries).
  torch::manual_seed(2);
  torch::NoGradGuard no_grad;
  CellConfig cfg;
  cfg.d_model = 16;
  cfg.options = {{"window", 3}};
  auto cell = make_cell("swa", cfg);
  for (int64_t T : {12, 90}) {
    for (int64_t changed : {4, 31, 62}) {
      if (changed >= T) continue;
      auto x = torch::randn({1, T, 16});
      auto x2 = x.clone();
      x2.select(1, changed).normal_();
      auto d = (cell->forward(x) - cell->forward(x2)).abs().amax({0, 2});  // {T}
      for (int64_t t = 0; t < T; ++t) {
        if (t >= changed && t <= changed + 3)
          EXPECT_GT(d[t].item<double>(), 1e-6) << "T " << T << ", changed " << changed << ", t " << t;
        else
          EXPECT_EQ(d[t].item<double>(), 0.0) << "T " << T << ", changed " << changed << ", t " << t;
      }
    }
  }
}

TEST(SwaCell, BandedFormMatchesTheStepPath) {
  // Long enough for the banded form (2·max(window, 32) < T), with T not a multiple of the block.
  for (int64_t window : {5, 40}) {
    CellConfig cfg;
    cfg.d_model = 16;
    cfg.options = {{"heads", 2}, {"window", window}};
    check_step_path("swa", cfg, 150);
  }
}

TEST(Cells, BadOptionsAreUsageErrors) {
  CellConfig cfg;
  cfg.max_length = 16;
  cfg.options = {{"heads", 0}};
  EXPECT_THROW(make_cell("diag", cfg), UsageError);
  EXPECT_THROW(make_cell("attention", cfg), UsageError);
  cfg.options = {{"head_dim", 48}};  // must divide expand·d_model = 128
  EXPECT_THROW(make_cell("mamba2", cfg), UsageError);
  cfg.options = {{"kernel_size", 1}};
  EXPECT_THROW(make_cell("baseconv", cfg), UsageError);
  cfg.options = {{"window", -1}};
  EXPECT_THROW(make_cell("swa", cfg), UsageError);
  cfg.options = nlohmann::json::object();
  cfg.max_length = 0;  // attention cannot size its KV cache
  EXPECT_THROW(make_cell("attention", cfg), UsageError);
  EXPECT_THROW(make_cell("nope", CellConfig{}), UsageError);
}

}  // namespace
}  // namespace rb
