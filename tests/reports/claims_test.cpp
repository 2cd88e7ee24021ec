// verify: every verdict kind on planted results, the power boundary, per-depth Holm, the gate's exit code,
// and bad claims files (judge/claims.h decides, reports/claims.h writes the notes).
#include <gtest/gtest.h>

#include <ostream>

#include "core/errors.h"
#include "reports/claims.h"
#include "stats/stats.h"

namespace rb::judge {

// gtest shows a verdict by its name.
void PrintTo(ClaimOutcome outcome, std::ostream* os) { *os << claim_outcome_name(outcome); }

}  // namespace rb::judge

namespace rb::reports {
namespace {

using judge::claims_from_json;
using judge::verify_claims;
using judge::verify_exit_code;

// `cell` on mqar (pairs, length), n seeds, the first k locked in; recall 0.95 locked, `low` otherwise.
Config planted(const std::string& cell, int64_t k, int64_t n, int64_t length = 64, double low = 0.2,
               const std::string& curriculum = "none") {
  Config c;
  c.cell = cell;
  c.task = "mqar";
  c.task_options = {{"pairs", 8}, {"length", length}, {"vocab", 64}};
  c.key = "mqar/" + cell + "/length:" + std::to_string(length) + "/" + curriculum;
  c.model = {{"d_model", 32}, {"layers", 2}};
  c.set_train({{"steps", 1000}, {"curriculum", curriculum}});
  for (int64_t s = 0; s < n; ++s) {
    SeedOutcome o;
    o.seed = s;
    o.reached_threshold = s < k;
    o.final_accuracy = o.locked_in() ? 0.95 + 0.001 * s : low + 0.01 * s;
    c.seeds.push_back(o);
  }
  return c;
}

json claim(const std::string& id, const std::string& direction, json effect, const std::string& statistic = "fisher") {
  return {{"id", id}, {"claim", "the conv helps"}, {"a", {{"cell", "x+conv"}, {"task", "mqar"}}},
          {"b", {{"cell", "x"}, {"task", "mqar"}}}, {"statistic", statistic}, {"direction", direction},
          {"effect", effect}};
}

ClaimSet claims(std::vector<json> list) {
  return claims_from_json({{"schema_version", 1}, {"kind", "recallbench.claims"}, {"claims", list}}, "test");
}

RunSet runs(std::vector<Config> configs) {
  RunSet r;
  r.configs = std::move(configs);
  return r;
}

ClaimVerdict verdict_of(const json& c, std::vector<Config> configs) {
  static ClaimSet keep;  // verdicts point into the set
  keep = claims({c});
  return verify_claims(keep, {runs(std::move(configs))}).at(0);
}

TEST(Verify, ReproducedContradictedNoEffectUndecided) {
  const json greater = claim("conv", "greater", {{"a", 0.9}, {"b", 0.1}});
  EXPECT_EQ(verdict_of(greater, {planted("x+conv", 10, 10), planted("x", 0, 10)}).verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(verdict_of(greater, {planted("x+conv", 0, 10), planted("x", 10, 10)}).verdict, ClaimOutcome::kContradicted);
  const ClaimVerdict none = verdict_of(greater, {planted("x+conv", 5, 10), planted("x", 5, 10)});
  EXPECT_EQ(none.verdict, ClaimOutcome::kSizeNotReproduced);
  EXPECT_GE(none.power, 0.8);
  const ClaimVerdict few = verdict_of(greater, {planted("x+conv", 2, 3), planted("x", 1, 3)});
  EXPECT_EQ(few.verdict, ClaimOutcome::kUndecided);
  EXPECT_LT(few.power, 0.8);
  EXPECT_EQ(few.seeds_needed, stats::seeds_for_power(0.9, 0.1, 0.8, 0.05, stats::Alternative::kGreater).n);
  EXPECT_NE(claim_note(few).find("seeds per arm"), std::string::npos);
}

TEST(Verify, PowerBoundary) {
  // The first n at which the claimed effect (0.7 vs 0.2, one-sided) reaches 80% power: with n seeds and no
  // difference the claimed size is not reproduced, with n - 1 the verdict is undecided.
  const auto plan = stats::seeds_for_power(0.7, 0.2, 0.8, 0.05, stats::Alternative::kGreater);
  ASSERT_TRUE(plan.reached);
  const int64_t n = plan.n;
  ASSERT_LT(stats::fisher_power(0.7, 0.2, n - 1, n - 1, 0.05, stats::Alternative::kGreater), 0.8);
  const json c = claim("edge", "greater", {{"a", 0.7}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(c, {planted("x+conv", n / 2, n), planted("x", n / 2, n)}).verdict, ClaimOutcome::kSizeNotReproduced);
  EXPECT_EQ(verdict_of(c, {planted("x+conv", (n - 1) / 2, n - 1), planted("x", (n - 1) / 2, n - 1)}).verdict, ClaimOutcome::kUndecided);
}

TEST(Verify, NoDifferenceClaims) {
  // The margin is the claim's effect: |0.9 - 0.2| = 0.7 here, 0.3 in `narrow`.
  const json tie = claim("tie", "none", {{"a", 0.9}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(tie, {planted("x+conv", 6, 12), planted("x", 7, 12)}).verdict, ClaimOutcome::kReproduced);
  const json narrow = claim("tie", "none", {{"a", 0.5}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(narrow, {planted("x+conv", 2, 3), planted("x", 2, 3)}).verdict, ClaimOutcome::kUndecided);
  EXPECT_EQ(verdict_of(narrow, {planted("x+conv", 12, 12), planted("x", 1, 12)}).verdict, ClaimOutcome::kContradicted);
  // A gap the test finds (12/12 vs 5/12, Fisher p < 0.01) that the margin 0.7 still allows: not a contradiction.
  const ClaimVerdict gap = verdict_of(tie, {planted("x+conv", 12, 12), planted("x", 5, 12)});
  EXPECT_LT(gap.comparisons[0].p_opposite, 0.01);
  EXPECT_NE(gap.verdict, ClaimOutcome::kContradicted);
}

TEST(Verify, PerDepthNotLessWithHolm) {
  json c = claim("armed", "not-less", {{"a", 0.3}, {"b", 0.8}});  // margin 0.5
  c["over"] = "length";
  // Equal at two depths, armed far worse at the third: contradicted.
  auto v = verdict_of(c, {planted("x+conv", 9, 10, 16), planted("x", 9, 10, 16), planted("x+conv", 5, 10, 32),
                          planted("x", 5, 10, 32), planted("x+conv", 0, 10, 64), planted("x", 10, 10, 64)});
  EXPECT_EQ(v.verdict, ClaimOutcome::kContradicted);
  ASSERT_EQ(v.comparisons.size(), 3u);
  EXPECT_EQ(v.comparisons[0].depth, 16);  // ordered by depth
  EXPECT_GE(v.comparisons[2].p_opposite_adj, v.comparisons[2].p_opposite);
  v = verdict_of(c, {planted("x+conv", 9, 10, 16), planted("x", 9, 10, 16), planted("x+conv", 10, 10, 32),
                     planted("x", 5, 10, 32)});
  EXPECT_EQ(v.verdict, ClaimOutcome::kReproduced);
}

TEST(Verify, SeedsNeededComeFromTheLimitingDepth) {
  // A tie over lengths: at 16 both arms lock in every seed (the ceiling, left out), at 32 they are in the lottery
  // (4/6 vs 6/6). The seeds needed are the lottery depth's, not the ceiling's (which would say "6": as many as
  // there are, with power 0 beside it).
  json c = claim("tie", "none", {{"a", 0.6}, {"b", 0.9}});  // margin 0.3
  c["over"] = "length";
  const ClaimVerdict v =
      verdict_of(c, {planted("x+conv", 6, 6, 16), planted("x", 6, 6, 16), planted("x+conv", 4, 6, 32), planted("x", 6, 6, 32)});
  ASSERT_EQ(v.comparisons.size(), 2u);
  EXPECT_FALSE(v.comparisons[0].informative());
  EXPECT_EQ(v.verdict, ClaimOutcome::kUndecided);
  json alone = c;
  alone.erase("over");
  const ClaimVerdict one = verdict_of(alone, {planted("x+conv", 4, 6, 32), planted("x", 6, 6, 32)});
  EXPECT_GT(v.seeds_needed, 6);
  EXPECT_GE(v.seeds_needed, one.seeds_needed);  // the same depth, judged at alpha / 1 (Holm's first step: alpha)
}

TEST(Verify, MannWhitneyOnRecall) {
  const json c = claim("recall", "greater", {{"shift", 0.3}}, "mann-whitney");
  // No seed locks in on either side, but a recalls 0.6.. and b 0.2..: reproduced on recall.
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.6), planted("x", 0, 10, 64, 0.2)}).verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.2), planted("x", 0, 10, 64, 0.6)}).verdict, ClaimOutcome::kContradicted);
  // Both arms well above the floor and equal: the claimed size is not reproduced.
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.5), planted("x", 0, 10, 64, 0.5)}).verdict,
            ClaimOutcome::kSizeNotReproduced);
}

