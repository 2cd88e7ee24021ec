// Fisher's exact test on a 2x2 table: p-values, sample and conditional-MLE odds ratios, the exact
// conditional interval, and the test's exact power, seed planning and smallest attainable p-value.
// All in log space through detail::Hypergeom.
#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/tools/roots.hpp>
#include <fmt/format.h>

#include "stats/hypergeom.h"
#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {
namespace {

using detail::Hypergeom;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool degenerate(const Table2x2& t) {
  return t.a + t.b == 0 || t.c + t.d == 0 || t.a + t.c == 0 || t.b + t.d == 0;
}

Hypergeom hypergeom_of(const Table2x2& t) { return detail::make_hypergeom(t.a + t.b, t.c + t.d, t.a + t.c); }

// log of sum over a subset (given by `keep`) of exp(logd), shifted by the subset's own maximum so that a
// tiny tail keeps full relative precision.
template <class Keep>
double subset_lse(const Hypergeom& h, Keep keep) {
  double mx = -kInf;
  for (int64_t x = h.lo; x <= h.hi; ++x)
    if (keep(x)) mx = std::max(mx, h.at(x));
  if (mx == -kInf) return -kInf;
  double s = 0.0, c = 0.0;
  for (int64_t x = h.lo; x <= h.hi; ++x) {
    if (!keep(x)) continue;
    const double e = std::exp(h.at(x) - mx);
    const double t = s + e;
    c += std::fabs(s) >= std::fabs(e) ? (s - t) + e : (e - t) + s;
    s = t;
  }
  return mx + std::log(s + c);
}

double p_from_log(double log_p) { return std::min(1.0, std::exp(log_p)); }

double p_less(const Hypergeom& h, int64_t a) {
  return p_from_log(subset_lse(h, [&](int64_t x) { return x <= a; }) - h.log_total);
}
double p_greater(const Hypergeom& h, int64_t a) {
  return p_from_log(subset_lse(h, [&](int64_t x) { return x >= a; }) - h.log_total);
}
double p_two_sided(const Hypergeom& h, int64_t a) {
  const double limit = h.at(a) + std::log1p(kTwoSidedRelTol);
  return p_from_log(subset_lse(h, [&](int64_t x) { return h.at(x) <= limit; }) - h.log_total);
}

// Solves f(t) = 0 for an increasing f of the log odds ratio t, starting from t0: expands a bracket, then
// TOMS 748. Tolerance in t is absolute (t = log psi: an absolute error in t is a relative one in psi).
template <class F>
double solve_increasing(F f, double t0) {
  double lo = t0, hi = t0;
  double flo = f(lo), fhi = flo;
  double step = 1.0;
  int guard = 0;
  if (flo > 0) {
    while (flo > 0) {
      hi = lo;
      fhi = flo;
      lo -= step;
      step *= 2;
      flo = f(lo);
      RB_ASSERT(++guard < 60, "fisher: could not bracket the odds-ratio root");
    }
  } else {
    while (fhi < 0) {
      lo = hi;
      flo = fhi;
      hi += step;
      step *= 2;
      fhi = f(hi);
      RB_ASSERT(++guard < 60, "fisher: could not bracket the odds-ratio root");
    }
  }
  if (flo == 0) return lo;
  if (fhi == 0) return hi;
  boost::uintmax_t iters = 200;
  auto tol = [](double x, double y) { return std::fabs(x - y) <= std::max(1e-13, 4e-16 * std::fabs(x)); };
  const auto r = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, tol, iters);
  return 0.5 * (r.first + r.second);
}

// Conditional MLE of the odds ratio: the psi whose noncentral mean equals the observed a.
double conditional_mle(const Hypergeom& h, int64_t a) {
  if (a == h.lo) return 0.0;
  if (a == h.hi) return kInf;
  const double target = static_cast<double>(a);
  const double t = solve_increasing([&](double tt) { return detail::tilted_mean(h, tt) - target; }, 0.0);
  return std::exp(t);
}

// Lower limit: psi with P_psi(A >= a) = tail (0 when a is the smallest possible value).
double ci_lower(const Hypergeom& h, int64_t a, double tail, double t0) {
  if (a == h.lo) return 0.0;
  const double log_tail = std::log(tail);
  auto f = [&](double t) {
    return detail::tilted_lse(h, t, a, h.hi, a) - detail::tilted_lse(h, t, h.lo, h.hi, a) - log_tail;
  };
  return std::exp(solve_increasing(f, t0));
}

