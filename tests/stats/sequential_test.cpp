// The paired sign test and the group-sequential sign test (stats/sequential.cpp): published values, the
// issue's figures, and the sequential rule's false-alarm rate and power by simulation (issue 25).
#include <array>
#include <tuple>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "stats/stats.h"

namespace rb::stats {
namespace {

TEST(SignTest, IssueFiguresAndRsBinomTest) {
  // 7 seeds slower, 0 faster, 3 equal (issue 25): one-sided 2^-7.
  EXPECT_NEAR(sign_test(7, 0, 3).p_later, 0.0078125, 1e-12);
  EXPECT_NEAR(sign_test(9, 0, 1).p_later, 0.001953125, 1e-12);
  // R: binom.test(8, 10, alternative = "greater")$p.value = 0.0546875
  EXPECT_NEAR(sign_test(8, 2).p_later, 0.0546875, 1e-12);
  EXPECT_NEAR(sign_test(8, 2).p_sooner, 0.9892578125, 1e-12);
  EXPECT_EQ(sign_test(0, 0, 10).p_later, 1.0);  // all tied: an unchanged tree is no evidence of anything
  EXPECT_THROW(sign_test(-1, 0), UsageError);
}

TEST(SignTest, CensoredPairsAreOrderedOnlyWhenKnowable) {
  const SurvivalObservation locked300{300, true}, locked400{400, true}, never1000{1000, false}, never500{500, false};
  EXPECT_EQ(later_of_pair(locked300, locked400), 1);
  EXPECT_EQ(later_of_pair(locked400, locked300), -1);
  EXPECT_EQ(later_of_pair(locked300, locked300), 0);
  EXPECT_EQ(later_of_pair(locked300, never1000), 1);   // locked in vs never within the budget
  EXPECT_EQ(later_of_pair(never1000, locked400), -1);
  EXPECT_EQ(later_of_pair(never1000, never1000), 0);
  EXPECT_EQ(later_of_pair(never500, {700, true}), 0);  // after the other's censoring: not comparable
  // The issue's diag+conv pairs: 500→never, 400→never, 650→never, 350→400, 600→never, 300→300, 300→300,
  // 350→never, 300→300, 300→350.
  const double kNever = -1;
  const std::vector<std::pair<double, double>> steps = {{500, kNever}, {400, kNever}, {650, kNever}, {350, 400},
                                                        {600, kNever}, {300, 300},    {300, 300},    {350, kNever},
                                                        {300, 300},    {300, 350}};
  std::vector<std::pair<SurvivalObservation, SurvivalObservation>> pairs;
  for (auto [b, c] : steps)
    pairs.push_back({{b < 0 ? 1000 : b, b >= 0}, {c < 0 ? 1000 : c, c >= 0}});
  const SignTestResult r = paired_sign_test(pairs);
  EXPECT_EQ(r.later, 7);
  EXPECT_EQ(r.sooner, 0);
  EXPECT_EQ(r.ties, 3);
  EXPECT_NEAR(r.p_later, 0.0078125, 1e-12);
}

TEST(Spending, LanDeMetsValues) {
  // O'Brien–Fleming type at t = 0.5, alpha 0.05: 2 - 2 Phi(1.959964 / sqrt(0.5)) = 0.005574 (R gsDesign sfLDOF).
  EXPECT_NEAR(alpha_spent(Spending::kOBrienFleming, 0.05, 0.5), 0.0055746, 1e-6);
  EXPECT_NEAR(alpha_spent(Spending::kOBrienFleming, 0.05, 1.0), 0.05, 1e-12);
  // Pocock type: 0.05 ln(1 + (e - 1) 0.5) = 0.031006.
  EXPECT_NEAR(alpha_spent(Spending::kPocock, 0.05, 0.5), 0.0310063, 1e-6);
  EXPECT_NEAR(alpha_spent(Spending::kPocock, 0.05, 1.0), 0.05, 1e-12);
  EXPECT_EQ(parse_spending("obf"), Spending::kOBrienFleming);
  EXPECT_THROW(parse_spending("haybittle"), UsageError);
}

TEST(Sequential, OneLookIsTheExactSignTest) {
  // n = 10 at alpha 0.05: P(X >= 9) = 11/1024 <= 0.05 < P(X >= 8) = 56/1024, so the boundary is 9.
  auto r = sequential_sign_test({{10, 9}}, {1.0}, 0.05, Spending::kOBrienFleming);
  ASSERT_EQ(r.looks.size(), 1u);
  EXPECT_EQ(r.looks[0].boundary(), 9);
  EXPECT_TRUE(r.crossed);
  EXPECT_NEAR(r.p_value, 11.0 / 1024, 1e-12);
  r = sequential_sign_test({{10, 8}}, {1.0}, 0.05, Spending::kOBrienFleming);
  EXPECT_FALSE(r.crossed);
  EXPECT_FALSE(r.open);  // the final look
  EXPECT_NEAR(r.p_value, 56.0 / 1024, 1e-12);
}

TEST(Sequential, StopsEarlyBothWaysAndStaysOpenBetween) {
  // Pocock, three looks of 10 pairs: 10 of 10 later crosses at once; 2 of 10 is futile; 7 of 10 stays open.
  const std::vector<double> t3 = {1.0 / 3, 2.0 / 3, 1.0};
  auto r = sequential_sign_test({{10, 10}}, {t3[0]}, 0.0125, Spending::kPocock);
  EXPECT_TRUE(r.crossed);
  EXPECT_LE(r.p_value, alpha_spent(Spending::kPocock, 0.0125, t3[0]));
  r = sequential_sign_test({{10, 2}}, {t3[0]}, 0.0125, Spending::kPocock);
  EXPECT_FALSE(r.crossed);
  EXPECT_TRUE(r.looks[0].futile);
  EXPECT_EQ(r.p_value, 1.0);
  r = sequential_sign_test({{7, 7}}, {t3[0]}, 0.0125, Spending::kPocock);  // p = 0.0078 > 0.00566 allowed
  EXPECT_FALSE(r.crossed);
  EXPECT_TRUE(r.open);
  r = sequential_sign_test({{7, 7}, {15, 14}}, {t3[0], t3[1]}, 0.0125, Spending::kPocock);
  EXPECT_TRUE(r.crossed);
  EXPECT_EQ(r.looks.size(), 2u);
  EXPECT_THROW(sequential_sign_test({{10, 4}, {8, 4}}, {0.5, 1.0}, 0.05, Spending::kPocock), UsageError);
  EXPECT_THROW(sequential_sign_test({{10, 4}}, {1.5}, 0.05, Spending::kPocock), UsageError);
}

// Simulated designs: 3 looks of 10 seeds, each seed's pair untied with probability `untied`, later with
// probability `later` when untied. Returns the fraction of replicates that cross.
double crossing_rate(double untied, double later, Spending spending, double alpha, int reps, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution is_untied(untied), is_later(later);
  int crossed = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::pair<int64_t, int64_t>> looks;
    std::vector<double> info;
    int64_t n = 0, x = 0;
    for (int k = 1; k <= 3; ++k) {
      for (int s = 0; s < 10; ++s)
        if (is_untied(rng)) ++n, x += is_later(rng) ? 1 : 0;
      looks.push_back({n, x});
      info.push_back(k / 3.0);
      const auto res = sequential_sign_test(looks, info, alpha, spending);
      if (res.crossed) ++crossed;
      if (!res.open) break;
    }
  }
  return static_cast<double>(crossed) / reps;
}

TEST(Sequential, FalseAlarmRateWithinAlphaBySimulation) {
  // Under H0 (later with probability 1/2 among untied pairs), whatever the tie rate: at most alpha, up to
  // the simulation's error (20,000 replicates: sd <= 0.0016 at 0.05).
  for (Spending s : {Spending::kOBrienFleming, Spending::kPocock})
    for (double untied : {0.3, 0.7, 1.0}) {
      const double rate = crossing_rate(untied, 0.5, s, 0.05, 20000, 11);
      std::printf("H0, %s, untied %.1f: %.4f of 20000 replicates cross (alpha 0.05)\n", spending_name(s), untied, rate);
      EXPECT_LE(rate, 0.05 + 0.004) << spending_name(s) << " untied " << untied;
      EXPECT_GT(rate, 0.005) << "the rule should spend a good part of alpha";
    }
}

TEST(Sequential, PowerAtTheCapForAClearShift) {
  // Seven of ten seeds move, nearly always the same way (later with probability 0.9): the issue's planted
  // learning-rate bug. At alpha 0.05 / 4 configs the rule catches it in at least 80% of replicates.
  const double pocock = crossing_rate(0.7, 0.9, Spending::kPocock, 0.0125, 5000, 12);
  const double obf = crossing_rate(0.7, 0.9, Spending::kOBrienFleming, 0.0125, 5000, 13);
  std::printf("later 0.9 among 70%% untied pairs, alpha 0.0125, 3 looks of 10: power %.3f (pocock), %.3f (obrien-fleming)\n",
              pocock, obf);
  EXPECT_GE(pocock, 0.8);
  EXPECT_GE(obf, 0.8);
}

TEST(MinPSequential, OnePartIsTheSignTest) {
  // A second part with no pairs never rejects: the same boundaries and p as the plain test.
  const std::vector<double> info = {1.0 / 3, 2.0 / 3, 1.0};
  const auto plain = sequential_sign_test({{6, 5}, {13, 10}, {20, 16}}, info, 0.0125, Spending::kPocock, 0.5);
  const auto two = sequential_min_p_test({{{6, 5}, {0, 0}}, {{13, 10}, {0, 0}}, {{20, 16}, {0, 0}}}, info, 0.0125,
                                         Spending::kPocock, 0.5);
  ASSERT_EQ(plain.looks.size(), two.looks.size());
  for (size_t k = 0; k < plain.looks.size(); ++k) {
    EXPECT_EQ(plain.looks[k].boundary(), two.looks[k].boundary());
    EXPECT_NEAR(plain.looks[k].p_nominal, two.looks[k].p_nominal, 1e-12);
    EXPECT_EQ(two.looks[k].tests[1].boundary, 1);  // no pair: cannot reject
  }
  EXPECT_NEAR(plain.p_value, two.p_value, 1e-12);
}

// The H0 probability, by enumerating every sign pattern, that a one-look min-p over parts of n1 and n2 untied
// pairs (each alone, and with `pooled` also both together) is at most `m`.
double enumerated_min_p_tail(int n1, int n2, double m, bool pooled = false) {
  const auto tail = [](int x, int n) {
    double t = 0;
    for (int f = 0; f < (1 << n); ++f) t += __builtin_popcount(static_cast<unsigned>(f)) >= x ? 1 : 0;
    return t / (1 << n);
  };
  double hits = 0;
  for (int f = 0; f < (1 << (n1 + n2)); ++f) {
    const int x1 = __builtin_popcount(static_cast<unsigned>(f & ((1 << n1) - 1)));
    const int x2 = __builtin_popcount(static_cast<unsigned>(f >> n1));
    double min_p = std::min(tail(x1, n1), tail(x2, n2));
    if (pooled) min_p = std::min(min_p, tail(x1 + x2, n1 + n2));
    hits += min_p <= m * (1 + 1e-12) ? 1 : 0;
  }
  return hits / (1 << (n1 + n2));
}

TEST(MinPSequential, OneLookIsTheExactMinPTail) {
  // 4 discordant pairs all lost (lock-in part p = 1/16) and 6 time pairs, 1 later (p = 63/64): the min-p is
  // 1/16 and its exact p counts every pattern where either part reaches 1/16.
  const auto r = sequential_min_p_test({{{4, 4}, {6, 1}}}, {1.0}, 0.2, Spending::kPocock, 0.5);
  ASSERT_EQ(r.looks.size(), 1u);
  EXPECT_NEAR(r.looks[0].min_p, 1.0 / 16, 1e-12);
  EXPECT_NEAR(r.looks[0].p_nominal, enumerated_min_p_tail(4, 6, 1.0 / 16), 1e-12);
  EXPECT_NEAR(r.p_value, r.looks[0].p_nominal, 1e-12);
  EXPECT_TRUE(r.crossed);
  EXPECT_EQ(r.looks[0].later, 5);
  EXPECT_EQ(r.looks[0].pairs, 10);
  EXPECT_THROW(sequential_min_p_test({{{3, 4}, {2, 2}}}, {1.0}, 0.05, Spending::kPocock), UsageError);
  EXPECT_THROW(sequential_min_p_test({{{3, 2}}, {{4, 2}, {1, 1}}}, {0.5, 1.0}, 0.05, Spending::kPocock), UsageError);
}

TEST(MinPSequential, APooledStatisticSumsItsParts) {
  // The issue-25 planted bug: 5 seeds lose their lock-in, 2 of the rest lock in later, 3 tie. Alone the parts
  // reach 2^-5 and 2^-2; "later or never" over all 7 reaches 2^-7, and nothing else can be that small here.
  const std::vector<std::vector<size_t>> stats = {{0}, {1}, {0, 1}};
  const auto r = sequential_min_p_test({{{5, 5}, {2, 2}}}, {1.0}, 0.0125, Spending::kPocock, 0.5, stats);
  ASSERT_EQ(r.looks[0].tests.size(), 3u);
  EXPECT_NEAR(r.looks[0].tests[0].p, 1.0 / 32, 1e-12);
  EXPECT_NEAR(r.looks[0].tests[2].p, 1.0 / 128, 1e-12);
  EXPECT_NEAR(r.p_value, enumerated_min_p_tail(5, 2, 1.0 / 128, true), 1e-12);
  EXPECT_NEAR(r.p_value, 1.0 / 128, 1e-12);
  EXPECT_TRUE(r.crossed);
  EXPECT_TRUE(r.looks[0].rejects(2));
  EXPECT_FALSE(r.looks[0].rejects(0));
  // A wider one-look case against the enumeration: 4 and 6 pairs, 3 and 5 worse.
  const auto w = sequential_min_p_test({{{4, 3}, {6, 5}}}, {1.0}, 0.5, Spending::kPocock, 1.0, stats);
  EXPECT_NEAR(w.p_value, enumerated_min_p_tail(4, 6, w.looks[0].min_p, true), 1e-12);
  EXPECT_THROW(sequential_min_p_test({{{4, 3}}}, {1.0}, 0.05, Spending::kPocock, 0.5, {{1}}), UsageError);
}

TEST(MinPSequential, ALockInLossIsNotPaidForByFasterSurvivors) {
  // Six seeds stop locking in, the ten that still do are all faster: the lock-in part alone decides
  // (2^-6 = 0.0156 <= what 0.05 allows at one look), whatever the time part says.
  const auto r = sequential_min_p_test({{{6, 6}, {10, 0}}}, {1.0}, 0.05, Spending::kPocock);
  EXPECT_TRUE(r.crossed);
  EXPECT_EQ(r.looks[0].tests[0].boundary, 6);
  EXPECT_LE(r.p_value, 0.05);
}

TEST(MinPSequential, ErrorSpentIsTheExactCrossingProbability) {
  // Three looks with fixed untied counts per part; every one of the 2^12 sign patterns run through the rule:
  // the probability of crossing equals what the last look reports as spent, and is at most alpha; the
  // stage-wise p is valid (P(p <= u) <= u).
  const std::vector<std::array<int, 2>> added = {{2, 2}, {1, 3}, {2, 2}};
  const std::vector<double> info = {1.0 / 3, 2.0 / 3, 1.0};
  const double alpha = 0.1;
  for (const auto& stats : std::vector<std::vector<std::vector<size_t>>>{{}, {{0}, {1}, {0, 1}}}) {
    double crossed = 0, spent = 0;
    std::vector<double> p_values;
    for (int f = 0; f < (1 << 12); ++f) {
      std::vector<std::vector<PartCounts>> looks;
      std::vector<PartCounts> c(2);
      int bit = 0;
      for (const auto& a : added) {
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < a[static_cast<size_t>(j)]; ++i) {
            ++c[static_cast<size_t>(j)].pairs;
            c[static_cast<size_t>(j)].worse += (f >> bit++) & 1;
          }
        looks.push_back(c);
      }
      const auto r = sequential_min_p_test(looks, info, alpha, Spending::kPocock, 1.0, stats);
      crossed += r.crossed ? 1 : 0;
      p_values.push_back(r.p_value);
      if (r.looks.size() == 3) spent = r.looks.back().alpha_spent;
    }
    crossed /= 1 << 12;
    EXPECT_NEAR(crossed, spent, 1e-12) << stats.size();
    EXPECT_LE(crossed, alpha);
    EXPECT_GT(crossed, 0.02);  // most of alpha is spent despite the discreteness
    for (double u : {0.01, 0.02, 0.05, 0.1, 0.3}) {
      double below = 0;
      for (double p : p_values) below += p <= u * (1 + 1e-12) ? 1 : 0;
      EXPECT_LE(below / (1 << 12), u + 1e-12) << u;
    }
  }
}