// `n` seeds recalling `recall[i]` (best accuracy the same), the first `locked` of them locked in at 0.9.
Config arm(const std::string& cell, const std::vector<double>& recall, int64_t locked = 0, json task_options = nullptr) {
  Config c = planted(cell, 0, static_cast<int64_t>(recall.size()));
  if (!task_options.is_null()) c.task_options = task_options;
  json train = c.train();
  train["threshold"] = 0.9;
  c.set_train(train);
  for (size_t i = 0; i < recall.size(); ++i) {
    c.seeds[i].final_accuracy = c.seeds[i].best_accuracy = recall[i];
    c.seeds[i].reached_threshold = static_cast<int64_t>(i) < locked;
  }
  return c;
}

std::vector<double> around(double centre, int n, double step = 0.004) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(centre + step * (i - n / 2));
  return out;
}

TEST(Verify, EquivalenceOnRecall) {
  const json tie = claim("tie", "none", {{"shift", 0.15}}, "mann-whitney");
  // 20 seeds a side, the same recalls up to 0.01: the interval sits inside ±0.15 and the power is high.
  const ClaimVerdict same = verdict_of(tie, {arm("x+conv", around(0.61, 20)), arm("x", around(0.60, 20))});
  EXPECT_EQ(same.verdict, ClaimOutcome::kReproduced);
  EXPECT_GE(same.power, 0.8);
  // A gap of 0.08, significant (Mann–Whitney p < 0.001) but inside the margin: reproduced or undecided,
  // never contradicted.
  const ClaimVerdict inside = verdict_of(tie, {arm("x+conv", around(0.68, 10)), arm("x", around(0.60, 10))});
  EXPECT_LT(inside.comparisons[0].p_opposite, 0.001);
  EXPECT_NE(inside.verdict, ClaimOutcome::kContradicted);
  // A gap of 0.30: outside the margin.
  EXPECT_EQ(verdict_of(tie, {arm("x+conv", around(0.90, 10)), arm("x", around(0.60, 10))}).verdict, ClaimOutcome::kContradicted);
}