// Upper limit: psi with P_psi(A <= a) = tail (+inf when a is the largest possible value).
double ci_upper(const Hypergeom& h, int64_t a, double tail, double t0) {
  if (a == h.hi) return kInf;
  const double log_tail = std::log(tail);
  // P_psi(A <= a) decreases in psi: negate to make it increasing.
  auto f = [&](double t) {
    return -(detail::tilted_lse(h, t, h.lo, a, a) - detail::tilted_lse(h, t, h.lo, h.hi, a) - log_tail);
  };
  return std::exp(solve_increasing(f, t0));
}

void check_alpha(double alpha, const char* what) {
  if (!(alpha > 0.0 && alpha < 1.0))
    throw UsageError(fmt::format("{}: got {}, expected a number in (0, 1)", what, alpha));
}

void check_probability(double p, const char* what) {
  if (!(p >= 0.0 && p <= 1.0))
    throw UsageError(fmt::format("{}: got {}, expected a probability in [0, 1]", what, p));
}

// Calls f(x1, x2, p) for every table with row totals n1, n2 (x1, x2 = successes), p its Fisher p-value.
template <class F>
void for_each_table(int64_t n1, int64_t n2, Alternative alt, F f) {
  std::vector<double> p;
  for (int64_t m = 0; m <= n1 + n2; ++m) {
    const Hypergeom h = detail::make_hypergeom(n1, n2, m);
    detail::margin_p_values(h, alt, p);
    for (int64_t x1 = h.lo; x1 <= h.hi; ++x1) f(x1, m - x1, p[static_cast<size_t>(x1 - h.lo)]);
  }
}

}  // namespace

void validate(const Table2x2& t) {
  if (t.a < 0 || t.b < 0 || t.c < 0 || t.d < 0)
    throw UsageError(fmt::format("2x2 table: got counts [{}, {}; {}, {}], expected counts >= 0", t.a, t.b, t.c, t.d));
  if (t.a + t.b > kMaxFisherRowTotal || t.c + t.d > kMaxFisherRowTotal)
    throw UsageError(fmt::format("2x2 table: got row totals {} and {}, expected at most {} each", t.a + t.b,
                                 t.c + t.d, kMaxFisherRowTotal));
}

double log_choose(int64_t n, int64_t k) {
  if (k < 0 || k > n || n < 0) return -kInf;
  return std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
         std::lgamma(static_cast<double>(n - k) + 1);
}

std::vector<double> binomial_pmf(int64_t n, double p) {
  check_probability(p, "binomial pmf: p");
  if (n < 0) throw UsageError(fmt::format("binomial pmf: got n = {}, expected n >= 0", n));
  std::vector<double> out(static_cast<size_t>(n + 1));
  const boost::math::binomial_distribution<double> dist(static_cast<double>(n), p);
  for (int64_t k = 0; k <= n; ++k) out[static_cast<size_t>(k)] = boost::math::pdf(dist, static_cast<double>(k));
  return out;
}

bool significant(double p_value, double alpha) { return p_value <= alpha * (1.0 + kAlphaRelTol); }

double fisher_p_value(const Table2x2& t, Alternative alt) {
  validate(t);
  if (degenerate(t)) return 1.0;
  const Hypergeom h = hypergeom_of(t);
  switch (alt) {
    case Alternative::kLess: return p_less(h, t.a);
    case Alternative::kGreater: return p_greater(h, t.a);
    case Alternative::kTwoSided: return p_two_sided(h, t.a);
  }
  return 1.0;
}

FisherResult fisher_exact(const Table2x2& t, Alternative alt, double conf_level) {
  validate(t);
  check_alpha(conf_level, "fisher: confidence level");
  FisherResult r;
  r.alternative = alt;
  r.conf_level = conf_level;
  if (degenerate(t)) {
    r.p_value = r.p_two_sided = r.p_greater = r.p_less = 1.0;
    r.odds_ratio = r.conditional_odds_ratio = kNaN;
    r.ci_low = 0.0;
    r.ci_high = kInf;
    return r;
  }
  const double ad = static_cast<double>(t.a) * static_cast<double>(t.d);
  const double bc = static_cast<double>(t.b) * static_cast<double>(t.c);
  r.odds_ratio = bc > 0 ? ad / bc : kInf;

  const Hypergeom h = hypergeom_of(t);
  r.p_less = p_less(h, t.a);
  r.p_greater = p_greater(h, t.a);
  r.p_two_sided = p_two_sided(h, t.a);
  r.p_value = alt == Alternative::kLess ? r.p_less : alt == Alternative::kGreater ? r.p_greater : r.p_two_sided;

  r.conditional_odds_ratio = conditional_mle(h, t.a);
  const double psi = r.conditional_odds_ratio;
  const double t0 = (psi > 0 && std::isfinite(psi)) ? std::log(psi) : 0.0;
  const double alpha = 1.0 - conf_level;
  switch (alt) {
    case Alternative::kTwoSided:
      r.ci_low = ci_lower(h, t.a, alpha / 2, t0);
      r.ci_high = ci_upper(h, t.a, alpha / 2, t0);
      break;
    case Alternative::kGreater:
      r.ci_low = ci_lower(h, t.a, alpha, t0);
      r.ci_high = kInf;
      break;
    case Alternative::kLess:
      r.ci_low = 0.0;
      r.ci_high = ci_upper(h, t.a, alpha, t0);
      break;
  }
  return r;
}

