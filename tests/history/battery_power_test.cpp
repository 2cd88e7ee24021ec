// The gate's battery test (judge::BatteryTest, issue 61): its false-alarm rate under the paired null and its
// power on a slowdown of every config, at the smoke gate's 10 seeds, against what the per-config tests find.
// Model: every config of ci/baselines/smoke.json (its 50 real seeds per config); a history of one baseline and
// one current side of 10 seeds each. Baseline seed i is a draw from the config's 50; the current run of seed i
// is that same outcome (the commit repeats the seed bit for bit) or, with probability 1 - keep, a fresh draw
// (a neutral numerical change redraws it through the lock-in lottery): under H0 each pair is exchangeable.
// A slowdown multiplies every locked-in seed's step by the factor, up to the next evaluation, censored at
// the budget. The printed table is the evidence in docs/gate-evidence.md; the assertions check the null (the
// false-alarm rate not significantly above alpha) and that the battery finds the x1.15 slowdown of every
// config with at least 70% power where the per-config tests do not.
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "reports/report.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

using namespace rb::judge;

SeedOutcome slowed(SeedOutcome d, double factor, int64_t budget, int64_t grid) {
  if (!d.locked_in() || factor == 1.0) return d;
  const auto step = static_cast<int64_t>(std::ceil(static_cast<double>(d.lock_in_step) * factor / grid - 1e-9) * grid);
  if (step > budget) {
    d.reached_threshold = false, d.lock_in_step = -1, d.steps = budget, d.final_accuracy = d.best_accuracy = 0.5;
  } else {
    d.lock_in_step = d.steps = step;
  }
  return d;
}

struct Rates {
  int battery = 0;     // the battery test rejected (regression or below the minimum effect)
  int any_config = 0;  // some config's own test rejected
  int any = 0;         // either: the gate reported a change
};

Rates simulate(const Baseline& b, double factor, double keep, int reps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Rates r;
  for (int rep = 0; rep < reps; ++rep) {
    std::vector<Config> base, cur;
    for (const auto& tc : b.configs) {
      std::uniform_int_distribution<size_t> pick(0, tc.seeds.size() - 1);
      Config x = tc, y = tc;
      x.seeds.clear(), y.seeds.clear();
      for (int64_t i = 0; i < 10; ++i) {
        SeedOutcome d = tc.seeds[pick(rng)];
        d.seed = i;
        d.train_fingerprint.clear();
        SeedOutcome e = u(rng) < keep ? d : tc.seeds[pick(rng)];
        e.seed = i;
        e.train_fingerprint.clear();
        x.seeds.push_back(d);
        y.seeds.push_back(slowed(e, factor, tc.step_budget(), tc.train().value("eval_every", 50)));
      }
      base.push_back(std::move(x));
      cur.push_back(std::move(y));
    }
    const Comparison c = compare(base, cur);
    const bool battery = c.battery.rejected();
    bool config = false;
    for (const auto& cc : c.configs)
      config = config || cc.verdict == Verdict::kRegression || cc.verdict == Verdict::kBelowMinimumEffect;
    r.battery += battery ? 1 : 0;
    r.any_config += config ? 1 : 0;
    r.any += battery || config ? 1 : 0;
  }
  return r;
}

TEST(BatteryPower, NullHoldsAndASlowdownOfEveryConfigIsFound) {
  const Baseline b = read_baseline(RB_SOURCE_DIR "/ci/baselines/smoke.json");
  const int reps = 400;
  std::printf("| current side (10 seeds per config, %zu configs) | battery test | some config's own test | the gate "
              "reports a change |\n| --- | --- | --- | --- |\n", b.configs.size());
  const auto share = [&](int k) { return 100.0 * k / reps; };
  for (double keep : {1.0, 0.5, 0.0}) {
    const Rates n = simulate(b, 1.0, keep, reps, 61);
    const auto ci = stats::clopper_pearson(n.any, reps);
    std::printf("| null, each seed kept with p %.1f (else redrawn) | %.1f%% | %.1f%% | %.1f%% (95%% CI %.1f-%.1f%%) |\n",
                keep, share(n.battery), share(n.any_config), share(n.any), 100 * ci.low, 100 * ci.high);
    EXPECT_LE(ci.low, 0.05) << "keep " << keep << ": false alarms significantly above alpha";
  }
  for (double factor : {1.15, 1.3, 1.5}) {
    for (double keep : {1.0, 0.7, 0.0}) {
      const Rates p = simulate(b, factor, keep, reps, 62);
      std::printf("| every config x%.2f, each seed kept with p %.1f | %.1f%% | %.1f%% | %.1f%% |\n", factor, keep,
                  share(p.battery), share(p.any_config), share(p.any));
      if (factor == 1.15 && keep == 1.0) {
        EXPECT_GE(p.battery, 0.7 * reps);
        EXPECT_GE(p.battery, p.any_config);
      }
    }
  }
}

}  // namespace
}  // namespace rb::reports