TEST(Verify, FloorAndCeilingAreNotInformative) {
  const json lock = claim("lock", "greater", {{"a", 0.9}, {"b", 0.1}});
  EXPECT_EQ(verdict_of(lock, {planted("x+conv", 0, 10), planted("x", 0, 10)}).verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(verdict_of(lock, {planted("x+conv", 10, 10), planted("x", 10, 10)}).verdict, ClaimOutcome::kNotInformative);
  const json tie = claim("tie", "none", {{"a", 0.9}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(tie, {planted("x+conv", 0, 10), planted("x", 0, 10)}).verdict, ClaimOutcome::kNotInformative);
  const json recall = claim("recall", "none", {{"shift", 0.15}}, "mann-whitney");
  // No seed learns: best recalls 0.07..0.18 against the floor of half the threshold (0.45).
  const ClaimVerdict floor = verdict_of(recall, {arm("x+conv", around(0.07, 10, 0.01)), arm("x", around(0.14, 10, 0.01))});
  EXPECT_EQ(floor.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(floor).find("floor"), std::string::npos);
  // One seed of ten learning does not lift an arm off the floor: most seeds of both still fail, so the
  // medians compare failures. With six learners in one arm the comparison means something.
  std::vector<double> one = around(0.07, 10, 0.01), six = around(0.07, 10, 0.01);
  one[9] = 0.73;
  for (int i = 0; i < 6; ++i) six[i] = 0.7 + 0.01 * i;
  EXPECT_EQ(verdict_of(recall, {arm("x+conv", one), arm("x", around(0.14, 10, 0.01))}).verdict, ClaimOutcome::kNotInformative);
  const json greater = claim("greater", "greater", {{"shift", 0.15}}, "mann-whitney");
  EXPECT_NE(verdict_of(greater, {arm("x+conv", six), arm("x", around(0.14, 10, 0.01))}).verdict, ClaimOutcome::kNotInformative);
  // The same data as a tie, or as "a not worse than b": b fails the task, so neither says anything (issue 45);
  // with b learning as well, "not worse" is tested.
  const ClaimVerdict vs_failing = verdict_of(recall, {arm("x+conv", six), arm("x", around(0.14, 10, 0.01))});
  EXPECT_EQ(vs_failing.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(vs_failing).find("the comparator fails the task: 10/10 seeds of b never learn"), std::string::npos)
      << claim_note(vs_failing);
  const json not_less = claim("not-less", "not-less", {{"shift", 0.15}}, "mann-whitney");
  EXPECT_EQ(verdict_of(not_less, {arm("x+conv", six), arm("x", around(0.14, 10, 0.01))}).verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(verdict_of(not_less, {arm("x+conv", six), arm("x", six)}).verdict, ClaimOutcome::kNotInformative);
  const json lock_tie = claim("lock-tie", "none", {{"a", 0.7}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(lock_tie, {planted("x+conv", 5, 10), planted("x", 0, 10)}).verdict, ClaimOutcome::kNotInformative);
  // A claim may set its own floor (e.g. chance on a task with few classes).
  json low_floor = recall;
  low_floor["floor"] = 0.05;
  EXPECT_NE(verdict_of(low_floor, {arm("x+conv", around(0.07, 10, 0.01)), arm("x", around(0.14, 10, 0.01))}).verdict,
            ClaimOutcome::kNotInformative);
  // Most seeds of both arms lock in (runs stop there): a recall tie or gap there is not informative.
  const ClaimVerdict ceiling = verdict_of(recall, {arm("x+conv", around(0.93, 10), 9), arm("x", around(0.95, 10), 10)});
  EXPECT_EQ(ceiling.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(ceiling).find("ceiling"), std::string::npos);
}

// A floor whose runs were still improving when the budget ended is the schedule's: not informative
// (budget-limited), with the pilot's steps; the same floor on flat curves stays a plain floor.
TEST(Verify, AFloorOfBudgetLimitedRunsIsNotInformativeBudgetLimited) {
  const json lock = claim("lock", "greater", {{"a", 0.9}, {"b", 0.1}});
  const auto with_curves = [](Config c, bool rising) {
    for (auto& s : c.seeds) {
      s.curve.clear();
      for (int64_t step = 25; step <= 1000; step += 25)  // 40 evaluations: 13 in the last third
        s.curve.push_back({step, rising ? 0.05 + 0.5 * step / 1000.0 : 0.1, rising ? 3.0 - 1.5 * step / 1000.0 : 2.0});
    }
    return c;
  };
  const ClaimVerdict limited =
      verdict_of(lock, {with_curves(planted("x+conv", 0, 10), true), with_curves(planted("x", 0, 10), false)});
  EXPECT_EQ(limited.verdict, ClaimOutcome::kNotInformative);
  ASSERT_EQ(limited.comparisons.size(), 1u);
  EXPECT_EQ(limited.comparisons[0].reason, judge::DepthReason::kBudgetLimited);
  EXPECT_EQ(limited.comparisons[0].suggested_steps, 2000);
  EXPECT_NE(claim_note(limited).find("budget-limited"), std::string::npos) << claim_note(limited);
  const ClaimVerdict flat =
      verdict_of(lock, {with_curves(planted("x+conv", 0, 10), false), with_curves(planted("x", 0, 10), false)});
  EXPECT_EQ(flat.comparisons.at(0).reason, judge::DepthReason::kFloor);
  // A floor of labelled runs says what they were doing; one stored without curves says nothing of it.
  EXPECT_NE(claim_note(flat).find("when the budget ended: a plateaued 10, b plateaued 10 (the floor is not the "
                                  "schedule's)"),
            std::string::npos)
      << claim_note(flat);
  const ClaimVerdict stored = verdict_of(lock, {planted("x+conv", 0, 10), planted("x", 0, 10)});
  EXPECT_EQ(stored.comparisons.at(0).reason, judge::DepthReason::kFloor);
  EXPECT_EQ(claim_note(stored).find("when the budget ended"), std::string::npos) << claim_note(stored);
  // Curves too sparse for the rule (an evaluation every 100 of 1000 steps: 3 in the last third) say so.
  const auto sparse = [](Config c) {
    for (auto& s : c.seeds) {
      s.curve.clear();
      for (int64_t step = 100; step <= 1000; step += 100) s.curve.push_back({step, 0.1, 2.0});
    }
    return c;
  };
  const ClaimVerdict undiagnosed = verdict_of(lock, {sparse(planted("x+conv", 0, 10)), sparse(planted("x", 0, 10))});
  EXPECT_EQ(undiagnosed.comparisons.at(0).reason, judge::DepthReason::kFloor);
  EXPECT_NE(claim_note(undiagnosed).find("not diagnosed (20 of 20 seeds were evaluated too rarely"),
            std::string::npos)
      << claim_note(undiagnosed);
}

// A verdict that rests on an arm not doing better, where that arm was still learning, is the schedule's (issue
// 59): "a no better than b" reproduced with a budget-limited a, and "a beats b" contradicted with a budget-limited
// a, are not informative (budget-limited), the tests' verdict kept; "a beats b" reproduced stands, and so does
// the same "no better" verdict on flat curves.
TEST(Verify, AVerdictRestingOnAnArmStillLearningIsNotInformative) {
  const auto with_curves = [](Config c, bool rising) {
    for (auto& s : c.seeds) {
      if (s.locked_in()) continue;
      s.curve.clear();
      for (int64_t step = 25; step <= 1000; step += 25)
        s.curve.push_back({step, rising ? 0.05 + 0.5 * step / 1000.0 : 0.1, rising ? 3.0 - 1.5 * step / 1000.0 : 2.0});
    }
    return c;
  };
  const json no_better = claim("no-better", "not-greater", {{"a", 0.5}, {"b", 0.2}});  // margin 0.3
  const ClaimVerdict limited =
      verdict_of(no_better, {with_curves(planted("x+conv", 1, 12), true), with_curves(planted("x", 10, 12), false)});
  EXPECT_EQ(limited.verdict, ClaimOutcome::kNotInformative) << claim_note(limited);
  EXPECT_EQ(limited.reason, judge::ClaimReason::kBudgetLimited);
  ASSERT_TRUE(limited.capped_from.has_value());
  EXPECT_EQ(*limited.capped_from, ClaimOutcome::kReproduced);
  EXPECT_EQ(limited.suggested_steps, 2000);
  EXPECT_NE(claim_note(limited).find("not informative (budget-limited): the tests alone say \"reproduced\""),
            std::string::npos)
      << claim_note(limited);
  const ClaimVerdict flat =
      verdict_of(no_better, {with_curves(planted("x+conv", 1, 12), false), with_curves(planted("x", 10, 12), false)});
  EXPECT_EQ(flat.verdict, ClaimOutcome::kReproduced) << claim_note(flat);
  const json beats = claim("beats", "greater", {{"a", 0.7}, {"b", 0.1}});
  const ClaimVerdict lost =
      verdict_of(beats, {with_curves(planted("x+conv", 0, 10), true), with_curves(planted("x", 7, 10), false)});
  EXPECT_EQ(lost.verdict, ClaimOutcome::kNotInformative) << claim_note(lost);
  EXPECT_EQ(*lost.capped_from, ClaimOutcome::kContradicted);
  const ClaimVerdict won =
      verdict_of(beats, {with_curves(planted("x+conv", 8, 10), false), with_curves(planted("x", 0, 10), true)});
  EXPECT_EQ(won.verdict, ClaimOutcome::kReproduced) << claim_note(won);
}

TEST(Verify, TwoSidedClaim) {
  // The preprint's 7/10 vs 1/10 at p = 0.02, two-sided Fisher: reproduced at alpha 0.05 two-sided.
  json c = claim("lottery", "greater", {{"a", 0.7}, {"b", 0.1}});
  c["sided"] = 2;
  const ClaimVerdict v = verdict_of(c, {planted("x+conv", 7, 10), planted("x", 1, 10)});
  EXPECT_NEAR(v.comparisons[0].p_expected, 0.0198, 1e-3);
  EXPECT_EQ(v.verdict, ClaimOutcome::kReproduced);
  // The same test on the other side of the data is not "reproduced": it contradicts.
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 1, 10), planted("x", 7, 10)}).verdict, ClaimOutcome::kContradicted);
  // Two-sided power counts only the expected side and is below the one-sided power.
  json one = c;
  one.erase("sided");
  const ClaimVerdict one_sided = verdict_of(one, {planted("x+conv", 7, 10), planted("x", 1, 10)});
  EXPECT_LT(v.power, one_sided.power);
  // The interval's level follows the test: 95% beside the two-sided 5% test, 90% beside the one-sided one.
  EXPECT_DOUBLE_EQ(v.comparisons[0].interval_level, 0.95);
  EXPECT_DOUBLE_EQ(one_sided.comparisons[0].interval_level, 0.90);
  EXPECT_LT(v.comparisons[0].low, one_sided.comparisons[0].low);
  EXPECT_GT(v.comparisons[0].high, one_sided.comparisons[0].high - 1e-12);
  EXPECT_NE(claim_note(v).find("95% Newcombe interval"), std::string::npos) << claim_note(v);
  json bad = claim("tie", "none", {{"a", 0.9}, {"b", 0.2}});
  bad["sided"] = 2;
  EXPECT_THROW(claims({bad}), UsageError);
  // Not 1 or 2, however it is written: refused, never converted (ci/fuzz found 3.3e39 cast to int).
  for (const json& odd : {json(3.33e39), json(1.5), json(-1), json(4294967297LL), json("2"), json(nullptr)}) {
    json weird = c;
    weird["sided"] = odd;
    EXPECT_THROW(claims({weird}), UsageError) << odd.dump();
  }
  json as_float = c;
  as_float["sided"] = 2.0;  // the same number as 2
  EXPECT_EQ(verdict_of(as_float, {planted("x+conv", 7, 10), planted("x", 1, 10)}).verdict, ClaimOutcome::kReproduced);
}

