// Boschloo's exact unconditional test: the one-sided Fisher p-value orders the tables; the p-value is
// the supremum over the common success rate pi of the probability (two independent binomials) of the
// tables at least as extreme as the observed one. The set's probability depends on pi only through the
// column total s = x1 + x2, so it collapses to sum_s C_s pi^s (1 - pi)^(N - s): O(N) per pi.
#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/tools/minima.hpp>
#include <fmt/format.h>

#include "stats/hypergeom.h"
#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// SciPy's guard for ties in the ordering statistic (gh-14178): p <= stat * (1 + 1e-13).
constexpr double kStatRelTol = 1e-13;

struct OneSided {
  double p_value = 1.0;
  double statistic = 1.0;
  double nuisance = 0.0;
};

OneSided boschloo_one_sided(const Table2x2& t, Alternative alt, int grid) {
  const int64_t n1 = t.a + t.b, n2 = t.c + t.d, total = n1 + n2;
  // Fisher one-sided p-values of all tables, grouped by column total s.
  std::vector<std::vector<double>> pvals(static_cast<size_t>(total + 1));
  std::vector<int64_t> lows(static_cast<size_t>(total + 1));
  for (int64_t s = 0; s <= total; ++s) {
    const detail::Hypergeom h = detail::make_hypergeom(n1, n2, s);
    detail::margin_p_values(h, alt, pvals[static_cast<size_t>(s)]);
    lows[static_cast<size_t>(s)] = h.lo;
  }
  OneSided r;
  r.statistic = pvals[static_cast<size_t>(t.a + t.c)][static_cast<size_t>(t.a - lows[static_cast<size_t>(t.a + t.c)])];
  const double limit = r.statistic * (1.0 + kStatRelTol);
  // log C_s = log sum over extreme tables with column total s of C(n1, x1) C(n2, x2).
  std::vector<double> log_coef(static_cast<size_t>(total + 1), kNegInf);
  for (int64_t s = 0; s <= total; ++s) {
    const auto& p = pvals[static_cast<size_t>(s)];
    double mx = kNegInf;
    std::vector<double> terms;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] > limit) continue;
      const int64_t x1 = lows[static_cast<size_t>(s)] + static_cast<int64_t>(i);
      terms.push_back(log_choose(n1, x1) + log_choose(n2, s - x1));
      mx = std::max(mx, terms.back());
    }
    if (terms.empty()) continue;
    double sum = 0.0;
    for (double v : terms) sum += std::exp(v - mx);
    log_coef[static_cast<size_t>(s)] = mx + std::log(sum);
  }
  // log P_pi(extreme set).
  auto log_prob = [&](double pi) {
    const double lp = std::log(pi), lq = std::log1p(-pi);
    double mx = kNegInf;
    std::vector<double> v(static_cast<size_t>(total + 1), kNegInf);
    for (int64_t s = 0; s <= total; ++s) {
      const double c = log_coef[static_cast<size_t>(s)];
      if (c == kNegInf) continue;
      // pi^0 = 1 and (1 - pi)^0 = 1 also at pi = 0 or 1.
      const double e = c + (s > 0 ? static_cast<double>(s) * lp : 0.0) +
                       (total - s > 0 ? static_cast<double>(total - s) * lq : 0.0);
      v[static_cast<size_t>(s)] = e;
      mx = std::max(mx, e);
    }
    if (mx == kNegInf) return kNegInf;
    double sum = 0.0;
    for (double e : v)
      if (e != kNegInf) sum += std::exp(e - mx);
    return mx + std::log(sum);
  };
  // Grid over [0, 1] (ends included), then Brent's method around every grid local maximum.
  std::vector<double> xs(static_cast<size_t>(grid + 1)), fs(static_cast<size_t>(grid + 1));
  for (int i = 0; i <= grid; ++i) {
    xs[static_cast<size_t>(i)] = static_cast<double>(i) / grid;
    fs[static_cast<size_t>(i)] = log_prob(xs[static_cast<size_t>(i)]);
  }
  double best = kNegInf, best_pi = 0.0;
  for (int i = 0; i <= grid; ++i) {
    const double f = fs[static_cast<size_t>(i)];
    if (f > best) best = f, best_pi = xs[static_cast<size_t>(i)];
    const bool left_ok = i == 0 || f >= fs[static_cast<size_t>(i - 1)];
    const bool right_ok = i == grid || f >= fs[static_cast<size_t>(i + 1)];
    if (!(left_ok && right_ok)) continue;
    const double lo = xs[static_cast<size_t>(std::max(0, i - 1))], hi = xs[static_cast<size_t>(std::min(grid, i + 1))];
    boost::uintmax_t iters = 200;
    const auto m = boost::math::tools::brent_find_minima([&](double pi) { return -log_prob(pi); }, lo, hi, 52, iters);
    if (-m.second > best) best = -m.second, best_pi = m.first;
  }
  r.p_value = std::clamp(std::exp(best), 0.0, 1.0);
  r.nuisance = best_pi;
  return r;
}

}  // namespace

BoschlooResult boschloo_exact(const Table2x2& t, Alternative alt, int grid) {
  validate(t);
  if (grid < 2 || grid > 100000)
    throw UsageError(fmt::format("boschloo: grid got {}, expected 2..100000 points", grid));
  constexpr int64_t kMaxRow = 2000;
  if (t.a + t.b > kMaxRow || t.c + t.d > kMaxRow)
    throw UsageError(fmt::format("boschloo: got row totals {} and {}, expected at most {} (the test enumerates "
                                 "every table; use fisher for large counts)",
                                 t.a + t.b, t.c + t.d, kMaxRow));
  BoschlooResult r;
  r.alternative = alt;
  if (t.a + t.b == 0 || t.c + t.d == 0) {
    // An empty row: no information; SciPy returns NaN here, we return the conservative p = 1.
    r.p_value = 1.0;
    r.statistic = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  if (alt != Alternative::kTwoSided) {
    const OneSided o = boschloo_one_sided(t, alt, grid);
    r.p_value = o.p_value;
    r.statistic = o.statistic;
    r.nuisance = o.nuisance;
    return r;
  }
  const OneSided less = boschloo_one_sided(t, Alternative::kLess, grid);
  const OneSided greater = boschloo_one_sided(t, Alternative::kGreater, grid);
  const OneSided& o = less.p_value < greater.p_value ? less : greater;
  r.p_value = std::min(1.0, 2.0 * o.p_value);
  r.statistic = o.statistic;
  r.nuisance = o.nuisance;
  return r;
}

}  // namespace rb::stats
