// Curricula: stage schedules by definition, the gate and its maximum, history records, options errors.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "tasks/curriculum.h"

namespace rb {
namespace {

const CurriculumContext kCtx{1000, 252, 256};  // 1000 steps, full distance 252, length 256

TEST(Curriculum, NoneIsTheTaskThroughout) {
  auto c = make_curriculum("none", {}, kCtx);
  for (int64_t s = 1; s <= 1000; s += 97) {
    const Difficulty d = c->difficulty(s);
    EXPECT_FALSE(d.max_distance);
    EXPECT_FALSE(d.length);
  }
  EXPECT_EQ(c->history().size(), 1u);
  EXPECT_EQ(c->stage(), 0);
}

TEST(Curriculum, DistanceGrowsInEqualStagesThenFullTask) {
  auto c = make_curriculum("distance", {{"start", 12}, {"stages", 4}, {"until", 0.5}}, kCtx);
  // Stage s for steps in [125 s, 125 (s+1)), cap 12 + 240 s / 4; from step 500 the task itself.
  EXPECT_EQ(*c->difficulty(1).max_distance, 12);
  EXPECT_EQ(*c->difficulty(124).max_distance, 12);
  EXPECT_EQ(*c->difficulty(125).max_distance, 72);
  EXPECT_EQ(*c->difficulty(250).max_distance, 132);
  EXPECT_EQ(*c->difficulty(499).max_distance, 192);
  EXPECT_FALSE(c->difficulty(500).max_distance);
  EXPECT_FALSE(c->difficulty(1000).length);
  EXPECT_EQ(c->stage(), 4);
  ASSERT_EQ(c->history().size(), 5u);
  EXPECT_EQ(c->history()[1].step, 125);
  EXPECT_EQ(c->history()[4].stage, 4);
  EXPECT_EQ(c->options()["start"], 12);
}

TEST(Curriculum, RampShapes) {
  // Linear ramp over length: at u = 1/2 half-way, quantised to 10 levels.
  auto lin = make_curriculum("ramp", {{"over", "length"}, {"stages", 10}, {"start", 16}, {"until", 1.0}}, kCtx);
  EXPECT_EQ(*lin->difficulty(1).length, 16);
  EXPECT_FALSE(lin->difficulty(1).max_distance);
  EXPECT_EQ(*lin->difficulty(500).length, 16 + 240 * 5 / 10);
  EXPECT_FALSE(lin->difficulty(1000).length);
  // Cosine is slower than linear early and the same at the middle; sqrt is faster early.
  auto cos = make_curriculum("ramp", {{"shape", "cosine"}, {"stages", 100}, {"until", 1.0}}, kCtx);
  auto sq = make_curriculum("ramp", {{"shape", "sqrt"}, {"stages", 100}, {"until", 1.0}}, kCtx);
  auto li = make_curriculum("ramp", {{"shape", "linear"}, {"stages", 100}, {"until", 1.0}}, kCtx);
  auto geo = make_curriculum("ramp", {{"shape", "geometric"}, {"stages", 100}, {"until", 1.0}}, kCtx);
  EXPECT_LT(*cos->difficulty(200).max_distance, *li->difficulty(200).max_distance);
  EXPECT_GT(*sq->difficulty(200).max_distance, *li->difficulty(200).max_distance);
  EXPECT_LT(*geo->difficulty(200).max_distance, *li->difficulty(200).max_distance);
  // Monotone, ends at the task.
  int64_t prev = 0;
  for (int64_t s = 1; s < 1000; s += 7) {
    const Difficulty d = cos->difficulty(s);
    const int64_t cap = d.max_distance ? *d.max_distance : 1 << 30;
    EXPECT_GE(cap, prev);
    prev = cap;
  }
  EXPECT_FALSE(cos->difficulty(1000).max_distance);
  EXPECT_THROW(make_curriculum("ramp", {{"shape", "zigzag"}}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("ramp", {{"over", "width"}}, kCtx), UsageError);
}

TEST(Curriculum, GatedAdvancesOnAccuracyOrAtTheMaximum) {
  auto c = make_curriculum("gated", {{"stages", 4}, {"threshold", 0.9}, {"window", 5}, {"min_stage_steps", 5},
                                     {"max_stage_steps", 50}},
                           kCtx);
  int64_t step = 1;
  // Low accuracy: held at stage 0 until the maximum (50 steps) forces an advance.
  for (; step <= 50; ++step) {
    EXPECT_EQ(c->difficulty(step).max_distance.value_or(-1), 16);
    c->observe(step, 0.1);
  }
  EXPECT_EQ(c->difficulty(step).max_distance.value_or(-1), 16 + 236 / 4);
  EXPECT_EQ(c->stage(), 1);
  // High accuracy: advances after min_stage_steps.
  for (int i = 0; i < 5; ++i, ++step) {
    c->difficulty(step);
    c->observe(step, 0.95);
  }
  EXPECT_EQ(c->difficulty(step).max_distance.value_or(-1), 16 + 2 * 236 / 4);
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 5; ++i, ++step) {
      c->difficulty(step);
      c->observe(step, 1.0);
    }
  EXPECT_FALSE(c->difficulty(step).max_distance);
  EXPECT_EQ(c->stage(), 4);
  EXPECT_EQ(c->history().size(), 5u);
  EXPECT_EQ(c->history()[1].step, 51);
}

TEST(Curriculum, DefaultMaximumAndErrors) {
  auto c = make_curriculum("gated", {{"stages", 4}}, kCtx);
  EXPECT_EQ(c->options()["max_stage_steps"], 0);  // resolved options keep what the user gave
  EXPECT_THROW(make_curriculum("sideways", {}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("distance", {{"stages", 0}}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("distance", {{"until", 1.5}}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("distance", {{"over", "length"}}, kCtx), UsageError);  // unknown option
  EXPECT_THROW(make_curriculum("gated", {{"threshold", 2}}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("gated", {{"min_stage_steps", 30}, {"max_stage_steps", 10}}, kCtx), UsageError);
  EXPECT_THROW(make_curriculum("none", {{"stages", 3}}, kCtx), UsageError);
}

}  // namespace
}  // namespace rb
