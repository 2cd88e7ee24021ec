// reports: aggregation, the regression gate's decisions on planted data, contrasts, baselines and the
// three report formats. Planted configs are built in memory; run documents follow the trainer's schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "reports/gate_text.h"
#include "reports/report.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb::reports {
namespace {

using namespace rb::judge;

namespace fs = std::filesystem;

json train_recipe(int64_t steps = 1000) {
  return {{"steps", steps}, {"batch", 64}, {"lr", 0.003}, {"weight_decay", 0.1}, {"warmup", 0.05},
          {"eval_every", 50}, {"eval_examples", 512}, {"threshold", 0.99}, {"curriculum", "none"},
          {"curriculum_options", json::object()}, {"impl", "auto"}};
}

// A config of `cell` on mqar with `n` seeds, the first `k` locked in (recall ~1), the rest not (~0.3).
Config planted(const std::string& key, const std::string& cell, int64_t k, int64_t n, int64_t pairs = 8,
               int64_t budget = 0, int64_t steps = 1000, uint32_t jitter_seed = 1) {
  Config c;
  c.key = key;
  c.cell = cell;
  c.task = "mqar";
  c.task_options = {{"pairs", pairs}, {"length", 64}, {"vocab", 256}};
  c.model = {{"d_model", 64}, {"layers", 2}, {"state_budget", budget}, {"mlp", true}};
  c.set_train(train_recipe(steps));
  c.state_size = budget > 0 ? budget : 4096;
  c.state_budget = budget;
  c.capacity_bits = static_cast<double>(pairs) * 7.0;
  // The fixed-state family's knobs, as CellEntry registers them ("rank1+decay+conv").
  c.knobs = {{"family", "fixed_state"},
             {"transition", cell.rfind("rank1", 0) == 0 ? "rank1" : "diag"},
             {"decay", cell.find("+decay") != std::string::npos},
             {"conv", cell.find("+conv") != std::string::npos}};
  std::mt19937 rng(jitter_seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t s = 0; s < n; ++s) {
    SeedOutcome o;
    o.seed = s;
    o.reached_threshold = s < k;
    o.final_accuracy = o.locked_in() ? 0.99 + 0.009 * u(rng) : 0.2 + 0.2 * u(rng);
    o.best_accuracy = o.final_accuracy;
    o.lock_in_step = o.locked_in() ? 300 + 50 * s : -1;
    o.steps = o.locked_in() ? o.lock_in_step : steps;
    o.curve = {{50, 0.1, 2.0}, {100, o.final_accuracy / 2, 1.0}, {150, o.final_accuracy, 0.5}};
    c.seeds.push_back(o);
  }
  return c;
}

TEST(Summary, LockInIntervalAndSpread) {
  const Config c = planted("k", "diag+conv", 7, 10);
  const judge::ConfigSummary s = judge::summarize(c);
  EXPECT_EQ(s.k, 7);
  EXPECT_EQ(s.n, 10);
  EXPECT_NEAR(s.ci.low, 0.3475, 1e-4);   // R: binom.test(7, 10)$conf.int
  EXPECT_NEAR(s.ci.high, 0.9333, 1e-4);
  EXPECT_NEAR(s.median_lock_in_step, 450.0, 1e-9);  // steps 300..600 for seeds 0..6
  EXPECT_GT(s.recall.max, 0.99);
  EXPECT_LT(s.recall.min, 0.41);
  EXPECT_NEAR(s.floor_bits_per_number, 56.0 / 4096.0, 1e-12);
  const Spread sp = spread({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(sp.median, 2.5);
  EXPECT_DOUBLE_EQ(sp.mean, 2.5);
  EXPECT_NEAR(sp.sd, std::sqrt(5.0 / 3.0), 1e-12);
}

TEST(Gate, PlantedRegressionSixOfSixToZeroOfSix) {
  const std::vector<Config> base = {planted("mqar/diag+conv/a", "diag+conv", 6, 6),
                                    planted("mqar/diag/b", "diag", 3, 6, 8, 0, 400, 7)};
  std::vector<Config> cur = {planted("mqar/diag+conv/a", "diag+conv", 0, 6), base[1]};
  const Comparison c = compare(base, cur);
  EXPECT_EQ(c.verdict(), Verdict::kRegression);
  EXPECT_EQ(GateCounts(c).regressions, 1);
  EXPECT_EQ(gate_exit_code(c.effect(), false), 1);
  ASSERT_FALSE(c.configs.empty());
  EXPECT_EQ(c.configs.front().key, "mqar/diag+conv/a");  // regressions first
  EXPECT_EQ(c.configs.front().verdict, Verdict::kRegression);
  EXPECT_NEAR(c.configs.front().lock_in_drop.p, 1.0 / 924.0, 1e-9);  // 1 / C(12, 6)
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("6/6 → 0/6"), std::string::npos) << gate_reason(c.configs.front(), c.options);
  EXPECT_NE(comparison_text(c, "b.json").find("regression   mqar/diag+conv/a"), std::string::npos);
  EXPECT_EQ(c.configs.back().verdict, Verdict::kNoChange);
}

TEST(Gate, ThreeVersusThreeSeedsIsInconclusiveWithASeedCount) {
  const std::vector<Config> base = {planted("k", "diag+conv", 3, 3)};
  const std::vector<Config> cur = {planted("k", "diag+conv", 0, 3)};
  // Paired: three pairs, all worse, give at best p = 2^-3 = 0.125 > 0.05.
  const Comparison paired = compare(base, cur);
  EXPECT_EQ(paired.verdict(), Verdict::kInconclusive);
  EXPECT_NE(gate_reason(paired.configs[0], paired.options).find("3 pairs cannot reach significance"), std::string::npos)
      << gate_reason(paired.configs[0], paired.options);
  // Unpaired (the rule before pairing): the Fisher seed count.
  GateOptions unpaired;
  unpaired.rule = GateOptions::Rule::kUnpaired;
  const Comparison c = compare(base, cur, unpaired);
  ASSERT_EQ(c.configs.size(), 1u);
  EXPECT_EQ(c.verdict(), Verdict::kInconclusive);
  EXPECT_NEAR(c.configs[0].min_attainable_p, 0.05, 1e-12);  // 1 / C(6, 3)
  EXPECT_NEAR(c.configs[0].level_needed, 0.05 / 3, 1e-12);  // alpha / 3 tests (lock-in, recall, time to lock in)
  // All 4 lock in vs none gives 1 / C(8, 4) = 0.014 <= 0.0167: 4 seeds per side detect this complete swing.
  EXPECT_EQ(c.configs[0].planning.seeds, 4);
  EXPECT_NE(gate_reason(c.configs[0], c.options).find("4 seeds per side"), std::string::npos) << gate_reason(c.configs[0], c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), false), 0);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 3);
}

