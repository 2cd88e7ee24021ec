// The sequential paired gate's false-alarm rate and power, simulated from the stored smoke baseline's own
// per-seed data (ci/baselines/smoke.json: 50 seeds per config), at the rule ci/gate uses (looks of 10 pairs up
// to every seed the baseline holds, Pocock spending, the paired min-p test over its lock-in and time parts at
// alpha / configs (Bonferroni over the 4 configs), the default minimum effects judged on one-sided upper
// bounds). Issue 25, item 3; issue 43, items 4 and 5.
//
// The simulation model: the current run of seed s keeps its own pair's outcome with probability `keep`, and is
// otherwise drawn from the baseline's seeds of the same config (with replacement). keep 0 throws the pairing
// away (the two runs of one seed agree far more than two seeds do), so its power is a lower bound and its
// false-alarm rate is that of a change that scrambles every seed's outcome without moving its distribution.
// Effects applied to the outcome: lock-in rate -30 points (each locked-in draw fails to lock in with
// probability 0.3 / baseline rate), or time to lock-in +30% (each step x1.3, to the next evaluation, censored
// at the budget), or both at once the way they could cancel (lock-in -30 points while every surviving seed locks
// in 30% sooner), or, on the config that never locks in (rank1, the recall endpoint, median recall 0.27), every
// seed's recall 15% lower. Giving compare() all current seeds at once is the sequential procedure itself: looks
// are evaluated in order and the first crossing or futility stop ends it. The rule has no tuning constant to
// choose on this baseline (the min-p weighs its parts equally by construction); the floors are the defaults.
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "reports/gate_text.h"
#include "reports/report.h"

