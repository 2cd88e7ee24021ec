// Cells: shapes, causality, state size accounting and budget sizing, option errors.
#include <gtest/gtest.h>

#include "cells/cell.h"
#include "suite/core/errors.h"

namespace rb {
namespace {

class EveryCell : public testing::TestWithParam<std::string> {};

TEST_P(EveryCell, ShapeAndCausality) {
  torch::manual_seed(0);
  CellConfig cfg;
  cfg.d_model = 32;
  cfg.max_length = 24;
  auto cell = make_cell(GetParam(), cfg);
  auto x = torch::randn({2, 24, 32});
  auto y = cell->forward(x);
  ASSERT_EQ(y.sizes(), x.sizes());
  ASSERT_TRUE(torch::isfinite(y).all().item<bool>());
  // Changing the future must not change the past.
  auto x2 = x.clone();
  x2.narrow(1, 12, 12).normal_();
  auto y2 = cell->forward(x2);
  EXPECT_TRUE(torch::allclose(y.narrow(1, 0, 12), y2.narrow(1, 0, 12), 1e-5, 1e-6)) << GetParam();
  EXPECT_GT(cell->state_size(), 0);
}

INSTANTIATE_TEST_SUITE_P(AllCells, EveryCell, testing::ValuesIn(CellRegistry::instance().names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (c == '+') c = '_';
                           return n;
                         });

TEST(DiagCell, StateSizeCountsStateAndConvBuffer) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.options = {{"heads", 2}, {"key_dim", 16}, {"value_dim", 8}};
  EXPECT_EQ(make_cell("diag", cfg)->state_size(), 2 * 16 * 8);
  // Conv on q, k, v: (W-1) = 3 past inputs for each of H·(2K+V) channels.
  EXPECT_EQ(make_cell("diag+conv", cfg)->state_size(), 2 * 16 * 8 + 3 * 2 * (2 * 16 + 8));
}

TEST(DiagCell, SizesToBudget) {
  CellConfig cfg;
  cfg.d_model = 64;
  cfg.state_budget = 4096;
  for (const char* name : {"diag", "diag+conv"}) {
    const int64_t s = make_cell(name, cfg)->state_size();
    EXPECT_NEAR(static_cast<double>(s), 4096.0, 409.6) << name;
  }
}

TEST(DiagCell, BadOptionsAreUsageErrors) {
  CellConfig cfg;
  cfg.options = {{"heads", 0}};
  EXPECT_THROW(make_cell("diag", cfg), UsageError);
  cfg.options = {{"colour", 1}};
  EXPECT_THROW(make_cell("diag", cfg), UsageError);
  cfg.options = nlohmann::json::object();
  cfg.impl = "warp";
  EXPECT_THROW(make_cell("diag", cfg), UsageError);
  EXPECT_THROW(make_cell("nope", CellConfig{}), UsageError);
}

}  // namespace
}  // namespace rb
