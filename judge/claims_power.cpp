// The power of a claim's test and the seeds it would need. See claims_power.h.
#include "judge/claims_power.h"

#include <algorithm>
#include <random>

namespace rb::judge::detail {
namespace {

// The share of `draws` resamples (fixed seed) in which hit(x, y) holds: x of n_a values, each
// move(v) of a draw v from `pool`, and y of n_b draws from `pool` itself.
template <class Move, class Hit>
double resampled_rate(const std::vector<double>& pool, int64_t n_a, int64_t n_b, int draws,
                      Move move, Hit hit) {
  if (pool.empty() || n_a < 1 || n_b < 1) return 0.0;
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  int hits = 0;
  std::vector<double> x(n_a), y(n_b);
  for (int d = 0; d < draws; ++d) {
    for (auto& v : x) v = move(pool[pick(rng)]);
    for (auto& v : y) v = pool[pick(rng)];
    hits += hit(x, y) ? 1 : 0;
  }
  return static_cast<double>(hits) / draws;
}

// Mann–Whitney power by resampling b's seeds; arm a is b shifted by `shift` (signed).
double mw_power(const std::vector<double>& b, double shift, int64_t n_a, int64_t n_b, double alpha,
                stats::Alternative alt) {
  return resampled_rate(
      b, n_a, n_b, 400, [&](double v) { return std::clamp(v + shift, 0.0, 1.0); },
      [&](const std::vector<double>& x, const std::vector<double>& y) {
        return stats::significant(stats::mann_whitney_u(x, y, alt).p_value, alpha);
      });
}

// The claimed recall shift of arm a over arm b, signed: negative for less and not-less.
double signed_shift(const Claim& c) {
  return c.direction == Direction::kGreater || c.direction == Direction::kNone ? c.shift : -c.shift;
}

// Exact power of a two-sided Fisher claim, counted only when significant on the claimed side.
double fisher_two_sided_power(const Claim& claim, int64_t n_a, int64_t n_b, double alpha_each) {
  const int sign = claim.direction == Direction::kLess ? -1 : 1;
  const std::vector<double> pmf_a = stats::binomial_pmf(n_a, claim.effect_a);
  const std::vector<double> pmf_b = stats::binomial_pmf(n_b, claim.effect_b);
  double power = 0.0;
  for (int64_t x = 0; x <= n_a; ++x)
    for (int64_t y = 0; y <= n_b; ++y) {
      const double side = static_cast<double>(x) / n_a - static_cast<double>(y) / n_b;
      if (side * sign <= 0) continue;
      const stats::Table2x2 t{x, n_a - x, y, n_b - y};
      if (stats::significant(stats::fisher_p_value(t, stats::Alternative::kTwoSided), alpha_each))
        power += pmf_a[static_cast<size_t>(x)] * pmf_b[static_cast<size_t>(y)];
    }
  return power;
}

}  // namespace

stats::Alternative power_alternative(Direction direction) {
  if (direction == Direction::kGreater) return stats::Alternative::kGreater;
  if (direction == Direction::kNone) return stats::Alternative::kTwoSided;
  return stats::Alternative::kLess;
}

double directional_power(const Claim& claim, const std::vector<double>& b_recalls, int64_t n_a,
                         int64_t n_b, double alpha_each) {
  if (claim.statistic == Statistic::kMannWhitney)
    return mw_power(b_recalls, signed_shift(claim), n_a, n_b, alpha_each / claim.sided,
                    power_alternative(claim.direction));
  if (claim.sided == 2) return fisher_two_sided_power(claim, n_a, n_b, alpha_each);
  return stats::fisher_power(claim.effect_a, claim.effect_b, n_a, n_b, alpha_each,
                             power_alternative(claim.direction));
}

double equivalence_power(const Claim& claim, const Config& a, const Config& b, double pooled_rate,
                         int64_t n_a, int64_t n_b, double alpha_each) {
  const double m = claim.claimed_size();
  const double level = 1.0 - 2.0 * alpha_each;
  const auto inside = [&](double low, double high) {
    return claim.direction == Direction::kNone ? low > -m && high < m : low > -m;
  };
  if (claim.statistic == Statistic::kFisher) {
    const std::vector<double> pmf_a = stats::binomial_pmf(n_a, pooled_rate);
    const std::vector<double> pmf_b = stats::binomial_pmf(n_b, pooled_rate);
    double power = 0.0;
    for (int64_t x = 0; x <= n_a; ++x)
      for (int64_t y = 0; y <= n_b; ++y) {
        const stats::Interval i = stats::newcombe_difference(x, n_a, y, n_b, level);
        if (inside(i.low, i.high))
          power += pmf_a[static_cast<size_t>(x)] * pmf_b[static_cast<size_t>(y)];
      }
    return power;
  }
  // Nothing differs: both arms drawn from the pooled residuals (each arm's recalls less its
  // median), so the spread of the wider arm counts.
  std::vector<double> residuals;
  for (const Config* c : {&a, &b}) {
    const auto r = recalls(*c);
    const double median = rb::spread(r).median;
    for (double x : r) residuals.push_back(x - median);
  }
  return resampled_rate(
      residuals, n_a, n_b, 200, [](double v) { return v; },
      [&](const std::vector<double>& x, const std::vector<double>& y) {
        const stats::ShiftEstimate e = stats::hodges_lehmann(x, y, level);
        return inside(e.low, e.high);
      });
}

double one_arm_power(int64_t n, double p0, double alpha_each) {
  return stats::significant(stats::binom_test(0, n, p0, stats::Alternative::kLess).p_value,
                            alpha_each)
             ? 1.0
             : 0.0;
}

int64_t seeds_needed(const Claim& claim, const Config& a, const Config& b, int64_t n_now,
                     double alpha_each) {
  const int64_t from = std::max<int64_t>(2, n_now);
  stats::SeedPlan plan;
  if (claim.equivalence()) {
    const Tally ta = tally(a), tb = tally(b);
    const double pooled = static_cast<double>(ta.k + tb.k) / std::max<int64_t>(ta.n + tb.n, 1);
    const int64_t cap = claim.statistic == Statistic::kFisher ? 200 : 40;
    plan = stats::seeds_for_power(
        [&](int64_t n) { return equivalence_power(claim, a, b, pooled, n, n, alpha_each); },
        kClaimPower, stats::SeedGrid{from, cap, 30, 5});
  } else if (claim.statistic == Statistic::kFisher) {
    // The search over Fisher's exact power at the claimed rates (two-sided claims: the two-sided
    // test's).
    plan = stats::seeds_for_power(
        claim.effect_a, claim.effect_b, kClaimPower, alpha_each,
        claim.sided == 2 ? stats::Alternative::kTwoSided : power_alternative(claim.direction), 200);
  } else {
    const std::vector<double> b_recalls = recalls(b);
    plan = stats::seeds_for_power(
        [&](int64_t n) { return directional_power(claim, b_recalls, n, n, alpha_each); },
        kClaimPower, stats::SeedGrid{from, 200, 30, 10});
  }
  return plan.reached ? plan.n : 0;
}

int64_t one_arm_seeds_needed(double p0, double alpha_each) {
  const stats::SeedPlan plan =
      stats::seeds_for_power([&](int64_t n) { return one_arm_power(n, p0, alpha_each); },
                             kClaimPower, stats::SeedGrid{1, stats::kMaxSeedSearch});
  return plan.reached ? plan.n : 0;
}

}  // namespace rb::judge::detail
