// judge/tuning.h: the learning-rate rule on constructed runs, and that seeds outside the tuning seeds never
// take part in the choice.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "judge/tuning.h"
#include "reports/tuning_text.h"

namespace rb::judge {
namespace {

// One config of `cell` at rate `lr` on task point `point`; seeds given as (seed, lock-in step or -1, recall).
Config at_rate(const std::string& cell, double lr, int point,
               const std::vector<std::tuple<int64_t, int64_t, double>>& seeds, int64_t budget = 1000) {
  Config c;
  c.cell = cell;
  c.key = "mqar/" + cell + "/p" + std::to_string(point) + "/lr" + std::to_string(lr);
  c.set_train({{"lr", lr}, {"steps", budget}});
  for (const auto& [seed, step, recall] : seeds) {
    SeedOutcome s;
    s.seed = seed;
    s.reached_threshold = step >= 0;
    s.lock_in_step = step;
    s.final_accuracy = recall;
    s.best_accuracy = std::max(recall, step >= 0 ? 0.95 : recall);
    s.steps = step >= 0 ? step : budget;
    c.seeds.push_back(s);
  }
  return c;
}

TEST(Tuning, LockInsThenTimeThenRecallThenLowerRate) {
  // Lock-ins decide: 1e-3 locks in 2 of 2, 3e-3 1 of 2, 1e-2 none.
  std::vector<Config> runs = {at_rate("diag", 1e-3, 0, {{100, 400, 0.95}, {101, 500, 0.95}}),
                              at_rate("diag", 3e-3, 0, {{100, 200, 0.95}, {101, -1, 0.3}}),
                              at_rate("diag", 1e-2, 0, {{100, -1, 0.2}, {101, -1, 0.2}})};
  RateChoice c = choose_rate("diag", runs, {100, 101});
  EXPECT_DOUBLE_EQ(c.lr, 1e-3);
  EXPECT_EQ(c.reason, RateReason::kMostLockIns);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].locked_in, 2);
  EXPECT_DOUBLE_EQ(c.rows[1].mean_steps, (200.0 + 1000.0) / 2);  // never locked in: counted at the budget
  EXPECT_FALSE(c.interior());  // the lowest rate: the grid does not bracket it
  // Equal lock-ins: the shorter mean time wins.
  runs[1] = at_rate("diag", 3e-3, 0, {{100, 200, 0.95}, {101, 300, 0.95}});
  c = choose_rate("diag", runs, {100, 101}, TuningRule::kLockInsThenTime);
  EXPECT_DOUBLE_EQ(c.lr, 3e-3);
  EXPECT_EQ(c.reason, RateReason::kShortestTime);
  EXPECT_TRUE(c.interior());
  // Nothing locks in anywhere: the higher median recall; a full tie: the lower rate.
  std::vector<Config> none = {at_rate("rank1", 1e-3, 0, {{100, -1, 0.30}}), at_rate("rank1", 3e-3, 0, {{100, -1, 0.35}})};
  c = choose_rate("rank1", none, {100}, TuningRule::kLockInsThenTime);
  EXPECT_DOUBLE_EQ(c.lr, 3e-3);
  EXPECT_EQ(c.reason, RateReason::kHigherRecall);
  none[1] = at_rate("rank1", 3e-3, 0, {{100, -1, 0.30}});
  c = choose_rate("rank1", none, {100}, TuningRule::kLockInsThenTime);
  EXPECT_DOUBLE_EQ(c.lr, 1e-3);
  EXPECT_EQ(c.reason, RateReason::kLowerRate);
}