namespace rb::reports {
namespace {

using namespace rb::judge;

enum class Effect { kNone, kLockInDrop30, kSlower30, kDropWithFasterSurvivors, kRecallDown15 };

const char* effect_name(Effect e) {
  switch (e) {
    case Effect::kNone: return "no effect";
    case Effect::kLockInDrop30: return "lock-in -30 points";
    case Effect::kSlower30: return "time to lock-in +30%";
    case Effect::kDropWithFasterSurvivors: return "lock-in -30, rest -30% steps";
    case Effect::kRecallDown15: return "recall -15%";
  }
  return "";
}

Config draw_current(const Config& base, Effect effect, double keep, std::mt19937_64& rng) {
  Config cur = base;
  std::uniform_int_distribution<size_t> pick(0, base.seeds.size() - 1);
  int64_t locked = 0;
  for (const auto& s : base.seeds) locked += s.locked_in() ? 1 : 0;
  const double rate = static_cast<double>(locked) / static_cast<double>(base.seeds.size());
  const int64_t budget = base.step_budget();
  const int64_t grid = base.train().value("eval_every", 50);
  std::bernoulli_distribution drop(rate > 0 ? std::min(1.0, 0.3 / rate) : 0.0), kept(keep);
  for (size_t i = 0; i < cur.seeds.size(); ++i) {
    auto& s = cur.seeds[i];
    SeedOutcome d = kept(rng) ? base.seeds[i] : base.seeds[pick(rng)];
    d.seed = s.seed;
    d.train_fingerprint = s.train_fingerprint;
    const bool drops = effect == Effect::kLockInDrop30 || effect == Effect::kDropWithFasterSurvivors;
    if (drops && d.locked_in() && drop(rng)) {
      d.reached_threshold = false;
      d.lock_in_step = -1;
      d.steps = budget;
      d.final_accuracy = d.best_accuracy = 0.5;
    } else if (effect == Effect::kDropWithFasterSurvivors && d.locked_in()) {
      d.lock_in_step = d.steps = std::max<int64_t>(grid, static_cast<int64_t>(std::ceil(0.7 * d.lock_in_step / grid) * grid));
    }
    if (effect == Effect::kRecallDown15) d.final_accuracy *= 0.85;
    if (effect == Effect::kSlower30 && d.locked_in()) {
      const auto slowed = static_cast<int64_t>(std::ceil(static_cast<double>(d.lock_in_step) * 1.3 / grid) * grid);
      if (slowed > budget) {
        d.reached_threshold = false, d.lock_in_step = -1, d.steps = budget, d.final_accuracy = d.best_accuracy = 0.5;
      } else {
        d.lock_in_step = d.steps = slowed;
      }
    }
    s = d;
  }
  return cur;
}

// `keep`: the chance that a seed's current run keeps its own pair's outcome (before the effect) rather than a
// fresh draw from the baseline's seeds: 0 is the no-pairing lower bound; the neutral numerical mutations of
// tests/gate/mutations measure the real value (docs/gate-evidence.md).
void simulate(double keep, int reps) {
  const Baseline b = read_baseline(RB_SOURCE_DIR "/ci/baselines/smoke.json");
  ASSERT_EQ(b.configs.size(), 4u);
  GateOptions o;
  o.stage_seeds = 10;
  o.max_stages = static_cast<int64_t>(b.configs[0].seeds.size()) / o.stage_seeds;  // the cap: every stored seed
  std::mt19937_64 rng(20261201);
  for (size_t target = 0; target < b.configs.size(); ++target) {
    const Config& tc = b.configs[target];
    int64_t locked = 0;
    for (const auto& s : tc.seeds) locked += s.locked_in() ? 1 : 0;
    // rank1 never locks in: the recall endpoint (no lock-in to drop or slow, a recall to lower).
    const std::vector<Effect> effects =
        locked == 0 ? std::vector<Effect>{Effect::kNone, Effect::kRecallDown15}
                    : std::vector<Effect>{Effect::kNone, Effect::kLockInDrop30, Effect::kSlower30,
                                          Effect::kDropWithFasterSurvivors};
    for (Effect effect : effects) {
      int flagged = 0, family_alarm = 0;
      double looks = 0;
      for (int r = 0; r < reps; ++r) {
        std::vector<Config> cur;
        for (size_t i = 0; i < b.configs.size(); ++i)
          cur.push_back(draw_current(b.configs[i], i == target ? effect : Effect::kNone, keep, rng));
        const Comparison c = compare(b.configs, cur, o);
        for (const auto& cc : c.configs) {
          if (cc.key == tc.key) {
            flagged += cc.verdict == Verdict::kRegression ? 1 : 0;
            looks += static_cast<double>(cc.sequential.looks.size());
          }
        }
        family_alarm += GateCounts(c).regressions > (effect == Effect::kNone ? 0 : 1) ? 1 : 0;
      }
      const double rate = static_cast<double>(flagged) / reps;
      const char* name = effect_name(effect);
      std::printf("keep %.1f  %-16s %-30s flagged %5.1f%% of %d (mean looks %.2f); other configs flagged in %.1f%%\n",
                  keep, tc.cell.c_str(), name, 100.0 * rate, reps, looks / reps, 100.0 * family_alarm / reps);
      if (effect == Effect::kNone) {
        EXPECT_LE(rate, 0.05 + 0.04) << tc.cell;  // alpha plus simulation error
      } else if (effect != Effect::kSlower30 || keep >= 0.5) {
        // The stated minimum effects at 80% power (issue 25), less about two simulation standard errors at
        // 150 replicates: a change to the rule or the baseline that loses power fails here. Time to lock-in
        // +30% is asserted once half the pairs keep their outcome (the neutral mutations kept 50-90%): with no
        // pairing at all the redrawn seeds' lock-in noise dilutes it (docs/gate-evidence.md). A lock-in drop
        // is caught whether or not the surviving seeds get faster: the parts cannot cancel (issue 43).
        EXPECT_GE(rate, 0.8 - 0.07) << tc.cell << " " << name;
      }
      EXPECT_LE(static_cast<double>(family_alarm) / reps, 0.05 + 0.04) << tc.cell;
    }
  }
}

TEST(GatePower, NoPairingLowerBound) { simulate(0.0, 150); }
TEST(GatePower, HalfThePairsKept) { simulate(0.5, 150); }
TEST(GatePower, MostPairsKept) { simulate(0.8, 150); }

}  // namespace
}  // namespace rb::reports
