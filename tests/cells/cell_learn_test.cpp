// Each cell family learns a tiny task (PyTorch's test_RNN_xor spirit): a 2-layer width-32 model on MQAR
// with 2 pairs at length 16 over 32 tokens, through the real trainer. Chance is 1/16 (the value half of
// the vocabulary); every cell here must reach 0.9 held-out accuracy within its step budget, which the
// failing variants of the science (no conv, no positions for attention) do not.
#include <gtest/gtest.h>

#include "suite/train/train_api.h"

namespace rb {
namespace {

RunSpec tiny(const std::string& cell, int64_t steps) {
  RunSpec s;
  s.cell.name = cell;
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}, {"vocab", 32}};
  s.model.d_model = 32;
  s.train.steps = steps;
  s.train.batch = 32;
  s.train.eval_every = 25;
  s.train.eval_examples = 128;
  s.train.threshold = 0.95;  // stop early once clearly learnt
  s.seed = 0;
  return resolve_spec(s);
}

struct Family {
  std::string cell;
  int64_t steps;
};

class CellFamily : public testing::TestWithParam<Family> {};

TEST_P(CellFamily, LearnsATinyRecallTask) {
  const auto r = train_run(tiny(GetParam().cell, GetParam().steps), nullptr);
  EXPECT_EQ(r["result"]["status"], "ok");
  EXPECT_GE(r["result"]["best_accuracy"].get<double>(), 0.9) << GetParam().cell << ": " << r["curve"].dump();
}

// One member per family (diag+conv is the trainer test's own, tests/train): the rank-1 transition and
// both decays.
INSTANTIATE_TEST_SUITE_P(Families, CellFamily,
                         testing::Values(Family{"rank1+conv", 400}, Family{"diag+decay+conv", 400},
                                         Family{"rank1+decay+conv", 400}),
                         [](const testing::TestParamInfo<Family>& info) {
                           std::string n = info.param.cell;
                           for (auto& c : n)
                             if (c == '+') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace rb
