// The learning diagnosis (judge/learning.h) on constructed curves: rising, flat, noisy flat, cosine-ended, an
// abrupt late jump; its false-call rate on flat noisy curves; plateau stopping by the same rule.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "judge/learning.h"

namespace rb::judge {
namespace {

constexpr int64_t kSteps = 1500, kEvery = 50;
const LearningSchedule kSchedule{kSteps, 0.05};

// A curve evaluated every kEvery steps up to `last`: accuracy acc(step), loss loss(step), plus noise.
template <class Acc, class Loss>
std::vector<CurvePoint> curve(Acc acc, Loss loss, double noise = 0.0, uint32_t seed = 1, int64_t last = kSteps) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<CurvePoint> c;
  for (int64_t s = kEvery; s <= last; s += kEvery)
    c.push_back({s, std::clamp(acc(s) + noise * n(rng), 0.0, 1.0), loss(s) * (1.0 + noise * n(rng))});
  return c;
}

TEST(Learning, RisingAtTheEndIsBudgetLimited) {
  const auto c = curve([](int64_t s) { return 0.1 + 0.5 * s / kSteps; }, [](int64_t s) { return 3.0 - 1.0 * s / kSteps; }, 0.005);
  const LearningDiagnosis d = diagnose_learning(c, kSchedule, false, true);
  EXPECT_EQ(d.label, Learning::kBudgetLimited);
  EXPECT_EQ(d.reason, LearningReason::kStillImproving);
  EXPECT_TRUE(d.end.improving);
  EXPECT_EQ(d.suggested_steps, 2 * kSteps);
}

TEST(Learning, FlatIsPlateaued) {
  const auto c = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; });
  const LearningDiagnosis d = diagnose_learning(c, kSchedule, false, true);
  EXPECT_EQ(d.label, Learning::kPlateaued);
  EXPECT_EQ(d.reason, LearningReason::kFlat);
  EXPECT_EQ(d.tests, 4);  // the schedule decayed: the end window and the live window, two measures each
}

TEST(Learning, NoisyFlatIsPlateaued) {
  const auto c = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; }, 0.02, 7);
  EXPECT_EQ(diagnose_learning(c, kSchedule, false, true).label, Learning::kPlateaued);
}

// Learning that follows the learning rate: it rises while the rate is high and stops once the cosine
// reaches zero. The end window is flat; the live window (where the rate crossed a quarter of its peak) rises.
TEST(Learning, CosineEndedIsBudgetLimitedBecauseTheScheduleEnded) {
  double acc = 0.1;
  std::vector<CurvePoint> c;
  for (int64_t s = kEvery; s <= kSteps; s += kEvery) {
    acc += 0.03 * kSchedule.lr_fraction(s);
    c.push_back({s, acc, 3.0 - acc});
  }
  const LearningDiagnosis d = diagnose_learning(c, kSchedule, false, true);
  EXPECT_EQ(d.label, Learning::kBudgetLimited);
  EXPECT_FALSE(d.end.improving);
  EXPECT_TRUE(d.live.improving);
  EXPECT_EQ(d.reason, LearningReason::kScheduleEnded);
}

// Attention's induction circuit: flat at 1/2, then an abrupt rise late in the budget.
TEST(Learning, AbruptLateRiseIsBudgetLimited) {
  const auto c = curve([](int64_t s) { return s < 1300 ? 0.5 : 0.8; }, [](int64_t s) { return s < 1300 ? 1.0 : 0.5; }, 0.002);
  EXPECT_EQ(diagnose_learning(c, kSchedule, false, true).label, Learning::kBudgetLimited);
}

TEST(Learning, LockedInAndFailedRunsAreNotDiagnosed) {
  const auto c = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; });
  EXPECT_EQ(diagnose_learning(c, kSchedule, true, true).label, Learning::kLockedIn);
  const LearningDiagnosis failed = diagnose_learning(c, kSchedule, false, false);
  EXPECT_EQ(failed.label, Learning::kUnknown);
  EXPECT_EQ(failed.reason, LearningReason::kNotOk);
}

TEST(Learning, TooFewEvaluationsIsUnknown) {
  std::vector<CurvePoint> c = {{500, 0.2, 2.0}, {1000, 0.3, 1.9}, {1500, 0.4, 1.8}};
  const LearningDiagnosis d = diagnose_learning(c, kSchedule, false, true);
  EXPECT_EQ(d.label, Learning::kUnknown);
  EXPECT_EQ(d.reason, LearningReason::kTooFewPoints);
}