TEST(Verify, DirectionReproducedSizeNot) {
  // a beats b by 0.05 on tight recalls (significant), claimed +0.5: the interval ends far below 0.5.
  const json c = claim("size", "greater", {{"shift", 0.5}}, "mann-whitney");
  const ClaimVerdict v = verdict_of(c, {arm("x+conv", around(0.65, 10)), arm("x", around(0.60, 10))});
  EXPECT_EQ(v.verdict, ClaimOutcome::kDirectionOnly);
  EXPECT_LT(v.comparisons[0].high, 0.5);
  // At the claimed size it is reproduced.
  EXPECT_EQ(verdict_of(c, {arm("x+conv", around(0.95, 10)), arm("x", around(0.45, 10))}).verdict, ClaimOutcome::kReproduced);
}

TEST(Verify, ThresholdSensitivity) {
  // Stated threshold 0.9: 2/10 vs 0/10; at 0.8 six of a's seeds had reached it: 6/10 vs 0/10.
  const json c = claim("lock", "greater", {{"a", 0.7}, {"b", 0.1}});
  Config a = arm("x+conv", {0.95, 0.93, 0.85, 0.84, 0.83, 0.82, 0.3, 0.3, 0.3, 0.3}, 2);
  Config b = arm("x", around(0.3, 10));
  const ClaimVerdict v = verdict_of(c, {a, b});
  ASSERT_FALSE(v.comparisons[0].sensitivity.empty());
  const auto& at = v.comparisons[0].sensitivity;
  EXPECT_DOUBLE_EQ(at[0].threshold, 0.9);
  EXPECT_EQ(at[0].k_a, 2);
  EXPECT_NEAR(at[1].threshold, 0.8, 1e-12);
  EXPECT_EQ(at[1].k_a, 6);
  EXPECT_EQ(at[1].k_b, 0);
  EXPECT_NEAR(at.back().threshold, 0.5, 1e-9);
  EXPECT_NE(sensitivity_note(v).find("hangs on the threshold"), std::string::npos);
}

TEST(Verify, VacuousDenseOnZeroFiller) {
  const json c = claim("dense", "none", {{"shift", 0.15}}, "mann-whitney");
  const json sparse = {{"pairs", 8}, {"length", 64}, {"vocab", 64}, {"filler", "zero"}};
  json dense = sparse;
  dense["supervision"] = "dense";
  const ClaimVerdict v = verdict_of(c, {arm("x+conv", around(0.6, 10), 0, dense), arm("x", around(0.6, 10), 0, sparse)});
  EXPECT_EQ(v.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(v).find("vacuous"), std::string::npos);
  json random_dense = dense, random_sparse = sparse;
  random_dense["filler"] = random_sparse["filler"] = "random";
  EXPECT_NE(verdict_of(c, {arm("x+conv", around(0.6, 10), 0, random_dense), arm("x", around(0.6, 10), 0, random_sparse)})
                .verdict,
            ClaimOutcome::kNotInformative);
}

json one_arm(const std::string& id, const std::string& statistic, json effect) {
  return {{"id", id}, {"claim", "one arm"}, {"a", {{"cell", "x"}, {"task", "mqar"}}}, {"statistic", statistic},
          {"effect", effect}};
}