// Issue 47: no seed pairs (the current seeds are other seeds) and too few seeds: the primary rule cannot reach
// its level whatever the outcomes, so "inconclusive", never "no change" (exit 3 when asked); with enough
// unpaired seeds the same unchanged rates pass.
TEST(Gate, TwoAgainstTwoOtherSeedsCannotDecide) {
  const auto shifted = [](Config c) {
    for (auto& s : c.seeds) s.seed += 100;
    return c;
  };
  const std::vector<Config> base = {planted("k", "diag+conv", 2, 2)};
  const std::vector<Config> other = {shifted(planted("k", "diag+conv", 2, 2))};  // a Comparison points into both
  const Comparison c = compare(base, other);
  ASSERT_EQ(c.configs.size(), 1u);
  EXPECT_FALSE(c.configs[0].paired);
  EXPECT_EQ(c.verdict(), Verdict::kInconclusive);
  EXPECT_NEAR(c.configs[0].min_attainable_p, 1.0 / 6.0, 1e-12);  // 1 / C(4, 2)
  EXPECT_NE(gate_reason(c.configs[0], c.options).find("2 vs 2 seeds cannot reach significance"), std::string::npos)
      << gate_reason(c.configs[0], c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 3);
  const std::vector<Config> ten = {planted("k", "diag+conv", 10, 10)}, ten_other = {shifted(ten.front())};
  const Comparison many = compare(ten, ten_other);
  EXPECT_EQ(many.verdict(), Verdict::kNoChange);
}

// Issue 61: a store without plan.json that lacks a seed the baseline has is incomplete, not "no change": the
// paired test expects every baseline seed (one look), or every seed of the looks the current seeds reach.
TEST(Gate, BaselineSeedsMissingFromTheCurrentSideAreInconclusiveWithoutAPlan) {
  const std::vector<Config> base = {planted("k", "diag+conv", 10, 10)};
  Config partial = base.front();
  partial.seeds.erase(partial.seeds.begin() + 4);  // seed 4 lost (a crashed worker, a deleted file)
  const std::vector<Config> cur = {partial};
  const Comparison c = compare(base, cur);
  ASSERT_EQ(c.missing_paired, std::vector<std::string>{"k/seed:4"});
  EXPECT_EQ(c.verdict(), Verdict::kInconclusive);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 3);
  EXPECT_EQ(gate_exit_code(c.effect(), false), 0);
  EXPECT_NE(comparison_text(c, "base.json").find("1 baseline seed(s) have no run in the results (first: k/seed:4)"),
            std::string::npos);
  EXPECT_TRUE(compare(base, base).missing_paired.empty());
  // The sequential rule: a baseline of 20 seeds (two looks of 10) against the first look's 10 seeds is complete;
  // 9 of them is not.
  GateOptions sequential;
  sequential.stage_seeds = 10;
  sequential.max_stages = 2;
  const std::vector<Config> twenty = {planted("k", "diag+conv", 20, 20)}, first_ten = {planted("k", "diag+conv", 10, 10)};
  EXPECT_TRUE(compare(twenty, first_ten, sequential).missing_paired.empty());
  Config nine = first_ten.front();
  nine.seeds.pop_back();
  const std::vector<Config> nine_v = {nine};
  const Comparison s = compare(twenty, nine_v, sequential);
  EXPECT_EQ(s.missing_paired, std::vector<std::string>{"k/seed:9"});
  EXPECT_EQ(s.verdict(), Verdict::kInconclusive);
  // Other seeds altogether (a seed-shift replicate) are unpaired, not missing.
  Config shifted = base.front();
  for (auto& o : shifted.seeds) o.seed += 100;
  const std::vector<Config> shifted_v = {shifted};
  EXPECT_TRUE(compare(base, shifted_v).missing_paired.empty());
}

// The battery's pooled test (issue 61): four configs each 7 of 10 pairs later, 3 sooner (one-sided sign p 0.17
// each: none moves alone) pool to 28 of 40 (p 0.0083, under alpha / 5). It joins the primary family (each
// config's test at alpha / 5), turns the comparison's verdict, and is not run for fewer than two paired configs
// or under the sequential rule.
TEST(Gate, TheBatteryTestPoolsEveryPairedConfigsPairs) {
  std::vector<Config> base, cur;
  for (const char* key : {"a", "b", "c", "d"}) {
    base.push_back(planted(key, "diag+conv", 10, 10));
    Config slow = base.back();
    for (auto& o : slow.seeds) {
      o.lock_in_step = o.steps = o.seed < 7 ? o.lock_in_step + 150 : o.lock_in_step - 50;  // 7 later, 3 sooner
      o.train_fingerprint.clear();
    }
    for (auto& o : base.back().seeds) o.train_fingerprint.clear();
    cur.push_back(slow);
  }
  const Comparison c = compare(base, cur);
  ASSERT_TRUE(c.battery.tested);
  EXPECT_EQ(c.battery.configs, 4);
  EXPECT_EQ(c.battery.worse, 28);
  EXPECT_EQ(c.battery.better, 12);
  EXPECT_EQ(c.battery.family, 5);
  EXPECT_DOUBLE_EQ(c.battery.level, 0.01);
  EXPECT_NEAR(c.battery.p, stats::sign_test(28, 12).p_later, 1e-12);
  EXPECT_TRUE(c.battery.rejected());
  for (const auto& cc : c.configs) {
    EXPECT_EQ(cc.verdict, Verdict::kInconclusive) << cc.key;  // 7 of 10 at alpha / 5: below significance
    EXPECT_DOUBLE_EQ(cc.primary_level, 0.01) << cc.key;
  }
  EXPECT_NE(c.battery.verdict, Verdict::kNoChange);
  EXPECT_GE(c.verdict(), c.battery.verdict);
  EXPECT_NE(comparison_text(c, "base.json").find("battery: "), std::string::npos);
  EXPECT_EQ(comparison_to_json(c).at("battery").at("worse"), 28);
  // The same change on one config only: nothing to pool; the family is the configs alone.
  const std::vector<Config> one_base = {base.front()}, one_cur = {cur.front()};
  const Comparison one = compare(one_base, one_cur);
  EXPECT_FALSE(one.battery.tested);
  EXPECT_DOUBLE_EQ(one.configs.front().primary_level, 0.05);
  // Unchanged: every pair tied, no change.
  const Comparison same = compare(base, base);
  EXPECT_TRUE(same.battery.tested);
  EXPECT_EQ(same.battery.verdict, Verdict::kNoChange);
  EXPECT_EQ(same.verdict(), Verdict::kNoChange);
  // The sequential rule: each config's first look (seeds 0-4 here: 5 later each) pooled, once.
  GateOptions sequential;
  sequential.stage_seeds = 5;
  sequential.max_stages = 2;
  const Comparison seq = compare(base, cur, sequential);
  ASSERT_TRUE(seq.battery.tested);
  EXPECT_TRUE(seq.battery.first_look_only);
  EXPECT_EQ(seq.battery.pairs, 20);
  EXPECT_EQ(seq.battery.worse, 20);
  EXPECT_EQ(seq.battery.better, 0);
}