// The stated false-call rate: flat curves with exchangeable noise are called budget-limited at most alpha of
// the time (Bonferroni over the tests; the medians' minimum makes it lower still). 2000 curves; the bound
// allows three binomial standard errors above alpha.
TEST(Learning, FalseCallRateOnFlatNoisyCurvesIsAtMostAlpha) {
  const LearningRule rule;
  int calls = 0, calls_without_minimum = 0;
  LearningRule no_minimum = rule;
  no_minimum.min_accuracy_gain = 0.0, no_minimum.min_loss_drop = 0.0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const auto c = curve([](int64_t) { return 0.3; }, [](int64_t) { return 2.0; }, 0.03, 1000 + i);
    calls += diagnose_learning(c, kSchedule, false, true, false, rule).label == Learning::kBudgetLimited;
    calls_without_minimum += diagnose_learning(c, kSchedule, false, true, false, no_minimum).label == Learning::kBudgetLimited;
  }
  const double bound = rule.alpha + 3.0 * std::sqrt(rule.alpha * (1 - rule.alpha) / n);
  EXPECT_LE(static_cast<double>(calls_without_minimum) / n, bound) << calls_without_minimum << " of " << n;
  EXPECT_LE(calls, calls_without_minimum);
  EXPECT_GT(calls_without_minimum, 0);  // the tests do fire on noise now and then: the bound is what holds it
}

// Power on a slow rise (a gain of 0.1 over the last third) at the held-out set's noise (0.01: 256 examples):
// the diagnosis sees it. (At 0.03 it sees about half: 5 evaluations a half at alpha / 4.)
TEST(Learning, SlowRiseIsSeenAtTheSameNoise) {
  int seen = 0;
  for (int i = 0; i < 200; ++i) {
    const auto c = curve([](int64_t s) { return 0.2 + 0.3 * s / kSteps; }, [](int64_t) { return 2.0; }, 0.01, 5000 + i);
    seen += diagnose_learning(c, kSchedule, false, true).label == Learning::kBudgetLimited;
  }
  EXPECT_GE(seen, 180);
}

TEST(Learning, PlateauStoppingStopsFlatRunsOnlyAfterHalfTheBudget) {
  const auto flat = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; }, 0.002, 3, 700);
  EXPECT_FALSE(plateau_should_stop(flat, kSchedule));  // before stop_after
  const auto later = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; }, 0.002, 3, 800);
  EXPECT_TRUE(plateau_should_stop(later, kSchedule));
  const auto rising = curve([](int64_t s) { return 0.1 + 0.5 * s / kSteps; }, [](int64_t) { return 2.0; }, 0.002, 3, 900);
  EXPECT_FALSE(plateau_should_stop(rising, kSchedule));
  // A stopped run is plateaued, with the reason.
  const LearningDiagnosis d = diagnose_learning(later, kSchedule, false, true, true);
  EXPECT_EQ(d.label, Learning::kPlateaued);
  EXPECT_EQ(d.reason, LearningReason::kStopped);
}

TEST(Learning, PlateauStopStepIsTheFirstEvaluationThatWouldStop) {
  const auto flat = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; }, 0.002, 3);
  const int64_t stop = plateau_stop_step(flat, kSchedule, -1);
  EXPECT_GE(stop, kSteps / 2);  // never before half the budget
  EXPECT_LT(stop, kSteps);
  std::vector<CurvePoint> prefix;
  for (const auto& p : flat)
    if (p.step <= stop) prefix.push_back(p);
  EXPECT_TRUE(plateau_should_stop(prefix, kSchedule));
  prefix.pop_back();
  EXPECT_FALSE(plateau_should_stop(prefix, kSchedule));
  EXPECT_EQ(plateau_stop_step(flat, kSchedule, stop), -1);  // locked in before it would stop
  const auto rising = curve([](int64_t s) { return 0.1 + 0.5 * s / kSteps; }, [](int64_t) { return 2.0; }, 0.002, 3);
  EXPECT_EQ(plateau_stop_step(rising, kSchedule, -1), -1);
}

TEST(Learning, ConfigIsBudgetLimitedWhenMostFailedSeedsAre) {
  Config c;
  c.set_train({{"steps", kSteps}, {"warmup", 0.05}, {"threshold", 0.9}});
  const auto rising = curve([](int64_t s) { return 0.1 + 0.5 * s / kSteps; }, [](int64_t) { return 2.0; }, 0.002);
  const auto flat = curve([](int64_t) { return 0.25; }, [](int64_t) { return 2.0; });
  for (int seed = 0; seed < 3; ++seed) {
    SeedOutcome s;
    s.seed = seed, s.final_accuracy = 0.5, s.steps = kSteps;
    s.curve = seed < 2 ? rising : flat;
    c.seeds.push_back(s);
  }
  const ConfigLearning l = config_learning(c);
  EXPECT_EQ(l.not_locked_in, 3);
  EXPECT_EQ(l.budget_limited, 2);
  EXPECT_EQ(l.plateaued, 1);
  EXPECT_TRUE(l.budget_limited_config());
  EXPECT_EQ(l.suggested_steps, 2 * kSteps);
  // A stored outcome without its curve keeps its stored label.
  SeedOutcome stored;
  stored.learning = Learning::kPlateaued;
  EXPECT_EQ(diagnose_seed(stored, kSchedule).label, Learning::kPlateaued);
}

}  // namespace
}  // namespace rb::judge