TEST(Verify, LotteryShareInBetween) {
  const json c = one_arm("lottery", "lottery", {{"middle", 0.3}});
  // 5 lock in, 5 stay near 0.1 (below the floor 0.45): nothing in between, 0.7^10 = 0.028 < 0.05.
  std::vector<double> split = around(0.1, 10, 0.005);
  for (int i = 0; i < 5; ++i) split[i] = 0.95;
  const ClaimVerdict clean = verdict_of(c, {arm("x", split, 5)});
  EXPECT_EQ(clean.verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(clean.comparisons[0].k_a, 0);
  // 3 lock in, 6 sit at 0.67-0.88: in between, far above a 0.3 share.
  const ClaimVerdict middle = verdict_of(c, {arm("x", {0.95, 0.93, 0.92, 0.88, 0.85, 0.82, 0.81, 0.7, 0.67, 0.05}, 3)});
  EXPECT_EQ(middle.verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(middle.comparisons[0].k_a, 6);
  // Every seed locks in, or none learns: not informative; too few seeds: undecided with the seeds needed.
  EXPECT_EQ(verdict_of(c, {arm("x", around(0.95, 10), 10)}).verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(verdict_of(c, {arm("x", around(0.1, 10))}).verdict, ClaimOutcome::kNotInformative);
  const ClaimVerdict few = verdict_of(c, {arm("x", {0.95, 0.1, 0.1, 0.1, 0.1}, 1)});
  EXPECT_EQ(few.verdict, ClaimOutcome::kUndecided);
  EXPECT_EQ(few.seeds_needed, 9);  // 0.7^9 = 0.040 <= 0.05 < 0.7^8
}

TEST(Verify, AtMostARecallLevel) {
  json c = one_arm("chance", "at-most", {{"recall", 0.2}});
  EXPECT_EQ(verdict_of(c, {arm("x", around(0.08, 10, 0.01))}).verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(verdict_of(c, {arm("x", around(0.6, 10, 0.01))}).verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(verdict_of(c, {arm("x", {0.1, 0.1, 0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.3, 0.3})}).verdict, ClaimOutcome::kUndecided);
  c["over"] = "length";  // at every length, Holm over them
  const ClaimVerdict flat = verdict_of(c, {arm("x", around(0.08, 10, 0.01), 0, {{"pairs", 4}, {"length", 64}}),
                                           arm("x", around(0.07, 10, 0.01), 0, {{"pairs", 4}, {"length", 128}})});
  EXPECT_EQ(flat.verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(flat.comparisons.size(), 2u);
  json least = one_arm("solves", "at-least", {{"recall", 0.5}});  // the mirror: most seeds at or above 0.5
  EXPECT_EQ(verdict_of(least, {arm("x", around(0.8, 10, 0.01))}).verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(verdict_of(least, {arm("x", around(0.1, 10, 0.01))}).verdict, ClaimOutcome::kContradicted);
  json two = c;
  two["b"] = {{"cell", "y"}, {"task", "mqar"}};
  EXPECT_THROW(claims({two}), UsageError);  // one side only
}

TEST(Verify, AllOfIsTheConjunction) {
  const json up = claim("up", "greater", {{"a", 0.9}, {"b", 0.1}});
  json tie = claim("tie", "none", {{"a", 0.7}, {"b", 0.2}});  // margin 0.5
  tie["a"]["cell"] = "x";
  tie["b"]["cell"] = "z";
  const json both = {{"id", "both"}, {"claim", "no class claim survives"}, {"statistic", "all-of"}, {"of", {"up", "tie"}}};
  static ClaimSet keep;
  keep = claims({up, tie, both});
  auto v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10), planted("z", 1, 10)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kReproduced);
  v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10), planted("z", 10, 10)})});
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kContradicted);
  EXPECT_NE(claim_note(v[2]).find("tie: contradicted"), std::string::npos);
  v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10)})});
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kNotRun);
  // The weakest informative part decides: an undecided part beside a not-informative one (both arms at the
  // floor) is undecided, not hidden as "not informative"; a reproduced part beside one does not make it reproduced.
  json few = tie;
  few["a"]["cell"] = "w";
  static ClaimSet mixed;
  mixed = claims({up, few, both});
  v = verify_claims(mixed, {runs({planted("x+conv", 0, 4), planted("x", 0, 4), planted("w", 1, 2), planted("z", 1, 2)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kUndecided);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kUndecided);
  v = verify_claims(mixed, {runs({planted("x+conv", 0, 4), planted("x", 0, 4), planted("w", 5, 10), planted("z", 5, 10)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kNotInformative);
  json dangling = both;
  dangling["of"] = {"up", "missing"};
  EXPECT_THROW(claims({up, tie, dangling}), UsageError);
  json nested = both;
  nested["id"] = "again";
  nested["of"] = {"both"};
  EXPECT_THROW(claims({up, tie, both, nested}), UsageError);
}

// Issue 45's rules, each on constructed data.

// `locked` seeds locked in at 0.92..., the rest never learning (0.05...): a lottery-shaped arm.
Config bimodal(const std::string& cell, int64_t locked, int64_t n) {
  std::vector<double> r;
  for (int64_t i = 0; i < n; ++i) r.push_back(i < locked ? 0.92 + 0.001 * i : 0.05 + 0.002 * i);
  return arm(cell, r, locked);
}

TEST(Verify, BimodalArmsAreNotFloorsAndTheirTiesAreOnLockInCounts) {
  const json tie = claim("tie", "none", {{"shift", 0.15}}, "mann-whitney");
  // 4 of 10 lock in and 6 never learn, in both arms: most seeds "never learn", yet this is no floor (the old rule
  // said so); the tie is judged on lock-in rates, margin 0.3, where 10 seeds a side are too few.
  const ClaimVerdict ten = verdict_of(tie, {bimodal("x+conv", 4, 10), bimodal("x", 4, 10)});
  ASSERT_EQ(ten.comparisons.size(), 1u);
  EXPECT_TRUE(ten.comparisons[0].informative());
  EXPECT_TRUE(ten.comparisons[0].on_lock_in);
  EXPECT_DOUBLE_EQ(ten.comparisons[0].size, 0.3);
  EXPECT_EQ(ten.verdict, ClaimOutcome::kUndecided);
  EXPECT_NE(claim_note(ten).find("Newcombe"), std::string::npos) << claim_note(ten);
  EXPECT_NE(claim_note(ten).find("lottery-shaped"), std::string::npos) << claim_note(ten);
  // 40 seeds a side at the same rates: the interval lies inside ±0.3.
  EXPECT_EQ(verdict_of(tie, {bimodal("x+conv", 16, 40), bimodal("x", 16, 40)}).verdict, ClaimOutcome::kReproduced);
  // 9/10 against 2/10: outside the margin, whatever the medians say.
  EXPECT_EQ(verdict_of(tie, {bimodal("x+conv", 9, 10), bimodal("x", 2, 10)}).verdict, ClaimOutcome::kContradicted);
  // The margin is the claim's to set.
  json wide = tie;
  wide["effect"]["lock_in_margin"] = 0.6;
  EXPECT_DOUBLE_EQ(verdict_of(wide, {bimodal("x+conv", 4, 10), bimodal("x", 4, 10)}).comparisons[0].size, 0.6);
  // A comparator that never locks in still fails the task.
  EXPECT_EQ(verdict_of(tie, {bimodal("x+conv", 4, 10), arm("x", around(0.05, 10))}).verdict, ClaimOutcome::kNotInformative);
  // A directional claim on the same arms stays on recall (ranks handle two modes).
  const json greater = claim("greater", "greater", {{"shift", 0.3}}, "mann-whitney");
  const ClaimVerdict up = verdict_of(greater, {bimodal("x+conv", 9, 10), bimodal("x", 2, 10)});
  EXPECT_FALSE(up.comparisons[0].on_lock_in);
  EXPECT_TRUE(up.comparisons[0].informative());
  // Without a single lock-in, most seeds failing is still a floor.
  EXPECT_EQ(verdict_of(tie, {arm("x+conv", around(0.07, 10, 0.01)), arm("x", around(0.1, 10, 0.01))}).verdict,
            ClaimOutcome::kNotInformative);
}

TEST(Verify, AProxyIsAtMostReproducedOnAProxy) {
  json up = claim("up", "greater", {{"a", 0.9}, {"b", 0.1}});
  up["proxy"] = "S_3, not S_5";
  up["setting"] = "S_3 at lengths 8 and 16";
  up["preset"] = json::array({"seed-claims", "seed-claims-1layer"});
  const json down = claim("down", "greater", {{"a", 0.9}, {"b", 0.1}});
  const json both = {{"id", "both"}, {"claim", "the conv helps, twice"}, {"statistic", "all-of"}, {"of", {"up", "down"}}};
  static ClaimSet keep;
  keep = claims({up, down, both});
  const auto v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kReproducedOnProxy);
  EXPECT_STREQ(judge::claim_outcome_name(v[0].verdict), "reproduced on a proxy");
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kReproducedOnProxy);  // as strong as its weakest part
  // A proxy that fails is never upgraded, and its negative verdict is capped as its "reproduced" is (issue 61):
  // not informative, with the tests' own verdict kept.
  const auto failed = verify_claims(keep, {runs({planted("x+conv", 0, 10), planted("x", 10, 10)})});
  EXPECT_EQ(failed[0].verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(failed[0].reason, judge::ClaimReason::kProxyNegative);
  ASSERT_TRUE(failed[0].capped_from.has_value());
  EXPECT_EQ(*failed[0].capped_from, ClaimOutcome::kContradicted);
  EXPECT_NE(claim_note(failed[0]).find("the tests alone say \"contradicted\""), std::string::npos) << claim_note(failed[0]);
  EXPECT_EQ(failed[1].verdict, ClaimOutcome::kContradicted);  // the same data, no proxy
  // The table shows the setting, the proxy and the commands; the JSON the same, typed.
  const std::string md = verdicts_markdown(v);
  EXPECT_NE(md.find("S_3 at lengths 8 and 16"), std::string::npos) << md;
  EXPECT_NE(md.find("**proxy**: S_3, not S_5"), std::string::npos) << md;
  EXPECT_NE(md.find("`recallbench run --battery seed-claims-1layer`"), std::string::npos) << md;
  const json doc = verdicts_json(keep, v);
  EXPECT_EQ(doc["verdicts"][0]["proxy"], "S_3, not S_5");
  EXPECT_TRUE(doc["verdicts"][1]["proxy"].is_null());
  EXPECT_EQ(doc["verdicts"][0]["remake"].size(), 2u);
  // A gated proxy that is reproduced passes its gate.
  json gated = up;
  gated["gate"] = true;
  static ClaimSet g;
  g = claims({gated});
  EXPECT_EQ(verify_exit_code(verify_claims(g, {runs({planted("x+conv", 10, 10), planted("x", 0, 10)})})), 0);
}

TEST(Verify, ObservationsAreReportedApartAndNotGraded) {
  // The decay-axis case: 3/10 vs 9/10, which the source never claims; shown with its two-sided test.
  json seen = claim("seen", "none", {{"a", 0.6}, {"b", 0.9}});
  seen["observation"] = true;
  const ClaimVerdict v = verdict_of(seen, {planted("x+conv", 3, 10), planted("x", 9, 10)});
  EXPECT_EQ(v.verdict, ClaimOutcome::kObserved);
  EXPECT_NEAR(v.comparisons[0].p_expected, 0.0198, 1e-3);
  EXPECT_DOUBLE_EQ(v.comparisons[0].interval_level, 0.95);
  EXPECT_NE(claim_note(v).find("not graded"), std::string::npos) << claim_note(v);
  static ClaimSet keep;
  keep = claims({claim("graded", "greater", {{"a", 0.9}, {"b", 0.1}}), seen});
  const auto both = verify_claims(keep, {runs({planted("x+conv", 3, 10), planted("x", 9, 10)})});
  const std::string md = verdicts_markdown(both);
  const size_t heading = md.find("Observations (not claims of the source; not graded)");
  ASSERT_NE(heading, std::string::npos) << md;
  EXPECT_LT(md.find("`graded`"), heading);
  EXPECT_GT(md.find("`seen`"), heading);
  EXPECT_EQ(verdicts_json(keep, both)["verdicts"][1]["graded"], false);
  // No verdict rests on an observation, and none gates.
  const json all = {{"id", "all"}, {"claim", "x"}, {"statistic", "all-of"}, {"of", {"seen"}}};
  EXPECT_THROW(claims({seen, all}), UsageError);
  json gate = seen;
  gate["gate"] = true;
  EXPECT_THROW(claims({gate}), UsageError);
  json directed = claim("dir", "greater", {{"a", 0.9}, {"b", 0.1}});
  directed["observation"] = true;
  EXPECT_THROW(claims({directed}), UsageError);
}

TEST(Verify, ChanceComesFromTheTask) {
  // mqar with 64 tokens: 32 values, chance 1/32; "at chance" within 0.05 is recall at most 0.08125.
  const json c = one_arm("chance", "at-most", {{"above_chance", 0.05}});
  static ClaimSet keep;
  keep = claims({c});
  const judge::ChanceOf chance = [](const Config& config) -> std::optional<double> {
    return 1.0 / static_cast<double>(config.task_options.at("vocab").get<int64_t>() / 2);
  };
  const auto at_chance = verify_claims(keep, {runs({arm("x", around(0.04, 10, 0.002))})}, chance).at(0);
  EXPECT_EQ(at_chance.verdict, ClaimOutcome::kReproduced);
  EXPECT_DOUBLE_EQ(at_chance.comparisons[0].chance, 1.0 / 32);
  EXPECT_DOUBLE_EQ(at_chance.comparisons[0].level, 1.0 / 32 + 0.05);
  EXPECT_NE(claim_note(at_chance).find("the task's chance 0.031 + 0.05"), std::string::npos) << claim_note(at_chance);
  // 0.2 is far below the old fixed 0.45 "floor" but six times chance: not at chance.
  EXPECT_EQ(verify_claims(keep, {runs({arm("x", around(0.2, 10, 0.002))})}, chance).at(0).verdict,
            ClaimOutcome::kContradicted);
  // A task without a chance level cannot set the level.
  EXPECT_THROW(verify_claims(keep, {runs({arm("x", around(0.04, 10))})}), UsageError);
  json both = c;
  both["effect"]["recall"] = 0.2;
  EXPECT_THROW(claims({both}), UsageError);
}

TEST(Verify, ASizeEarlyStoppingHidesIsJudgedOnItsObservablePart) {
  // "0.021 → 1.000" while training stops at 0.9: only 0.879 of the quoted 0.979 can be observed.
  json c = claim("curriculum", "greater", {{"shift", 0.979}}, "mann-whitney");
  const std::vector<Config> data = {arm("x+conv", around(0.92, 10), 10), arm("x", around(0.02, 10, 0.001))};
  EXPECT_EQ(verdict_of(c, data).verdict, ClaimOutcome::kDirectionOnly);  // the unobservable size "ruled out"
  c["effect"]["quoted"] = {{"a", 1.0}, {"b", 0.021}};
  const ClaimVerdict v = verdict_of(c, data);
  EXPECT_TRUE(v.comparisons[0].size_capped);
  EXPECT_NEAR(v.comparisons[0].size, 0.879, 1e-9);
  EXPECT_EQ(v.verdict, ClaimOutcome::kReproduced);
  EXPECT_NE(claim_note(v).find("training stops at recall 0.90"), std::string::npos) << claim_note(v);
}

TEST(Verify, AClaimWhosePremiseFailsIsNotInformative) {
  // "Cells that solve 8-pair recall beat x": the premise (x+conv solves it: at least recall 0.9) and the claim.
  json solves = one_arm("solves", "at-least", {{"recall", 0.9}});
  solves["a"]["cell"] = "x+conv";
  json beats = claim("beats", "greater", {{"a", 0.9}, {"b", 0.1}});
  beats["premise"] = "solves";
  static ClaimSet keep;
  keep = claims({solves, beats});
  auto v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kReproduced);
  // x+conv locks in 4 of 10: the premise is not shown, so "beats" is not informative though its own test passes
  // (4/10 vs 0/10 would otherwise read as a claim about cells that do not solve the task).
  v = verify_claims(keep, {runs({planted("x+conv", 4, 10), planted("x", 0, 10)})});
  EXPECT_NE(v[0].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(v[1].reason, judge::ClaimReason::kPremiseUnmet);
  EXPECT_NE(claim_note(v[1]).find("the premise is not met: solves is"), std::string::npos) << claim_note(v[1]);
  EXPECT_FALSE(v[1].comparisons.empty());  // its own test stays on record
  // A premise that names nothing, an all-of, or a claim with a premise of its own is refused.
  json dangling = beats;
  dangling["premise"] = "missing";
  EXPECT_THROW(claims({solves, dangling}), UsageError);
  json chained = solves;
  chained["id"] = "chained";
  chained["premise"] = "beats";
  EXPECT_THROW(claims({solves, beats, chained}), UsageError);
}

TEST(Verify, AnAllOfLeavesOutPartsWhosePremiseIsContradicted) {
  // "Cells that solve 32-pair recall degrade gracefully": per cell a premise (it solves: at least recall 0.9) and
  // its load claim (at least 0.45); the all-of over the cells. A cell shown not to solve it is not one the
  // sentence speaks of: its part drops out. A cell whose premise is merely undecided still blocks the conjunction.
  std::vector<json> list;
  for (const std::string cell : {"y", "w"}) {
    json solves = one_arm("solves-" + cell, "at-least", {{"recall", 0.9}});
    solves["a"]["cell"] = cell;
    json load = one_arm("load-" + cell, "at-least", {{"recall", 0.45}});
    load["a"]["cell"] = cell;
    load["premise"] = "solves-" + cell;
    list.push_back(solves), list.push_back(load);
  }
  list.push_back({{"id", "graceful"}, {"claim", "cells that solve it degrade gracefully"}, {"statistic", "all-of"},
                  {"of", {"load-y", "load-w"}}});
  static ClaimSet keep;
  keep = claims(list);
  // y solves it; w never learns (every seed below 0.9): its premise is contradicted, its part left out.
  auto v = verify_claims(keep, {runs({planted("y", 10, 10), planted("w", 0, 10)})});
  EXPECT_EQ(v[1].verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(v[3].verdict, ClaimOutcome::kNotInformative);
  EXPECT_EQ(v[4].verdict, ClaimOutcome::kReproducedOnSubset);  // issue 61: says a part was left out
  EXPECT_TRUE(v[4].parts[1].outside);
  EXPECT_NE(claim_note(v[4]).find("load-w: not informative (its premise is contradicted"), std::string::npos)
      << claim_note(v[4]);
  // w locks in 4 of 10: whether it solves the task is undecided, so its part is in scope and untested.
  v = verify_claims(keep, {runs({planted("y", 10, 10), planted("w", 4, 10)})});
  EXPECT_EQ(v[2].verdict, ClaimOutcome::kUndecided);
  EXPECT_FALSE(v[4].parts[1].outside);
  EXPECT_EQ(v[4].verdict, ClaimOutcome::kNotInformative);
  // Neither cell solves it: no cell is one the sentence speaks of.
  v = verify_claims(keep, {runs({planted("y", 0, 10), planted("w", 0, 10)})});
  EXPECT_EQ(v[4].verdict, ClaimOutcome::kNotInformative);
  // A premise not run keeps the conjunction not run.
  v = verify_claims(keep, {runs({planted("y", 10, 10)})});
  EXPECT_EQ(v[4].verdict, ClaimOutcome::kNotRun);
}

TEST(Verify, ArmsFromDifferentRecordingsAreNamed) {
  static ClaimSet keep;
  keep = claims({claim("up", "greater", {{"a", 0.9}, {"b", 0.1}})});
  RunSet a = runs({planted("x+conv", 10, 10)}), b = runs({planted("x", 0, 10)});
  a.source = "new.json", b.source = "old.json";
  a.commits = {"e12d78a0000000"}, b.commits = {"0901fd9aaaaaaa", "d7c1e60bbbbbbb-dirty"};
  a.context = {{"cpu_isa", "6/167/1 avx2"}}, b.context = {{"cpu_model", "AMD EPYC"}};
  const ClaimVerdict mixed = verify_claims(keep, {a, b}).at(0);
  EXPECT_TRUE(mixed.mixed_recordings);
  EXPECT_EQ(mixed.comparisons[0].recording_a, "commit e12d78a, 6/167/1");
  EXPECT_EQ(mixed.comparisons[0].recording_b, "commits 0901fd9 … (2), AMD EPYC");
  EXPECT_NE(claim_note(mixed).find("arms from different recordings"), std::string::npos) << claim_note(mixed);
  // One recording in two files is one recording.
  b.commits = a.commits, b.context = a.context;
  EXPECT_FALSE(verify_claims(keep, {a, b}).at(0).mixed_recordings);
  // A config recorded twice is read from the recording that holds both arms: `both` (listed first) has a and b,
  // `later` re-recorded a alone (all seeds failing there). Both arms come from `both`, so nothing is mixed and the
  // verdict is both's; with `later` holding b too, `later` (the last named) is read.
  RunSet both = runs({planted("x+conv", 10, 10), planted("x", 0, 10)}), later = runs({planted("x+conv", 0, 10)});
  both.commits = {"aaaaaaa"}, later.commits = {"bbbbbbb"};
  const ClaimVerdict one = verify_claims(keep, {both, later}).at(0);
  EXPECT_FALSE(one.mixed_recordings);
  EXPECT_EQ(one.comparisons[0].k_a, 10);
  later = runs({planted("x+conv", 0, 10), planted("x", 0, 10)});
  later.commits = {"bbbbbbb"};
  EXPECT_EQ(verify_claims(keep, {both, later}).at(0).comparisons[0].k_a, 0);
}

TEST(Verify, NotRunAndSelectors) {
  json c = claim("later", "greater", {{"a", 0.9}, {"b", 0.1}});
  c["needs"] = "length 1024 (about 40 core-hours)";
  const auto v = verdict_of(c, {planted("y", 1, 10)});
  EXPECT_EQ(v.verdict, ClaimOutcome::kNotRun);
  EXPECT_NE(claim_note(v).find("40 core-hours"), std::string::npos);
  // A side that matches two configs is bad input; train fields narrow it.
  const json loose = claim("loose", "greater", {{"a", 0.9}, {"b", 0.1}});
  EXPECT_THROW(verdict_of(loose, {planted("x+conv", 5, 10, 64, 0.2, "none"), planted("x+conv", 5, 10, 64, 0.2, "distance"),
                                  planted("x", 1, 10)}),
               UsageError);
  json narrow = loose;
  narrow["a"]["train"] = {{"curriculum", "distance"}};
  EXPECT_EQ(verdict_of(narrow, {planted("x+conv", 10, 10, 64, 0.2, "none"), planted("x+conv", 0, 10, 64, 0.2, "distance"),
                                planted("x", 10, 10)})
                .verdict,
            ClaimOutcome::kContradicted);
}

TEST(Verify, GatedClaimNotReproducedExitsOne) {
  json forward = claim("conv", "greater", {{"a", 0.9}, {"b", 0.1}});
  forward["gate"] = true;
  json reversed = forward;
  reversed["direction"] = "less";
  reversed["effect"] = {{"a", 0.1}, {"b", 0.9}};
  const std::vector<Config> data = {planted("x+conv", 10, 10), planted("x", 0, 10)};
  ClaimSet ok = claims({forward}), bad = claims({reversed});
  EXPECT_EQ(verify_exit_code(verify_claims(ok, {runs(data)})), 0);
  const auto v = verify_claims(bad, {runs(data)});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(verify_exit_code(v), 1);
}

TEST(Verify, BadClaimsFiles) {
  EXPECT_THROW(claims({claim("a", "sideways", {{"a", 0.9}, {"b", 0.1}})}), UsageError);
  EXPECT_THROW(claims({claim("a", "greater", {{"a", 0.1}, {"b", 0.9}})}), UsageError);  // effect points the wrong way
  EXPECT_THROW(claims({claim("a", "greater", {{"shift", 0.1}}, "t-test")}), UsageError);
  EXPECT_THROW(claims({claim("a", "greater", {{"a", 0.9}, {"b", 0.1}}), claim("a", "less", {{"a", 0.1}, {"b", 0.9}})}),
               UsageError);  // duplicate id
  json typo = claim("a", "greater", {{"a", 0.9}, {"b", 0.1}});
  typo["aplha"] = 0.01;
  EXPECT_THROW(claims({typo}), UsageError);
  EXPECT_THROW(claims_from_json({{"schema_version", 2}, {"kind", "recallbench.claims"}, {"claims", json::array()}}, "t"),
               UsageError);
  // A kind that is not a string (found by the claims fuzzer: it was a JSON type error, exit 4).
  EXPECT_THROW(claims_from_json({{"schema_version", 1}, {"kind", json::array({1})}, {"claims", json::array()}}, "t"),
               UsageError);
}

}  // namespace
}  // namespace rb::reports

// The third pass's rules (issue 61), each on constructed data.
namespace rb::reports {
namespace {

// "No measurable advantage", "adds nothing": one-sided, a no better than b by more than the margin.
TEST(Verify, NotGreaterIsTheOneSidedNoAdvantage) {
  const json c = claim("no-advantage", "not-greater", {{"a", 0.5}, {"b", 0.2}});  // margin 0.3
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 1, 12), planted("x", 10, 12)}).verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 12, 12), planted("x", 1, 12)}).verdict, ClaimOutcome::kContradicted);
  // A failing comparator does not make it vacuous: a that works contradicts "no advantage".
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 12, 12), planted("x", 0, 12)}).verdict, ClaimOutcome::kContradicted);
  // The same data as a two-sided tie cannot be shown: a is worse, outside a tie's margin.
  const json tie = claim("tie", "none", {{"a", 0.5}, {"b", 0.2}});
  EXPECT_NE(verdict_of(tie, {planted("x+conv", 1, 12), planted("x", 10, 12)}).verdict, ClaimOutcome::kReproduced);
  // The rates must point up (the smallest gain that matters), as for greater.
  EXPECT_THROW(claims({claim("bad", "not-greater", {{"a", 0.2}, {"b", 0.5}})}), UsageError);
}