TEST(MinPSequential, FalseAlarmRateWithinAlphaBySimulation) {
  // Under H0 every untied pair is worse with probability 1/2, whichever its part: 5 looks of 10 pairs, a fifth
  // of the untied pairs in the lock-in part, the gate's three statistics, Pocock at 0.05. At most alpha up to simulation error.
  std::mt19937_64 rng(14);
  std::bernoulli_distribution coin(0.5), untied(0.7), lock(0.2);
  int crossed = 0;
  const int reps = 20000;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::vector<PartCounts>> looks;
    std::vector<double> info;
    std::vector<PartCounts> c(2);
    for (int k = 1; k <= 5; ++k) {
      for (int i = 0; i < 10; ++i) {
        if (!untied(rng)) continue;
        auto& part = c[lock(rng) ? 0 : 1];
        ++part.pairs;
        part.worse += coin(rng) ? 1 : 0;
      }
      looks.push_back(c);
      info.push_back(k / 5.0);
    }
    crossed += sequential_min_p_test(looks, info, 0.05, Spending::kPocock, 0.5, {{0}, {1}, {0, 1}}).crossed ? 1 : 0;
  }
  const double rate = static_cast<double>(crossed) / reps;
  std::printf("H0, min-p over two parts, 5 looks: %.4f of %d replicates cross (alpha 0.05)\n", rate, reps);
  EXPECT_LE(rate, 0.05 + 0.004);
  EXPECT_GT(rate, 0.005);
}