// A battery whose untied pairs cannot reach alpha / (configs + 1) takes no place in the family (issue 61, CI's
// browser check): diag+conv 6/6 -> 0/6 beside two configs whose pairs all tie pools to 6 untied pairs, 2^-6 =
// 0.0156 > alpha / 4, so each config is judged at alpha / 3 and the 6 of 6 lost is a regression (2^-6 < 0.0167),
// the adjusted p 3 x p. With a seventh untied pair the battery joins (2^-7 < 0.0125), the configs are at
// alpha / 4 and 6 pairs cannot reach it; the seed advice then names the 7 pairs the sign test needs, not Fisher's
// 5 unpaired seeds.
TEST(Gate, ABatteryThatCannotReachItsLevelTakesNoPlace) {
  std::vector<Config> base = {planted("a", "diag+conv", 6, 6), planted("b", "diag", 3, 6), planted("c", "rank1", 5, 6)};
  std::vector<Config> cur = {planted("a", "diag+conv", 0, 6), base[1], base[2]};
  for (auto* side : {&base, &cur})
    for (auto& c : *side)
      for (auto& o : c.seeds) o.train_fingerprint.clear();
  const Comparison c = compare(base, cur);
  EXPECT_FALSE(c.battery.tested);
  EXPECT_TRUE(c.battery.left_out);
  EXPECT_EQ(c.battery.worse + c.battery.better, 6);
  EXPECT_EQ(c.tests, 3);
  const auto& dc = c.configs.front();
  EXPECT_EQ(dc.verdict, Verdict::kRegression) << dc.key;
  EXPECT_DOUBLE_EQ(dc.primary_level, 0.05 / 3);
  EXPECT_NEAR(dc.primary.p_adjusted, 3.0 / 64.0, 1e-12);
  EXPECT_NE(comparison_text(c, "base.json").find("battery: not tested: 3 paired configs pooled (18 pairs) have 6 untied"),
            std::string::npos);
  EXPECT_EQ(comparison_to_json(c).at("battery").at("untied"), 6);
  // One more untied pair (rank1's seed 5 locks in now): the battery joins, the configs drop to alpha / 4.
  cur[2] = planted("c", "rank1", 6, 6);
  for (auto& o : cur[2].seeds) o.train_fingerprint.clear();
  const Comparison joined = compare(base, cur);
  EXPECT_TRUE(joined.battery.tested);
  EXPECT_FALSE(joined.battery.left_out);
  EXPECT_EQ(joined.tests, 4);
  const auto it = std::find_if(joined.configs.begin(), joined.configs.end(),
                               [](const ConfigComparison& cc) { return cc.key == "a"; });
  ASSERT_NE(it, joined.configs.end());
  EXPECT_EQ(it->verdict, Verdict::kInconclusive);
  EXPECT_EQ(it->reason, Reason::kPairsCannotReach);
  EXPECT_GE(it->planning.seeds, 7);  // 2^-7 <= 0.0125: the fewest pairs that can reach alpha / 4
  EXPECT_NE(gate_reason(*it, joined.options).find("(alpha / 4 tests)"), std::string::npos) << gate_reason(*it, joined.options);
}

TEST(Gate, UnchangedRerunPasses) {
  const std::vector<Config> base = {planted("a", "diag+conv", 6, 6), planted("b", "diag", 2, 6, 8, 0, 400, 3)};
  const Comparison c = compare(base, base);
  EXPECT_EQ(c.verdict(), Verdict::kNoChange);
  EXPECT_EQ(GateCounts(c).unchanged, 2);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 0);
}

TEST(Gate, SmallDropBelowTheMinimumEffectIsNotARegression) {
  // 10/10 → 9/10: a real but small drop, below the 20-point minimum: no change.
  const std::vector<Config> base = {planted("a", "diag+conv", 10, 10)};
  const std::vector<Config> cur = {planted("a", "diag+conv", 9, 10)};
  const Comparison c = compare(base, cur);
  EXPECT_NE(c.verdict(), Verdict::kRegression);
}

// Every seed 10% later (the paired test is significant, 10 of 10 pairs one way) but below the 30% minimum
// slowdown: its own verdict, which passes and is never "no change" (issue 43).
TEST(Gate, SignificantBelowTheMinimumEffectIsItsOwnVerdict) {
  const std::vector<Config> base = {planted("a", "diag+conv", 10, 10)};
  std::vector<Config> cur = {planted("a", "diag+conv", 10, 10)};
  for (auto& s : cur[0].seeds) {
    s.lock_in_step = s.lock_in_step * 11 / 10;
    s.steps = s.lock_in_step;
  }
  const Comparison c = compare(base, cur);
  EXPECT_EQ(c.configs[0].verdict, Verdict::kBelowMinimumEffect) << gate_reason(c.configs[0], c.options);
  EXPECT_EQ(c.verdict(), Verdict::kBelowMinimumEffect);
  EXPECT_EQ(GateCounts(c).below_minimum, 1);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 0);
  EXPECT_NE(gate_reason(c.configs[0], c.options).find("less than the minimum effect"), std::string::npos);
}

TEST(Gate, ImprovementIsReportedAndPasses) {
  const std::vector<Config> base = {planted("a", "diag", 0, 8)};
  const std::vector<Config> cur = {planted("a", "diag", 8, 8)};
  const Comparison c = compare(base, cur);
  EXPECT_EQ(c.verdict(), Verdict::kImprovement);
  EXPECT_EQ(gate_exit_code(c.effect(), true), 0);
}

// 20 configs whose baseline and current seeds come from the same distribution: the gate must not flag a
// regression more often than alpha. Over 200 such families the Holm-corrected gate stays below 5%, while
// the same tests uncorrected flag a config in most families (so the data do contain noise worth guarding).
TEST(Gate, TwentyConfigsOfPureNoiseRaiseNoRegression) {
  std::mt19937 rng(20261129);
  std::bernoulli_distribution lock(0.5);
  std::uniform_real_distribution<double> hi(0.99, 1.0), lo(0.0, 0.6);
  const auto draw = [&](const std::string& key) {
    Config c = planted(key, "diag", 0, 10);
    for (auto& s : c.seeds) {
      s.reached_threshold = lock(rng);
      s.final_accuracy = s.locked_in() ? hi(rng) : lo(rng);
    }
    return c;
  };
  int families_flagged = 0, families_flagged_uncorrected = 0;
  const int kFamilies = 200;
  for (int f = 0; f < kFamilies; ++f) {
    std::vector<Config> base, cur;
    for (int i = 0; i < 20; ++i) {
      base.push_back(draw("cfg" + std::to_string(i)));
      cur.push_back(draw("cfg" + std::to_string(i)));
    }
    GateOptions unpaired;  // the unpaired family of 60 tests (the paired rule: PairedNoise below)
    unpaired.rule = GateOptions::Rule::kUnpaired;
    const Comparison c = compare(base, cur, unpaired);
    if (f == 0) {
      EXPECT_EQ(GateCounts(c).regressions, 0) << "the first family of pure noise raised a regression";
      EXPECT_NE(gate_exit_code(c.effect(), false), 1);
    }
    families_flagged += GateCounts(c).regressions > 0 ? 1 : 0;
    bool any_raw = false;
    for (const auto& cc : c.configs)
      any_raw = any_raw || (cc.lock_in_drop.p <= 0.05 && -cc.rate_change() >= 0.2) ||
                (cc.recall_drop.p <= 0.05 && -cc.recall_change() >= 0.05);
    families_flagged_uncorrected += any_raw ? 1 : 0;
  }
  std::printf("pure noise: %d of %d families flagged a regression (Holm); %d of %d uncorrected\n", families_flagged,
              kFamilies, families_flagged_uncorrected, kFamilies);
  EXPECT_LE(families_flagged, kFamilies * 5 / 100) << families_flagged << " of " << kFamilies << " families flagged";
  EXPECT_GT(families_flagged_uncorrected, kFamilies / 4) << "uncorrected tests should flag noise often";
}

