// Cells, every registered one: shapes, causality, gradients, the token-by-token step path against the
// sequence forward, the reported state size against the tensors the step path actually carries, budget
// sizing, option errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "cells/catalog.h"
#include "cells/causality.h"
#include "cells/cell.h"
#include "cells/conformance.h"
#include "cells/torch_threads.h"
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

// The conformance harness (cells/conformance.h, the same checks `recallbench check-cell` runs): shape,
// finiteness, causality, gradients, the carried state against state_size(), the step path against
// forward, determinism per seed. Every check must pass.
void expect_conformant(const ConformanceOptions& o) {
  SCOPED_TRACE(o.cell + " at d_model " + std::to_string(o.d_model) + ", budget " + std::to_string(o.state_budget) +
               ", impl " + o.impl + ", length " + std::to_string(o.length));
  const auto checks = check_cell(o);
  EXPECT_EQ(checks.size(), 7u);
  for (const auto& c : checks) EXPECT_TRUE(c.pass) << c.name << ": " << c.figure;
}

TEST_P(EveryCell, PassesTheConformanceHarness) {
  ConformanceOptions o;
  o.cell = GetParam();
  o.d_model = 32;
  o.length = 24;
  expect_conformant(o);
}

// The step path at the sizes batteries use (width 64, budget 4096) and at a small odd configuration on
// every kernel implementation a cell can train on.
TEST_P(EveryCell, ConformantAtBatterySizesAndOnEveryKernel) {
  ConformanceOptions o;
  o.cell = GetParam();
  o.d_model = 64;
  o.state_budget = 4096;
  o.length = 40;
  expect_conformant(o);
  o.d_model = 24;
  o.state_budget = 0;
  o.length = 13;
  for (const char* impl : {"auto", "ref", "chunked", "fused"}) {
    o.impl = impl;
    expect_conformant(o);
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

// The front end lists the in-tree cells from their sizing rules; the modules must agree with every row.
TEST(CellCatalog, TheTorchFreeListAgreesWithTheModules) {
  for (int64_t budget : {0, 1024, 4096}) {
    const auto built = cell_catalog(32, budget, 64, false);
    const auto sized = sized_cell_catalog(32, budget, 64);
    ASSERT_EQ(built.size(), sized.size());
    for (size_t i = 0; i < built.size(); ++i) {
      EXPECT_EQ(sized[i].name, built[i].name);
      EXPECT_EQ(sized[i].state_size, built[i].state_size) << built[i].name << " at budget " << budget;
      EXPECT_EQ(sized[i].options, built[i].options) << built[i].name << " at budget " << budget;
      EXPECT_EQ(sized[i].knobs, built[i].knobs) << built[i].name;
      EXPECT_EQ(sized[i].parameters, -1);
      EXPECT_EQ(built[i].parameters, -1);
    }
  }
}

TEST(CellCatalog, ListsEveryCellWithStateAndParameters) {
  const auto cells = cell_catalog(64, 4096, 128, true);
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
    ConformanceOptions o;
    o.cell = "swa";
    o.d_model = 16;
    o.length = 150;
    o.options = {{"heads", 2}, {"window", window}};
    expect_conformant(o);
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

// The causality check (cells/causality.h) on hand-made mixers: a causal running sum passes; reading the next
// token and block-bidirectional mixing at any block size are caught, with the split and position named.
namespace rb {
namespace {

torch::Tensor block_mix(const torch::Tensor& x, int64_t b) {
  const int64_t B = x.size(0), T = x.size(1), D = x.size(2), pad = (b - T % b) % b;
  auto xp = torch::cat({x, torch::zeros({B, pad, D})}, 1);
  return xp.reshape({B, -1, b, D}).sum(2, true).expand({-1, -1, b, -1}).reshape({B, -1, D}).narrow(1, 0, T);
}

TEST(Causality, CatchesEveryKindOfLeak) {
  const auto cumsum = [](const torch::Tensor& x) { return torch::cumsum(x, 1); };
  const auto ok = check_causality(cumsum, 64, 8);
  EXPECT_TRUE(ok.causal) << ok.describe();
  EXPECT_EQ(ok.splits, 63);
  const auto roll = check_causality([](const torch::Tensor& x) { return torch::roll(x, -1, 1); }, 32, 8);
  EXPECT_FALSE(roll.causal);
  for (int64_t b : {2, 3, 4, 8, 16}) {
    const auto r = check_causality([b](const torch::Tensor& x) { return block_mix(x, b); }, 48, 8);
    EXPECT_FALSE(r.causal) << "block " << b;
    EXPECT_LT(r.position, r.split) << r.describe();
  }
  // Leaks only beyond a length: caught at that length, not below it.
  const auto late = [](const torch::Tensor& x) { return x.size(1) > 32 ? block_mix(x, 4) : torch::cumsum(x, 1); };
  EXPECT_TRUE(check_causality(late, 24, 8).causal);
  EXPECT_FALSE(check_causality(late, 64, 8).causal);
}

// Rounding that changes from call to call (a threaded op's work split on a loaded machine) is not a leak:
// only a change every evaluation shows is. A real leak is seen in each of them.
TEST(Causality, ALeakIsConfirmedByEvaluatingAgain) {
  int calls = 0;
  const auto flaky = [&calls](const torch::Tensor& x) {
    auto y = torch::cumsum(x, 1);
    if (calls++ == 0) y[1][0] += 1e-3;  // once: row 1's first output off by more than the limit
    return y;
  };
  const auto r = check_causality(flaky, 16, 4);
  EXPECT_TRUE(r.causal) << r.describe();
  EXPECT_EQ(r.evaluations, 2);
  const auto roll = check_causality([](const torch::Tensor& x) { return torch::roll(x, -1, 1); }, 16, 4);
  EXPECT_FALSE(roll.causal);
  EXPECT_EQ(roll.evaluations, kCausalityEvaluations);
  EXPECT_NE(roll.describe().find("in each of 3 evaluations"), std::string::npos) << roll.describe();
  int n = 0;  // a leak on every call but the last is not confirmed either
  const auto mostly = [&n](const torch::Tensor& x) {
    auto y = torch::cumsum(x, 1);
    if (n++ < kCausalityEvaluations - 1) y[1][0] += 1e-3;
    return y;
  };
  EXPECT_TRUE(check_causality(mostly, 8, 4).causal);
}

// The check runs at one thread for every caller (the trainer, check-cell, a TorchScript cell's load), and the
// caller's thread count is back when it returns, even when forward throws.
TEST(Causality, RunsAtOneThreadAndRestoresTheCount) {
  const int before = torch::get_num_threads();
  set_torch_threads(2);
  int seen = 0;
  const auto watch = [&seen](const torch::Tensor& x) {
    seen = std::max(seen, torch::get_num_threads());
    return torch::cumsum(x, 1);
  };
  EXPECT_TRUE(check_causality(watch, 8, 4).causal);
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(torch::get_num_threads(), 2);
  const auto throws = [](const torch::Tensor&) -> torch::Tensor { throw std::runtime_error("forward failed"); };
  EXPECT_THROW(check_causality(throws, 8, 4), std::runtime_error);
  EXPECT_EQ(torch::get_num_threads(), 2);
  set_torch_threads(before);
}

}  // namespace
}  // namespace rb