TEST(MedianBound, OrderStatisticOfTheInvertedSignTest) {
  // n = 10, alpha 0.05: P(Binomial(10, 1/2) <= 7) = 0.9453 < 0.95 <= P(<= 8) = 0.9893, so the bound is x_(9).
  std::vector<double> x = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  EXPECT_EQ(median_upper_bound(x, 0.05), 9.0);
  EXPECT_EQ(median_upper_bound({1, 2, 3}, 0.05), std::numeric_limits<double>::infinity());  // 3 values: < 0.95
  EXPECT_EQ(median_upper_bound({}, 0.05), std::numeric_limits<double>::infinity());
}


// The sign test's power against every outcome of n independent pairs, enumerated (worse w, better b, tied the
// rest: trinomial), and its edges: every pair worse reaches 0.0125 at 7 pairs (2^-7) and not at 6 (2^-6).
TEST(SignTest, PowerMatchesEnumeratingEveryOutcome) {
  EXPECT_DOUBLE_EQ(sign_test_power(1.0, 0.0, 7, 0.0125), 1.0);
  EXPECT_DOUBLE_EQ(sign_test_power(1.0, 0.0, 6, 0.0125), 0.0);
  EXPECT_DOUBLE_EQ(sign_test_power(0.0, 0.0, 10, 0.05), 0.0);
  for (const auto& [pw, pb, n, alpha] : {std::tuple{0.56, 0.06, 12, 0.0125}, std::tuple{0.3, 0.1, 15, 0.05},
                                         std::tuple{0.2, 0.2, 9, 0.05}}) {
    double expect = 0.0;
    for (int w = 0; w <= n; ++w)
      for (int b = 0; w + b <= n; ++b) {
        const double ways = std::tgamma(n + 1.0) / (std::tgamma(w + 1.0) * std::tgamma(b + 1.0) * std::tgamma(n - w - b + 1.0));
        const double pr = ways * std::pow(pw, w) * std::pow(pb, b) * std::pow(1.0 - pw - pb, n - w - b);
        if (w + b > 0 && significant(sign_test(w, b).p_later, alpha)) expect += pr;
      }
    EXPECT_NEAR(sign_test_power(pw, pb, n, alpha), expect, 1e-12) << pw << " " << pb << " " << n;
  }
  EXPECT_THROW(sign_test_power(0.7, 0.5, 10, 0.05), UsageError);
}

}  // namespace
}  // namespace rb::stats