// A claim that explains a gap is informative only where the gap is there, by the claim's own size.
TEST(Verify, AClaimThatExplainsAGapNeedsTheGap) {
  json c = claim("closes", "not-less", {{"a", 0.3}, {"b", 0.8}});  // margin 0.5
  c["gap"] = {{"cell", "y"}, {"task", "mqar"}};
  Config gap_side = planted("y", 0, 20);
  // b far better than the gap side (18/20 vs 0/20): the gap is there, and a closes it (17/20).
  const ClaimVerdict closes = verdict_of(c, {planted("x+conv", 17, 20), planted("x", 18, 20), gap_side});
  EXPECT_EQ(closes.verdict, ClaimOutcome::kReproduced);
  EXPECT_EQ(closes.comparisons[0].key_gap, gap_side.key);
  // b no better than the gap side: nothing to explain, not informative.
  const ClaimVerdict none = verdict_of(c, {planted("x+conv", 17, 20), planted("x", 18, 20), planted("y", 18, 20)});
  EXPECT_EQ(none.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(none).find("no gap to explain"), std::string::npos) << claim_note(none);
  // Significant but under the margin (6/20 vs 0/20: 0.3 < 0.5): no gap either.
  const ClaimVerdict small = verdict_of(c, {planted("x+conv", 6, 20), planted("x", 6, 20), planted("y", 0, 20)});
  EXPECT_LT(small.comparisons[0].p_gap, 0.05);
  EXPECT_EQ(small.verdict, ClaimOutcome::kNotInformative);
  // The gap side not run: not informative, and said so.
  const ClaimVerdict missing = verdict_of(c, {planted("x+conv", 17, 20), planted("x", 18, 20)});
  EXPECT_EQ(missing.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(missing).find("was not run here"), std::string::npos) << claim_note(missing);
}