// The paired rule on noise: every pair's two runs exchangeable (each side's lock-in step drawn from the same
// distribution, per seed), 20 configs of 10 pairs: families flagged at most alpha of the time.
TEST(Gate, PairedNoiseOverTwentyConfigsRaisesNoMoreThanAlpha) {
  std::mt19937 rng(20261201);
  std::bernoulli_distribution lock(0.7);
  std::uniform_int_distribution<int> step(4, 16);
  const auto draw = [&](const std::string& key) {
    Config c = planted(key, "diag+conv", 10, 10);
    for (auto& s : c.seeds) {
      s.reached_threshold = lock(rng);
      s.lock_in_step = s.locked_in() ? 50 * step(rng) : -1;
      s.steps = s.locked_in() ? s.lock_in_step : 400;
      s.final_accuracy = s.locked_in() ? 0.995 : 0.3;
    }
    return c;
  };
  int flagged = 0;
  const int kFamilies = 300;
  for (int f = 0; f < kFamilies; ++f) {
    std::vector<Config> base, cur;
    for (int i = 0; i < 20; ++i) {
      base.push_back(draw("cfg" + std::to_string(i)));
      cur.push_back(draw("cfg" + std::to_string(i)));
    }
    flagged += GateCounts(compare(base, cur)).regressions > 0 ? 1 : 0;
  }
  std::printf("paired noise: %d of %d families flagged a regression\n", flagged, kFamilies);
  EXPECT_LE(flagged, kFamilies * 5 / 100 + 5);  // alpha plus about two standard errors
}

// The planted learning-rate bug, seed by seed: the unpaired family passes it ("inconclusive"),
// the paired primary test catches it.
TEST(Gate, HalvedLockInRateIsCaughtWhenSeedsArePaired) {
  const std::vector<std::pair<int, int>> dc = {{500, -1}, {400, -1}, {650, -1}, {350, 400}, {600, -1},
                                               {300, 300}, {300, 300}, {350, -1}, {300, 300}, {300, 350}};
  const auto make = [](const std::string& key, const std::vector<std::pair<int, int>>& steps, bool current) {
    Config c = planted(key, "diag+conv", 10, 10, 4, 0, 1000);
    for (size_t i = 0; i < steps.size(); ++i) {
      auto& s = c.seeds[i];
      const int v = current ? steps[i].second : steps[i].first;
      s.reached_threshold = v > 0;
      s.lock_in_step = v;
      s.steps = v > 0 ? v : 1000;
      s.final_accuracy = v > 0 ? 0.95 : 0.5;
      s.best_accuracy = s.final_accuracy;
    }
    return c;
  };
  std::vector<std::pair<int, int>> same = dc;
  for (auto& p : same) p.second = p.first;
  const std::vector<Config> base = {make("a", dc, false), make("b", same, false), make("c", same, false)};
  const std::vector<Config> cur = {make("a", dc, true), make("b", same, true), make("c", same, true)};
  const Comparison paired = compare(base, cur);
  EXPECT_EQ(paired.configs.front().key, "a");
  EXPECT_EQ(paired.configs.front().verdict, Verdict::kRegression) << gate_reason(paired.configs.front(), paired.options);
  EXPECT_NEAR(paired.configs.front().primary.p, 0.0078125, 1e-12);
  EXPECT_EQ(gate_exit_code(paired.effect(), false), 1);
  GateOptions unpaired;
  unpaired.rule = GateOptions::Rule::kUnpaired;
  EXPECT_NE(compare(base, cur, unpaired).verdict(), Verdict::kRegression);
  // The JSON carries the primary test and its look.
  const json j = comparison_to_json(paired);
  const json& primary = j.at("configs").at(0).at("primary");
  EXPECT_EQ(primary.at("endpoint"), "time to lock-in");
  EXPECT_EQ(primary.at("worse"), 7);
  EXPECT_EQ(primary.at("tied"), 3);
  EXPECT_EQ(primary.at("looks").size(), 1u);
  EXPECT_EQ(j.at("options").at("rule"), "paired");
}

// Sequential looks of 10 pairs up to 30: a first look that leaves the answer open says so (inconclusive,
// open), and the second look decides.
TEST(Gate, SequentialLooksStayOpenThenDecide) {
  const auto make = [](int n, int worse_upto, bool current) {
    Config c = planted("a", "diag+conv", n, n, 4, 0, 1000);
    for (int i = 0; i < n; ++i) {
      auto& s = c.seeds[static_cast<size_t>(i)];
      s.lock_in_step = s.steps = 300 + (current && i < worse_upto ? 200 : 0);
    }
    return c;
  };
  GateOptions o;
  o.stage_seeds = 10;
  o.max_stages = 3;
  // 7 of the first 10 pairs later, 3 tied: p = 2^-7 = 0.0078, within Pocock's 0.0227 at t = 1/3 (one config,
  // alpha 0.05): decided at the first look, nothing more to run.
  Comparison c = compare({make(30, 7, false)}, {make(10, 7, true)}, o);
  ASSERT_EQ(c.configs.size(), 1u);
  const auto& first = c.configs[0];
  ASSERT_EQ(first.sequential.looks.size(), 1u);
  EXPECT_NEAR(first.sequential.looks[0].information, 1.0 / 3, 1e-12);
  EXPECT_NEAR(first.sequential.looks[0].alpha_allowed, 0.05 * std::log(1 + (std::exp(1.0) - 1) / 3), 1e-12);
  EXPECT_EQ(first.pairs, 10);
  EXPECT_EQ(first.verdict, Verdict::kRegression) << gate_reason(first, c.options);
  // Five of ten later at the first look (five tied): the sign test alone is p = 2^-5 = 0.031: open; with
  // the second ten also 5 later, p = 2^-10 at look 2: a regression.
  c = compare({make(30, 5, false)}, {make(10, 5, true)}, o);
  EXPECT_TRUE(c.configs[0].sequential.open) << gate_reason(c.configs[0], c.options);
  EXPECT_EQ(c.configs[0].verdict, Verdict::kInconclusive);
  EXPECT_NE(gate_reason(c.configs[0], c.options).find("open at look 1 of 3"), std::string::npos) << gate_reason(c.configs[0], c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), false), 0);
  Config cur20 = make(20, 0, true);
  for (int i : {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}) cur20.seeds[static_cast<size_t>(i)].lock_in_step = cur20.seeds[static_cast<size_t>(i)].steps = 500;
  c = compare({make(30, 5, false)}, {cur20}, o);
  EXPECT_EQ(c.configs[0].sequential.looks.size(), 2u);
  EXPECT_EQ(c.configs[0].verdict, Verdict::kRegression) << gate_reason(c.configs[0], c.options);
  // An unchanged tree ties every pair: no change at the first look, nothing more to run.
  c = compare({make(30, 0, false)}, {make(10, 0, true)}, o);
  EXPECT_EQ(c.configs[0].verdict, Verdict::kNoChange) << gate_reason(c.configs[0], c.options);
  EXPECT_FALSE(c.configs[0].sequential.open);
}

