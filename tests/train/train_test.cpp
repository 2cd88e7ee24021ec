// The trainer, for real: a small model learns a tiny MQAR; the same run twice gives identical numbers;
// a NaN loss ends a run as "diverged" instead of crashing.
#include <gtest/gtest.h>

#include "suite/core/errors.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

RunSpec tiny(const std::string& cell, int64_t seed) {
  RunSpec s;
  s.cell.name = cell;
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}, {"vocab", 32}};
  s.model.d_model = 32;
  s.train.steps = 400;
  s.train.batch = 32;
  s.train.eval_every = 25;
  s.train.eval_examples = 128;
  s.seed = seed;
  return resolve_spec(s);
}

TEST(Trainer, LearnsATinyRecallTask) {
  const auto r = train_run(tiny("diag+conv", 0), nullptr);
  EXPECT_EQ(r["result"]["status"], "ok");
  EXPECT_GE(r["result"]["best_accuracy"].get<double>(), 0.9) << r["curve"].dump();
}

TEST(Trainer, SameSeedSameNumbers) {
  auto spec = tiny("diag", 1);
  spec.train.steps = 60;
  const auto a = train_run(spec, nullptr), b = train_run(spec, nullptr);
  EXPECT_EQ(a["curve"], b["curve"]);
  EXPECT_EQ(a["result"]["final_accuracy"], b["result"]["final_accuracy"]);
  EXPECT_EQ(a["result"]["final_loss"], b["result"]["final_loss"]);
  EXPECT_EQ(a["key"], b["key"]);
}

TEST(Trainer, DivergenceIsRecordedNotThrown) {
  auto spec = tiny("diag", 2);
  spec.train.steps = 50;
  spec.train.lr = 1e30;  // guaranteed to blow up
  spec.train.warmup = 0.0;
  const auto r = train_run(spec, nullptr);
  EXPECT_EQ(r["result"]["status"], "diverged");
  EXPECT_FALSE(r["result"]["locked_in"].get<bool>());
  EXPECT_NE(r["result"]["message"].get<std::string>().find("loss became"), std::string::npos);
}

TEST(Trainer, ResolveFillsDefaultsAndRejectsNonsense) {
  RunSpec s;
  s.cell.name = "diag";
  s.task.name = "mqar";
  const RunSpec r = resolve_spec(s);
  EXPECT_EQ(r.task.options["pairs"], 8);
  EXPECT_EQ(r.cell.options["key_dim"], 64);
  s.train.steps = 0;
  EXPECT_THROW(resolve_spec(s), UsageError);
  s = RunSpec{};
  s.cell.name = "diag";
  s.task.name = "mqar";
  s.train.curriculum = "sideways";
  EXPECT_THROW(resolve_spec(s), UsageError);
}

}  // namespace
}  // namespace rb