// The two rules differ where lock-ins tie: the mamba2 shape of the leaderboard's pilot, where one point locks in
// (slightly faster at the higher rate) and the higher rate has collapsed at the other point.
TEST(Tuning, LockInsThenRecallOrdersAsTheBoardRanks) {
  const std::vector<Config> runs = {
      at_rate("mamba2", 3e-3, 0, {{100, 300, 0.95}, {101, 350, 0.95}}),
      at_rate("mamba2", 3e-3, 1, {{100, -1, 0.21}, {101, -1, 0.20}}),
      at_rate("mamba2", 3e-2, 0, {{100, 250, 0.95}, {101, 300, 0.95}}),
      at_rate("mamba2", 3e-2, 1, {{100, -1, 0.03}, {101, -1, 0.04}}),
  };
  const RateChoice by_recall = choose_rate("mamba2", runs, {100, 101});  // the default
  EXPECT_DOUBLE_EQ(by_recall.lr, 3e-3);
  EXPECT_EQ(by_recall.reason, RateReason::kHigherRecall);
  const RateChoice by_time = choose_rate("mamba2", runs, {100, 101}, TuningRule::kLockInsThenTime);
  EXPECT_DOUBLE_EQ(by_time.lr, 3e-2);
  EXPECT_EQ(by_time.reason, RateReason::kShortestTime);
  EXPECT_EQ(parse_tuning_rule("lock-ins-then-time"), TuningRule::kLockInsThenTime);
  EXPECT_FALSE(parse_tuning_rule("most-lock-ins").has_value());
}

TEST(Tuning, PoolsTaskPoints) {
  // Point 0 favours 1e-3 (2 vs 1 lock-ins), point 1 favours 3e-3 (2 vs 0): pooled, 3e-3 (3 vs 2).
  const std::vector<Config> runs = {at_rate("diag", 1e-3, 0, {{100, 300, 0.9}, {101, 300, 0.9}}),
                                    at_rate("diag", 3e-3, 0, {{100, 300, 0.9}, {101, -1, 0.3}}),
                                    at_rate("diag", 1e-3, 1, {{100, -1, 0.3}, {101, -1, 0.3}}),
                                    at_rate("diag", 3e-3, 1, {{100, 300, 0.9}, {101, 300, 0.9}})};
  const RateChoice c = choose_rate("diag", runs, {100, 101});
  EXPECT_DOUBLE_EQ(c.lr, 3e-3);
  EXPECT_EQ(c.rows[1].runs, 4);
  EXPECT_EQ(c.rows[1].locked_in, 3);
}

TEST(Tuning, ScoringSeedsNeverEnterTheChoice) {
  // The tuning seeds (100, 101) favour 1e-3; the scoring seeds (0-9) in the same store favour 3e-3 by far.
  std::vector<std::tuple<int64_t, int64_t, double>> lr1 = {{100, 300, 0.9}, {101, 300, 0.9}};
  std::vector<std::tuple<int64_t, int64_t, double>> lr3 = {{100, -1, 0.3}, {101, 300, 0.9}};
  for (int64_t s = 0; s < 10; ++s) {
    lr1.push_back({s, -1, 0.2});
    lr3.push_back({s, 100, 0.99});
  }
  const std::vector<Config> runs = {at_rate("diag", 1e-3, 0, lr1), at_rate("diag", 3e-3, 0, lr3)};
  const RateChoice c = choose_rate("diag", runs, {100, 101});
  EXPECT_DOUBLE_EQ(c.lr, 1e-3);
  EXPECT_EQ(c.left_out, 20);
  EXPECT_EQ(c.rows[0].runs, 2);
  // On the scoring seeds alone the choice would be the other rate: the test constructs a real disagreement.
  EXPECT_DOUBLE_EQ(choose_rate("diag", runs, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).lr, 3e-3);
  // The narration names what was left out.
  EXPECT_NE(reports::tuning_table({c}).find("20 run(s) of other seeds left out"), std::string::npos);
}

TEST(Tuning, RefusesWhatCannotChoose) {
  EXPECT_THROW(choose_rate("diag", {at_rate("diag", 1e-3, 0, {{0, 100, 0.9}})}, {100}), UsageError);  // no tuning run
  Config no_lr = at_rate("diag", 1e-3, 0, {{100, 100, 0.9}});
  no_lr.set_train({{"steps", 1000}});
  EXPECT_THROW(choose_rate("diag", {no_lr}, {100}), UsageError);
  EXPECT_THROW(choose_rate("diag", {}, {}), UsageError);
}

}  // namespace
}  // namespace rb::judge