TEST(Gate, MissingConfigsAreListedOnBothSides) {
  const std::vector<Config> base = {planted("a", "diag+conv", 6, 6), planted("old", "diag", 6, 6, 4)};
  const std::vector<Config> cur = {planted("a", "diag+conv", 6, 6), planted("new", "rank1", 6, 6, 16)};
  const Comparison c = compare(base, cur);
  ASSERT_EQ(c.missing_in_current.size(), 1u);
  EXPECT_EQ(c.missing_in_current[0], "old");
  ASSERT_EQ(c.missing_in_baseline.size(), 1u);
  EXPECT_EQ(c.missing_in_baseline[0], "new");
  RunSet runs;
  runs.configs = cur;
  ReportInput in;
  in.runs = &runs;
  in.comparison = &c;
  const std::string md = report_markdown(in);
  EXPECT_NE(md.find("missing from these results"), std::string::npos) << md;
  EXPECT_NE(md.find("`old`"), std::string::npos);
  EXPECT_NE(md.find("`new`"), std::string::npos);
}

TEST(Gate, RefusesAcrossRecipesAndBudgets) {
  const std::vector<Config> base = {planted("a", "diag+conv", 6, 6, 8, 0, 400)};
  const auto refusal = [&](const Config& current) -> std::string {
    try {
      compare(base, {current});
    } catch (const UsageError& e) {
      return e.what();
    }
    return "no refusal";
  };
  const std::string recipe = refusal(planted("b", "diag+conv", 6, 6, 8, 0, 2000));
  EXPECT_NE(recipe.find("different training recipes"), std::string::npos) << recipe;
  EXPECT_NE(recipe.find("steps: baseline 400, current 2000"), std::string::npos) << recipe;
  const std::string budget = refusal(planted("c", "diag+conv", 6, 6, 8, 2048, 400));
  EXPECT_NE(budget.find("different state budgets"), std::string::npos) << budget;
  const std::vector<Config> unrelated = {planted("d", "rank1", 6, 6, 4)};
  EXPECT_THROW(compare(base, unrelated), UsageError);  // nothing in common
}

// Slower learning with the same end state: every seed still locks in, recall unchanged, but each seed
// takes about 1.8x the steps. Lock-in counts and recall cannot see it; the log-rank test on the time to
// lock-in does.
TEST(Gate, SlowerLockInIsARegressionEvenWhenEverySeedLocksIn) {
  Config base = planted("a", "diag+conv", 10, 10, 8, 0, 1000);
  Config slow = base;
  for (auto& s : slow.seeds) s.lock_in_step = s.steps = s.lock_in_step * 9 / 5;  // 300..750 → 540..1350
  for (auto& s : slow.seeds)
    if (s.lock_in_step > 1000) s.lock_in_step = 1000;  // still within the budget
  const Comparison c = compare({base}, {slow});
  ASSERT_EQ(c.configs.size(), 1u);
  const auto& cc = c.configs[0];
  EXPECT_EQ(cc.rate_change(), 0.0);
  EXPECT_EQ(c.verdict(), Verdict::kRegression) << gate_reason(cc, c.options);
  EXPECT_LT(cc.slower.p_adjusted, 0.05) << gate_reason(cc, c.options);
  EXPECT_GT(cc.time_ratio(), 1.5);
  EXPECT_NE(gate_reason(cc, c.options).find("primary: paired sign test on time to lock-in over 10 seed pairs (10 current later"),
            std::string::npos) << gate_reason(cc, c.options);
  EXPECT_NEAR(cc.primary.p, std::ldexp(1.0, -10), 1e-15);
  EXPECT_EQ(gate_exit_code(c.effect(), false), 1);
  // The same change the other way is an improvement, not a regression.
  const Comparison back = compare({slow}, {base});
  EXPECT_EQ(back.verdict(), Verdict::kImprovement) << gate_reason(back.configs[0], back.options);
  // A 10% slowdown is below the 30% minimum effect: not a regression, however significant.
  Config bit_slower = base;
  for (auto& s : bit_slower.seeds) s.lock_in_step = s.steps = s.lock_in_step * 11 / 10;
  EXPECT_NE(compare({base}, {bit_slower}).verdict(), Verdict::kRegression);
}

// The model under a key changed (a narrower convolution: fewer numbers of state and parameters): the
// config is "model changed", not compared, and the gate exits 2 naming old → new; allowed on purpose, it
// is compared and the reason says so.
TEST(Gate, ChangedModelUnderTheSameKeyIsItsOwnVerdict) {
  Config base = planted("a", "diag+conv", 6, 6);
  base.state_size = 1312;
  base.parameters = 28288;
  base.architecture = "0123456789ab";
  Config cur = base;
  cur.state_size = 1120;
  cur.parameters = 27904;
  cur.architecture = "ba9876543210";
  const Config other = planted("b", "diag", 3, 6, 8, 0, 400, 7);
  const Comparison c = compare({base, other}, {cur, other});
  EXPECT_EQ(c.verdict(), Verdict::kModelChanged);
  EXPECT_EQ(GateCounts(c).model_changed, 1);
  EXPECT_EQ(c.tests, 1);  // only the unchanged config is tested (one primary test)
  ASSERT_FALSE(c.configs.empty());
  EXPECT_EQ(c.configs.front().verdict, Verdict::kModelChanged);
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("state_size 1312 → 1120"), std::string::npos) << gate_reason(c.configs.front(), c.options);
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("parameters 28288 → 27904"), std::string::npos);
  EXPECT_EQ(gate_exit_code(c.effect(), false), kExitUsage);
  EXPECT_NE(comparison_text(c, "b.json").find("recallbench baseline update"), std::string::npos);
  GateOptions allow;
  allow.allow_model_change = true;
  const Comparison a = compare({base, other}, {cur, other}, allow);
  EXPECT_EQ(a.verdict(), Verdict::kNoChange);
  EXPECT_NE(gate_reason(a.configs[0], a.options).find("compared anyway"), std::string::npos) << gate_reason(a.configs[0], a.options);
  // An older baseline without an architecture hash is judged on state size and parameters alone.
  Config old = base;
  old.architecture.clear();
  Config same = base;
  same.architecture = "ffffffffffff";
  EXPECT_EQ(compare({old}, {same}).verdict(), Verdict::kNoChange);
}

// `c` with data fingerprints: one held-out set for the config, a distinct training stream per seed.
Config fingerprinted(Config c, const std::string& held_out = "aaaaaaaaaaaa") {
  c.eval_fingerprint = held_out;
  for (auto& s : c.seeds) s.train_fingerprint = fmt::format("{:012x}", 0x100 + s.seed);
  return c;
}