double fisher_power(double p1, double p2, int64_t n1, int64_t n2, double alpha, Alternative alt) {
  check_probability(p1, "power: p1");
  check_probability(p2, "power: p2");
  check_alpha(alpha, "power: alpha");
  if (n1 < 1 || n2 < 1 || n1 > kMaxEnumeratedRow || n2 > kMaxEnumeratedRow)
    throw UsageError(fmt::format("power: got n1 = {}, n2 = {}, expected 1 to {} seeds per row", n1, n2,
                                 kMaxEnumeratedRow));
  const std::vector<double> b1 = binomial_pmf(n1, p1), b2 = binomial_pmf(n2, p2);
  double power = 0.0;
  for_each_table(n1, n2, alt, [&](int64_t x1, int64_t x2, double p) {
    if (significant(p, alpha)) power += b1[static_cast<size_t>(x1)] * b2[static_cast<size_t>(x2)];
  });
  return std::min(1.0, power);
}

SeedPlan seeds_for_power(double p1, double p2, double target_power, double alpha, Alternative alt, int64_t max_n) {
  check_probability(p1, "seeds: p1");
  check_probability(p2, "seeds: p2");
  check_alpha(alpha, "seeds: alpha");
  if (!(target_power > 0.0 && target_power < 1.0))
    throw UsageError(fmt::format("seeds: target power got {}, expected a number in (0, 1)", target_power));
  if (max_n < 1 || max_n > kMaxSeedSearch)
    throw UsageError(fmt::format("seeds: max n got {}, expected 1 to {} (the search's work grows as max n cubed: {} "
                                 "takes seconds, 5000 would take about 15 minutes)",
                                 max_n, kMaxSeedSearch, kMaxSeedSearch));
  return seeds_for_power([&](int64_t n) { return fisher_power(p1, p2, n, n, alpha, alt); }, target_power,
                         SeedGrid{1, max_n});
}

SeedPlan seeds_for_power(const std::function<double(int64_t n)>& power_at, double target_power,
                         const SeedGrid& grid) {
  SeedPlan plan;
  for (int64_t n = grid.first; n <= grid.last; n += n < grid.coarse_from ? 1 : std::max<int64_t>(1, grid.coarse_step)) {
    plan.power = power_at(n);
    if (plan.power >= target_power) {
      plan.n = n;
      plan.reached = true;
      return plan;
    }
  }
  return plan;
}

SeedPlan seeds_for_power_bisected(const std::function<double(int64_t n)>& power_at, double target_power,
                                  int64_t max_n) {
  SeedPlan plan;
  int64_t below = 0, above = 0;
  double above_power = 0.0;
  for (int64_t n = 2;; n *= 2) {
    const int64_t probe = std::min(n, max_n);
    const double p = power_at(probe);
    if (p >= target_power) {
      above = probe;
      above_power = p;
      break;
    }
    below = probe;
    plan.power = p;
    if (probe == max_n) break;
  }
  if (above == 0) return plan;
  while (above - below > 1) {
    const int64_t mid = below + (above - below) / 2;
    const double p = power_at(mid);
    if (p >= target_power) {
      above = mid;
      above_power = p;
    } else {
      below = mid;
    }
  }
  plan.n = above;
  plan.power = above_power;
  plan.reached = true;
  return plan;
}

double min_attainable_p(int64_t n1, int64_t n2, Alternative alt) {
  if (n1 < 0 || n2 < 0 || n1 > kMaxEnumeratedRow || n2 > kMaxEnumeratedRow)
    throw UsageError(fmt::format("min attainable p: got n1 = {}, n2 = {}, expected 0 to {} seeds per row", n1, n2,
                                 kMaxEnumeratedRow));
  double best = 1.0;
  for_each_table(n1, n2, alt, [&](int64_t, int64_t, double p) { best = std::min(best, p); });
  return best;
}

bool can_reach_significance(int64_t n1, int64_t n2, double alpha, Alternative alt) {
  check_alpha(alpha, "alpha");
  return significant(min_attainable_p(n1, n2, alt), alpha);
}

}  // namespace rb::stats