// "Degrades gracefully with load": a load where every seed locked in stopped at the threshold, so it cannot
// show a degradation (the ceiling); the claim needs a load that is not there.
TEST(Verify, ALoadClaimAtTheCeilingIsNotInformative) {
  const json c = {{"id", "graceful"}, {"claim", "degrade gracefully with load"}, {"a", {{"cell", "x+conv"}, {"task", "mqar"}}},
                  {"over", "length"}, {"statistic", "at-least"}, {"effect", {{"recall", 0.45}}}};
  const ClaimVerdict top = verdict_of(c, {planted("x+conv", 10, 10, 16), planted("x+conv", 10, 10, 32)});
  EXPECT_EQ(top.verdict, ClaimOutcome::kNotInformative);
  EXPECT_NE(claim_note(top).find("no degradation with length could show"), std::string::npos) << claim_note(top);
  // A load where seeds stop short of the threshold but stay above the level: tested there.
  const ClaimVerdict tested = verdict_of(c, {planted("x+conv", 10, 10, 16), planted("x+conv", 4, 10, 32, 0.6)});
  EXPECT_EQ(tested.verdict, ClaimOutcome::kReproduced);
  EXPECT_FALSE(tested.comparisons[0].informative());
  EXPECT_TRUE(tested.comparisons[1].informative());
  // Without a load axis, "solves" is not a load claim: every seed locking in reproduces it.
  json solves = c;
  solves.erase("over");
  EXPECT_EQ(verdict_of(solves, {planted("x+conv", 10, 10, 16)}).verdict, ClaimOutcome::kReproduced);
}