TEST(Gate, ChangedTaskOrDataStreamUnderTheSameKeyIsNotCompared) {
  const Config base = fingerprinted(planted("a", "diag+conv", 6, 6));
  const Config other = fingerprinted(planted("b", "diag", 3, 6, 8, 0, 400, 7), "bbbbbbbbbbbb");
  // The task generator changed: another held-out set, whatever the outcomes say (here: the same ones).
  Config task = base;
  task.eval_fingerprint = "cccccccccccc";
  Comparison c = compare({base, other}, {task, other});
  EXPECT_EQ(c.verdict(), Verdict::kTaskChanged);
  EXPECT_EQ(GateCounts(c).data_changed, 1);
  EXPECT_EQ(c.tests, 1);  // only the unchanged config is tested
  EXPECT_EQ(c.configs.front().key, "a");
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("held-out set aaaaaaaaaaaa → cccccccccccc"), std::string::npos)
      << gate_reason(c.configs.front(), c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), false), kExitUsage);
  EXPECT_NE(comparison_text(c, "b.json").find("recallbench baseline update"), std::string::npos);
  GateOptions allow;
  allow.allow_data_change = true;
  c = compare({base, other}, {task, other}, allow);
  EXPECT_EQ(c.verdict(), Verdict::kNoChange);
  EXPECT_NE(gate_reason(c.configs[0], c.options).find("compared anyway (--allow-data-change)"), std::string::npos) << gate_reason(c.configs[0], c.options);
  // The training stream of some seeds changed (same seed numbers, other first batches).
  Config stream = base;
  stream.seeds[1].train_fingerprint = "dddddddddddd";
  stream.seeds[4].train_fingerprint = "eeeeeeeeeeee";
  c = compare({base, other}, {stream, other});
  EXPECT_EQ(c.verdict(), Verdict::kDataStreamChanged);
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("seeds 1, 4 of 6"), std::string::npos) << gate_reason(c.configs.front(), c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), false), kExitUsage);
  EXPECT_EQ(compare({base, other}, {stream, other}, allow).verdict(), Verdict::kNoChange);
  // A seed-shift replicate pairs no seed: only the held-out set is checked, and it is the same.
  Config shifted = base;
  for (auto& s : shifted.seeds) s.seed += 1000, s.train_fingerprint = fmt::format("{:012x}", 0x9000 + s.seed);
  c = compare({base}, {shifted});
  EXPECT_EQ(c.verdict(), Verdict::kNoChange);
  EXPECT_EQ(c.data_unchecked(), 0);
}

TEST(Gate, SeedsThatShareATrainingStreamAreNeverCompared) {
  const Config base = fingerprinted(planted("a", "diag+conv", 6, 6));
  Config dependent = base;
  for (auto& s : dependent.seeds) s.train_fingerprint = "0123456789ab";  // every seed saw seed 0's batches
  Comparison c = compare({base}, {dependent});
  EXPECT_EQ(c.verdict(), Verdict::kSeedsNotIndependent);
  EXPECT_NE(gate_reason(c.configs.front(), c.options).find("current: seeds 0, 1, 2, 3, 4, 5 saw the same training batches"),
            std::string::npos) << gate_reason(c.configs.front(), c.options);
  EXPECT_EQ(gate_exit_code(c.effect(), false), kExitUsage);
  GateOptions allow;
  allow.allow_data_change = true;
  allow.allow_model_change = true;
  EXPECT_EQ(compare({base}, {dependent}, allow).verdict(), Verdict::kSeedsNotIndependent);  // never accepted
  // Listed before a model change of another config: the most severe identity first.
  Config model = fingerprinted(planted("b", "diag", 3, 6, 8, 0, 400, 7));
  Config model_cur = model;
  model_cur.architecture = "ffffffffffff";
  model.architecture = "eeeeeeeeeeee";
  c = compare({base, model}, {dependent, model_cur});
  EXPECT_EQ(c.verdict(), Verdict::kSeedsNotIndependent);
  EXPECT_EQ(c.configs.front().key, "a");
  EXPECT_EQ(c.configs[1].verdict, Verdict::kModelChanged);
}

TEST(Gate, OlderBaselinesWithoutFingerprintsAreComparedAndSaySo) {
  const Config old = planted("a", "diag+conv", 6, 6);
  const Config cur = fingerprinted(old);
  const Comparison c = compare({old}, {cur});
  EXPECT_EQ(c.verdict(), Verdict::kNoChange);
  EXPECT_EQ(c.data_unchecked(), 1);
  EXPECT_FALSE(c.configs.front().data.checked);
  EXPECT_NE(comparison_text(c, "old.json").find("data identity not checked for 1 of 1 configs"), std::string::npos);
}

// A baseline recorded on another device is another machine kind: the same keys, compared, with the warning
// (docs/devices.md); a context from before devices reads as the CPU's.
TEST(Gate, ABaselineFromAnotherDeviceIsComparedWithTheMachineWarning) {
  const Config cfg = planted("a", "diag+conv", 6, 6);
  Comparison c = compare({cfg}, {cfg});
  c.baseline_context = {{"cpu_model", "Xeon"}};  // recorded before devices: the CPU
  c.current_context = {{"cpu_model", "Xeon"}, {"device", "cpu"}, {"device_name", "cpu"}};
  EXPECT_TRUE(c.machine_difference().empty());
  c.current_context = {{"cpu_model", "Xeon"}, {"device", "cuda:0"}, {"device_name", "NVIDIA H200"}};
  const auto d = c.machine_difference();
  ASSERT_EQ(d.size(), 1u);  // device_name is absent on the older side: not a difference of its own
  EXPECT_EQ(d[0].key, "device");
  EXPECT_EQ(d[0].baseline, "cpu");
  EXPECT_EQ(d[0].current, "cuda:0");
  EXPECT_EQ(c.verdict(), Verdict::kNoChange);
  EXPECT_NE(comparison_text(c, "base.json").find("another machine kind (device"), std::string::npos);
}

TEST(Contrasts, InferredFromOneKnobAndTestedWithHolm) {
  const std::vector<Config> configs = {planted("x/diag+conv", "diag+conv", 7, 10), planted("x/diag", "diag", 1, 10),
                                       planted("x/rank1", "rank1", 5, 10), planted("y/diag", "diag", 0, 10, 16)};
  const auto specs = infer_contrasts(configs);
  ASSERT_EQ(specs.size(), 2u);  // conv (diag+conv vs diag) and transition (rank1 vs diag), same task point
  const auto results = test_contrasts(configs, specs);
  const auto conv = std::find_if(results.begin(), results.end(), [](const auto& r) { return r.spec.knob == "conv"; });
  ASSERT_NE(conv, results.end());
  EXPECT_EQ(conv->spec.a, "x/diag+conv");
  EXPECT_NEAR(conv->p, 0.01978, 5e-5);  // the design's 7/10 vs 1/10, R fisher.test
  EXPECT_NEAR(conv->p_adj, std::min(1.0, 2 * conv->p), 1e-12);  // the smaller of two p-values, Holm ×2
  EXPECT_TRUE(conv->significant);
}

// `c` with its key's hash recomputed from its fields, as a stored file must have it (reports/results.cpp).
Config keyed(Config c) {
  c.key += "/" + config_hash(c);
  return c;
}

