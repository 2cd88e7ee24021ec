// Each cell family learns a tiny task (PyTorch's test_RNN_xor spirit): a 2-layer width-32 model on MQAR
// with 2 pairs at length 16 over 32 tokens, through the real trainer. Chance is 1/16 (the value half of
// the vocabulary); a model that copies *some* value from the context without binding it to its key sits
// at 1/2. Every family must reach 0.9 held-out accuracy; training stops at 0.95.
//
// The budgets differ because the families learn at very different speeds (measured, seed 0, lr 3e-3):
//   rank1+conv, diag+decay+conv, rank1+decay+conv   lock in within 400 steps (batch 32)
//   mamba2      sits at 1/2 until ~700 steps, locks in at 900 (seeds 0-1: 900, 1300; batch 32)
//   attention   has no shift: its previous-token head must form from learned positions (the induction-head
//               phase transition). It sits at 1/2 for 1000+ steps and then jumps; with a 2000-step cosine
//               schedule the learning rate decays before the jump and it never locks in (seeds 0-3 at
//               0.59-0.61 after 3000 steps at batch 32). At batch 64 with a 6000-step schedule seed 0
//               locks in at 1500 steps, seed 1 at 4000. A plain PyTorch model of the same architecture
//               (/usr/bin/python3, python3-torch) shows the same plateau, so this is the recipe, not the cell.
//   baseconv    needs a filter that spans the sequence (its default 3-tap filter cannot reach the pairs
//               from the queries: 0.49 after 3000 steps); with a 512-number budget (width 17 ≥ L) it
//               locks in at 1400 (seed 1: 2000).
#include <gtest/gtest.h>

#include "suite/train/train_api.h"

namespace rb {
namespace {

struct Family {
  std::string cell;
  int64_t steps;
  int64_t batch = 32;
  int64_t budget = 0;  // state budget per layer (0 = the cell's default sizing)
};

RunSpec tiny(const Family& f) {
  RunSpec s;
  s.cell.name = f.cell;
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}, {"vocab", 32}};
  s.model.d_model = 32;
  s.model.state_budget = f.budget;
  s.train.steps = f.steps;
  s.train.batch = f.batch;
  s.train.eval_every = 25;
  s.train.eval_examples = 128;
  s.train.threshold = 0.95;  // stop early once clearly learnt
  s.seed = 0;
  return resolve_spec(s);
}

class CellFamily : public testing::TestWithParam<Family> {};

TEST_P(CellFamily, LearnsATinyRecallTask) {
  const auto r = train_run(tiny(GetParam()), nullptr);
  EXPECT_EQ(r["result"]["status"], "ok");
  EXPECT_GE(r["result"]["best_accuracy"].get<double>(), 0.9)
      << GetParam().cell << ": " << r["curve"].dump();
}

// One member per family (diag+conv is the trainer test's own, tests/train): the rank-1 transition, both
// decays, Mamba-2, softmax attention (swa is the same cell with a window: at length 16 its default window
// of 32 makes it identical), BaseConv.
INSTANTIATE_TEST_SUITE_P(Families, CellFamily,
                         testing::Values(Family{"rank1+conv", 400}, Family{"diag+decay+conv", 400},
                                         Family{"rank1+decay+conv", 400}, Family{"mamba2", 3000},
                                         Family{"attention", 6000, 64}, Family{"baseconv", 3000, 64, 512}),
                         [](const testing::TestParamInfo<Family>& info) {
                           std::string n = info.param.cell;
                           for (auto& c : n)
                             if (c == '+') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace rb