// An all-of with a part outside the sentence (its premise contradicted) and the rest reproduced.
TEST(Verify, AnAllOfWithPartsLeftOutIsReproducedOnASubset) {
  json premise = claim("premise", "greater", {{"a", 0.9}, {"b", 0.1}});
  premise["a"]["cell"] = "p+conv", premise["b"]["cell"] = "p";
  json inside = claim("inside", "greater", {{"a", 0.9}, {"b", 0.1}});
  json outside = inside;
  outside["id"] = "outside", outside["premise"] = "premise";
  const json both = {{"id", "both"}, {"claim", "both"}, {"statistic", "all-of"}, {"of", {"inside", "outside"}}};
  static ClaimSet keep;
  keep = claims({premise, inside, outside, both});
  const auto v = verify_claims(keep, {runs({planted("x+conv", 10, 10), planted("x", 0, 10), planted("p+conv", 0, 10),
                                            planted("p", 10, 10)})});
  EXPECT_EQ(v[0].verdict, ClaimOutcome::kContradicted);
  EXPECT_EQ(v[3].verdict, ClaimOutcome::kReproducedOnSubset);
  EXPECT_STREQ(judge::claim_outcome_name(v[3].verdict), "reproduced on a subset");
  EXPECT_EQ(verify_exit_code(v), 0);
}

// The lottery's floor at the task's chance plus a margin, with the count at other floors beside it.
TEST(Verify, TheLotteryFloorIsTiedToChanceWithItsSensitivity) {
  const json c = {{"id", "lottery"}, {"claim", "a seed locks in or does not"}, {"a", {{"cell", "x+conv"}, {"task", "mqar"}}},
                  {"statistic", "lottery"}, {"effect", {{"middle", 0.2}}}, {"floor_above_chance", 0.1}};
  static ClaimSet keep;
  keep = claims({c});
  // 5 of 10 lock in; the others reach 0.25-0.29: above chance 0.1 + 0.1, below half the threshold.
  const auto v = verify_claims(keep, {runs({planted("x+conv", 5, 10, 64, 0.25)})},
                               [](const Config&) { return std::optional<double>(0.1); });
  ASSERT_EQ(v[0].comparisons.size(), 1u);
  const auto& d = v[0].comparisons[0];
  EXPECT_NEAR(d.floor, 0.2, 1e-12);
  EXPECT_EQ(d.k_a, 5);
  ASSERT_GE(d.sensitivity.size(), 3u);
  EXPECT_NEAR(d.sensitivity.front().threshold, 0.2, 1e-12);
  EXPECT_EQ(d.sensitivity.back().k_a, 0);  // half the threshold: none in between
  EXPECT_NE(sensitivity_note(v[0]).find("seeds in between at the stated floor"), std::string::npos) << sensitivity_note(v[0]);
  json both = c;
  both["floor"] = 0.3;
  EXPECT_THROW(claims({both}), UsageError);
}

}  // namespace
}  // namespace rb::reports