TEST(Baseline, RoundTripsAndRejectsBadFiles) {
  const fs::path dir = fs::temp_directory_path() / ("rb_reports_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  RunSet runs;
  runs.configs = {keyed(fingerprinted(planted("a", "diag+conv", 4, 6))), keyed(planted("b", "diag", 1, 6))};
  runs.context = {{"git_commit", "abc123"}};
  runs.source = "planted";
  write_json_atomic(dir / "base.json", baseline_json(runs, "smoke"));
  {  // a field edited after the fact contradicts the key's hash
    json edited = baseline_json(runs, "smoke");
    edited["configs"][0]["train"]["steps"] = 99;
    write_json_atomic(dir / "edited.json", edited);
    try {
      read_baseline(dir / "edited.json");
      ADD_FAILURE() << "accepted a config whose fields contradict its key";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("hash to"), std::string::npos) << e.what();
    }
  }
  const Baseline b = read_baseline(dir / "base.json");
  EXPECT_EQ(b.battery, "smoke");
  ASSERT_EQ(b.configs.size(), 2u);
  EXPECT_EQ(judge::summarize(b.configs[0]).k, 4);
  EXPECT_EQ(b.configs[0].seeds.size(), 6u);
  EXPECT_TRUE(b.configs[0].seeds[0].curve.empty());  // baselines keep no curves
  EXPECT_EQ(b.configs[0].eval_fingerprint, "aaaaaaaaaaaa");  // data identity is carried (issue 24)
  EXPECT_EQ(b.configs[0].seeds[5].train_fingerprint, "000000000105");
  EXPECT_EQ(b.configs[1].eval_fingerprint, "");  // and optional: older files record none
  EXPECT_EQ(b.context.value("git_commit", ""), "abc123");

  const auto expect_error = [&](const std::string& text, const std::string& message) {
    std::ofstream(dir / "bad.json") << text;
    try {
      read_baseline(dir / "bad.json");
      FAIL() << "accepted: " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(e.hint().find("baseline update"), std::string::npos);
    }
  };
  expect_error("{\"kind\": \"recallbench.baseline\", \"schema_version\": 1, \"configs\": [", "malformed JSON");
  expect_error("{\"kind\": \"recallbench.baseline\", \"schema_version\": 2, \"configs\": []}",
               "got schema_version 2, expected 1");
  // Read as the 64-bit number written: 2^32 + 1 is not 1, 2^64 - 1 is not -1 (issue 46).
  expect_error("{\"kind\": \"recallbench.baseline\", \"schema_version\": 4294967297, \"configs\": []}",
               "got schema_version 4294967297, expected 1");
  expect_error("{\"kind\": \"recallbench.baseline\", \"schema_version\": 18446744073709551615, \"configs\": []}",
               "got schema_version 18446744073709551615, expected 1");
  expect_error("{\"kind\": \"something.else\", \"schema_version\": 1}", "got kind 'something.else'");
  expect_error("[1, 2]", "expected an object");
  expect_error("{\"kind\": \"recallbench.baseline\", \"schema_version\": 1, \"configs\": [{\"key\": \"a\"}]}",
               "missing field 'cell'");
  EXPECT_THROW(read_baseline(dir / "absent.json"), UsageError);
  fs::remove_all(dir);
}

// A run document as the trainer writes it (suite/train/trainer.cpp::train_run).
json run_doc(const std::string& readable, const std::string& cell, int64_t seed, bool locked, double acc) {
  json spec = {{"cell", {{"name", cell}, {"options", json::object()}}},
               {"model", {{"d_model", 32}, {"layers", 2}, {"state_budget", 0}, {"mlp", true}}},
               {"task", {{"name", "mqar"}, {"options", {{"pairs", 2}, {"length", 16}, {"vocab", 32}}}}},
               {"train", train_recipe()},
               {"seed", seed}};
  // The key's hash covers the spec (core/json_io.h): `readable` names the config, the hash is appended.
  const std::string config_key = readable + "/" + short_hash(canonical_config(spec));
  return {{"schema_version", 1}, {"kind", "recallbench.run"}, {"key", config_key + "/seed:" + std::to_string(seed)},
          {"config_key", config_key}, {"spec", spec}, {"context", {{"git_commit", "abc"}}},
          {"result", {{"status", "ok"}, {"message", ""}, {"final_accuracy", acc}, {"best_accuracy", acc},
                      {"final_loss", 0.1}, {"locked_in", locked}, {"lock_in_step", locked ? json(200) : json(nullptr)},
                      {"steps", locked ? 200 : 400}, {"wall_seconds", 1.0}, {"steps_per_second", 200.0},
                      {"state_size", 1312}, {"parameters", 10000}, {"capacity_bits", 8.0}}},
          {"curve", json::array({{{"step", 50}, {"loss", 1.0}, {"accuracy", acc / 2}, {"lr", 0.003}, {"stage", 0}},
                                 {{"step", 100}, {"loss", 0.5}, {"accuracy", acc}, {"lr", 0.003}, {"stage", 0}}})}};
}

TEST(Results, GroupsRunDocumentsAndRejectsBadOnes) {
  const auto set = group_runs({{"f0", run_doc("mqar/diag+conv/h", "diag+conv", 1, true, 0.995)},
                               {"f1", run_doc("mqar/diag+conv/h", "diag+conv", 0, false, 0.5)},
                               {"f2", run_doc("mqar/diag/h2", "diag", 0, false, 0.4)}});
  ASSERT_EQ(set.configs.size(), 2u);
  EXPECT_EQ(set.run_count, 3);
  const Config& c = set.configs[0];  // sorted by key: '+' sorts before '/'
  EXPECT_EQ(c.key.rfind("mqar/diag+conv/h/", 0), 0u) << c.key;  // the readable part, then the spec's hash
  ASSERT_EQ(c.seeds.size(), 2u);
  EXPECT_EQ(c.seeds[0].seed, 0);  // sorted by seed
  EXPECT_EQ(c.seeds[1].lock_in_step, 200);
  EXPECT_EQ(c.seeds[1].curve.size(), 2u);
  EXPECT_EQ(c.task_label(), "mqar length:16 pairs:2 vocab:32");

  EXPECT_THROW(group_runs({{"f0", run_doc("k", "diag", 0, true, 1.0)}, {"f1", run_doc("k", "diag", 0, true, 1.0)}}),
               UsageError);  // the same run twice
  json wrong = run_doc("k", "diag", 0, true, 1.0);
  wrong["schema_version"] = 9;
  try {
    group_runs({{"f9", wrong}});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("got run schema_version 9, expected 1"), std::string::npos) << e.what();
  }
  json bad_acc = run_doc("k", "diag", 0, true, 1.0);
  bad_acc["result"]["final_accuracy"] = 1.5;
  EXPECT_THROW(group_runs({{"f", bad_acc}}), UsageError);
}

// Issue 28: options, model or recipe that are not objects (the keys recomputed to match) are bad input at the
// reader: the readers after it (the gate's model identity, the claims' depth check, the page) take them as
// objects.
TEST(Results, RejectsOptionsModelAndRecipeThatAreNotObjects) {
  for (const char* side : {"cell", "task"}) {
    json d = run_doc("k", "diag", 0, true, 1.0);
    d["spec"][side]["options"] = nullptr;
    const std::string config_key = "k/" + short_hash(canonical_config(d["spec"]));
    d["config_key"] = config_key;
    d["key"] = config_key + "/seed:0";
    try {
      group_runs({{"f", d}});
      ADD_FAILURE() << "accepted spec." << side << ".options null";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("f: field 'spec." + std::string(side) + ".options' got null, expected an object"),
                std::string::npos) << e.what();
    }
  }
  for (const char* field : {"task_options", "cell_options", "model", "train"}) {
    Config c = planted("k", "diag", 1, 3);
    if (field == std::string("train")) c.set_train(json::array({1}));
    else (field == std::string("task_options") ? c.task_options
          : field == std::string("cell_options") ? c.cell_options
                                                 : c.model) = json::array({1});
    try {
      config_from_json(config_to_json(keyed(c), false), "b.json: configs[0]");
      ADD_FAILURE() << "accepted " << field << " [1]";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("b.json: configs[0]: field '" + std::string(field) + "' got array, expected an object"),
                std::string::npos) << e.what();
    }
  }
}

TEST(Results, ReadsADirectoryWithTheRunnersPlanContrasts) {
  const fs::path dir = fs::temp_directory_path() / ("rb_reports_plan_" + std::to_string(::getpid()));
  fs::create_directories(dir / "runs");
  for (int64_t seed = 0; seed < 3; ++seed) {
    write_json_atomic(dir / "runs" / ("a" + std::to_string(seed) + ".json"), run_doc("k/conv", "diag+conv", seed, true, 0.995));
    write_json_atomic(dir / "runs" / ("b" + std::to_string(seed) + ".json"), run_doc("k/plain", "diag", seed, false, 0.3));
  }
  const std::string key_a = run_doc("k/conv", "diag+conv", 0, true, 1.0)["config_key"];
  const std::string key_b = run_doc("k/plain", "diag", 0, true, 1.0)["config_key"];
  write_json_atomic(dir / "plan.json",
                    {{"schema_version", 1}, {"kind", "recallbench.plan"}, {"battery", {{"name", "tiny"}}},
                     {"runs", json::array()},
                     {"contrasts", json::array({{{"name", "conv: diag+conv vs diag"}, {"knob", "conv"}, {"a", key_a},
                                                 {"b", key_b}}})}});
  const RunSet set = load_results(dir);
  EXPECT_EQ(set.run_count, 6);
  EXPECT_EQ(set.battery, "tiny");
  ASSERT_EQ(set.declared_contrasts.size(), 1u);
  EXPECT_TRUE(set.declared_contrasts[0].declared);
  const auto r = test_contrasts(set.configs, set.declared_contrasts);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].k_a, 3);
  EXPECT_EQ(r[0].k_b, 0);
  EXPECT_NEAR(r[0].p, 0.1, 1e-9);  // 3/3 vs 0/3, two-sided: 2 / C(6, 3)
  fs::remove_all(dir);
}

TEST(Report, JsonHtmlMarkdownCarryTheVerdictAndSections) {
  RunSet runs;
  runs.configs = {planted("mqar/diag+conv/a", "diag+conv", 0, 6), planted("mqar/diag/b", "diag", 1, 6),
                  planted("mqar/diag+conv/c", "diag+conv", 6, 6, 16), planted("mqar/diag/d", "diag", 0, 6, 16)};
  runs.configs[1].cell = "diag<script>";  // names are escaped in HTML
  runs.context = {{"git_commit", "abc123"}, {"date", "2026-11-29T00:00:00Z"}};
  runs.source = "planted";
  runs.run_count = 24;
  std::vector<Config> base = runs.configs;
  base[0] = planted("mqar/diag+conv/a", "diag+conv", 6, 6);
  GateOptions unpaired;  // six pairs cannot pass Holm over four configs; this test is about the documents
  unpaired.rule = GateOptions::Rule::kUnpaired;
  const Comparison cmp = compare(base, runs.configs, unpaired);
  ReportInput in;
  in.runs = &runs;
  in.contrasts = test_contrasts(runs.configs, infer_contrasts(runs.configs));
  in.comparison = &cmp;
  in.baseline_path = "ci/baselines/smoke.json";
  in.bench = {{"benchmarks", json::array({{{"name", "BM_linear_attn_ref/64"}, {"run_type", "iteration"},
                                             {"real_time", 1234.0}, {"time_unit", "ns"}, {"items_per_second", 5.1e7}}})}};

  const json doc = report_json(in);
  EXPECT_EQ(doc.at("schema_version"), kReportSchemaVersion);
  EXPECT_EQ(doc.at("kind"), "recallbench.report");
  EXPECT_EQ(doc.at("verdict"), "regression");
  EXPECT_EQ(doc.at("runs").size(), 24u);
  EXPECT_EQ(doc.at("configs").size(), 4u);
  EXPECT_EQ(doc.at("comparison").at("counts").at("regression"), 1);
  EXPECT_EQ(doc.at("bench").size(), 1u);

  const std::string html = report_html(in);
  for (const char* needle : {"<!doctype html>", "id=\"verdict\"", "Verdict: regression", "id=\"by-cell-table\"",
                             "id=\"sweeps\"", "recall vs pairs", "id=\"lottery\"", "id=\"curves\"", "id=\"kernels\"",
                             "BM_linear_attn_ref/64", "diag&lt;script&gt;", "name=\"viewport\""})
    EXPECT_NE(html.find(needle), std::string::npos) << needle;
  EXPECT_EQ(html.find("diag<script>"), std::string::npos);
  // Self-contained: no external resource of any kind (the only URL is the SVG namespace).
  for (const char* forbidden : {"src=\"http", "href=\"http", "@import", "url(http", "<link "})
    EXPECT_EQ(html.find(forbidden), std::string::npos) << forbidden;
  EXPECT_LT(html.find("id=\"verdict\""), html.find("id=\"by-cell\""));  // verdict first

  const std::string md = report_markdown(in);
  EXPECT_NE(md.find("## recallbench: regression"), std::string::npos) << md;
  EXPECT_NE(md.find("### Regressions"), std::string::npos);
  EXPECT_NE(md.find("`mqar/diag+conv/a`"), std::string::npos);
  EXPECT_NE(md.find("| cell | task | lock-in |"), std::string::npos);
}

// Issue 28: a context's date or commit of another type, and a recipe's steps as text, are shown as unknown.
TEST(Report, ContextAndRecipeFieldsOfAnotherTypeAreShownNotThrown) {
  RunSet runs;
  runs.configs = {planted("mqar/diag/a", "diag", 1, 3)};
  json train = runs.configs[0].train();
  train["steps"] = "400";
  runs.configs[0].set_train(train);
  runs.context = {{"git_commit", 5}, {"date", json::array({1})}};
  runs.source = "planted";
  runs.run_count = 3;
  ReportInput in;
  in.runs = &runs;
  const std::string html = report_html(in);
  EXPECT_NE(html.find("commit unknown"), std::string::npos);
  EXPECT_NE(report_markdown(in).find("unknown"), std::string::npos);
}

TEST(Report, BenchRowsPreferMediansAndRejectOtherJson) {
  const json bench = {{"benchmarks", json::array({{{"name", "BM_a"}, {"run_type", "iteration"}, {"items_per_second", 1.0}},
                                                  {{"name", "BM_a_median"}, {"run_type", "aggregate"},
                                                   {"aggregate_name", "median"}, {"items_per_second", 2.0}},
                                                  {{"name", "BM_a_mean"}, {"run_type", "aggregate"},
                                                   {"aggregate_name", "mean"}, {"items_per_second", 3.0}}})}};
  const auto rows = bench_rows(bench);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "BM_a_median");
  EXPECT_THROW(bench_rows(json{{"x", 1}}), UsageError);
}

}  // namespace
}  // namespace rb::reports
