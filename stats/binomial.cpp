// Binomial proportions: Clopper-Pearson, Wilson (with and without continuity correction) and Jeffreys
// intervals, and the exact binomial test (R's binom.test two-sided rule).
#include <algorithm>
#include <cmath>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <fmt/format.h>

#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {
namespace {

void check_kn(int64_t k, int64_t n, const char* what) {
  if (n < 1) throw UsageError(fmt::format("{}: got n = {}, expected n >= 1", what, n));
  if (k < 0 || k > n) throw UsageError(fmt::format("{}: got k = {} with n = {}, expected 0 <= k <= n", what, k, n));
}

void check_level(double level, const char* what) {
  if (!(level > 0.0 && level < 1.0))
    throw UsageError(fmt::format("{}: confidence level got {}, expected a number in (0, 1)", what, level));
}

// z with P(Z > z) = upper_tail.
double z_upper(double upper_tail) {
  return boost::math::quantile(boost::math::complement(boost::math::normal_distribution<double>(), upper_tail));
}

}  // namespace

BinomCiMethod parse_binom_ci_method(std::string_view name) {
  if (name == "clopper-pearson" || name == "exact" || name == "cp") return BinomCiMethod::kClopperPearson;
  if (name == "wilson") return BinomCiMethod::kWilson;
  if (name == "wilson-cc" || name == "wilsoncc") return BinomCiMethod::kWilsonCc;
  if (name == "jeffreys") return BinomCiMethod::kJeffreys;
  throw UsageError(fmt::format("interval method: got '{}', expected clopper-pearson, wilson, wilson-cc or jeffreys",
                               name));
}

const char* binom_ci_method_name(BinomCiMethod method) {
  switch (method) {
    case BinomCiMethod::kClopperPearson: return "clopper-pearson";
    case BinomCiMethod::kWilson: return "wilson";
    case BinomCiMethod::kWilsonCc: return "wilson-cc";
    case BinomCiMethod::kJeffreys: return "jeffreys";
  }
  return "?";
}

Interval clopper_pearson(int64_t k, int64_t n, double level) {
  check_kn(k, n, "clopper-pearson");
  check_level(level, "clopper-pearson");
  const double tail = (1.0 - level) / 2;
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  Interval r;
  r.low = k == 0 ? 0.0 : boost::math::ibeta_inv(kd, nd - kd + 1, tail);
  r.high = k == n ? 1.0 : boost::math::ibetac_inv(kd + 1, nd - kd, tail);
  return r;
}

Interval jeffreys(int64_t k, int64_t n, double level) {
  check_kn(k, n, "jeffreys");
  check_level(level, "jeffreys");
  const double tail = (1.0 - level) / 2;
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  Interval r;
  r.low = k == 0 ? 0.0 : boost::math::ibeta_inv(kd + 0.5, nd - kd + 0.5, tail);
  r.high = k == n ? 1.0 : boost::math::ibetac_inv(kd + 0.5, nd - kd + 0.5, tail);
  return r;
}

Interval wilson(int64_t k, int64_t n, double level) {
  check_kn(k, n, "wilson");
  check_level(level, "wilson");
  const double z = z_upper((1.0 - level) / 2);
  const double nd = static_cast<double>(n), p = static_cast<double>(k) / nd, q = 1.0 - p;
  const double denom = 2 * (nd + z * z);
  const double center = (2 * nd * p + z * z) / denom;
  const double delta = z / denom * std::sqrt(4 * nd * p * q + z * z);
  Interval r;
  r.low = k == 0 ? 0.0 : std::max(0.0, center - delta);
  r.high = k == n ? 1.0 : std::min(1.0, center + delta);
  return r;
}

Interval wilson_cc(int64_t k, int64_t n, double level) {
  check_kn(k, n, "wilson-cc");
  check_level(level, "wilson-cc");
  // Newcombe (1998), method 4.
  const double z = z_upper((1.0 - level) / 2);
  const double nd = static_cast<double>(n), p = static_cast<double>(k) / nd, q = 1.0 - p;
  const double denom = 2 * (nd + z * z);
  const double center = (2 * nd * p + z * z) / denom;
  Interval r;
  r.low = k == 0 ? 0.0 : std::max(0.0, center - (1 + z * std::sqrt(z * z - 2 - 1 / nd + 4 * p * (nd * q + 1))) / denom);
  r.high = k == n ? 1.0 : std::min(1.0, center + (1 + z * std::sqrt(z * z + 2 - 1 / nd + 4 * p * (nd * q - 1))) / denom);
  return r;
}

Interval binom_ci(int64_t k, int64_t n, BinomCiMethod method, double level) {
  switch (method) {
    case BinomCiMethod::kClopperPearson: return clopper_pearson(k, n, level);
    case BinomCiMethod::kWilson: return wilson(k, n, level);
    case BinomCiMethod::kWilsonCc: return wilson_cc(k, n, level);
    case BinomCiMethod::kJeffreys: return jeffreys(k, n, level);
  }
  return {};
}

Interval newcombe_difference(int64_t k1, int64_t n1, int64_t k2, int64_t n2, double level) {
  const Interval w1 = wilson(k1, n1, level), w2 = wilson(k2, n2, level);
  const double p1 = static_cast<double>(k1) / static_cast<double>(n1);
  const double p2 = static_cast<double>(k2) / static_cast<double>(n2);
  const double d = p1 - p2;
  Interval r;
  r.low = std::max(-1.0, d - std::sqrt((p1 - w1.low) * (p1 - w1.low) + (w2.high - p2) * (w2.high - p2)));
  r.high = std::min(1.0, d + std::sqrt((w1.high - p1) * (w1.high - p1) + (p2 - w2.low) * (p2 - w2.low)));
  return r;
}

BinomTestResult binom_test(int64_t k, int64_t n, double p0, Alternative alt, double conf_level) {
  check_kn(k, n, "binom-test");
  check_level(conf_level, "binom-test");
  if (!(p0 >= 0.0 && p0 <= 1.0))
    throw UsageError(fmt::format("binom-test: p0 got {}, expected a probability in [0, 1]", p0));
  BinomTestResult r;
  r.alternative = alt;
  r.estimate = static_cast<double>(k) / static_cast<double>(n);
  // One-sided alternatives get one-sided Clopper-Pearson bounds at the same level.
  if (alt == Alternative::kTwoSided) {
    r.ci = clopper_pearson(k, n, conf_level);
  } else {
    const Interval one = clopper_pearson(k, n, 1.0 - 2.0 * (1.0 - conf_level));
    r.ci = alt == Alternative::kLess ? Interval{0.0, one.high} : Interval{one.low, 1.0};
  }
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  // Degenerate null rates: all mass on 0 (or n).
  if (p0 == 0.0 || p0 == 1.0) {
    const int64_t sure = p0 == 0.0 ? 0 : n;
    const bool at_least = k >= sure, at_most = k <= sure;
    switch (alt) {
      case Alternative::kLess: r.p_value = at_most ? 1.0 : 0.0; break;
      case Alternative::kGreater: r.p_value = at_least ? 1.0 : 0.0; break;
      case Alternative::kTwoSided: r.p_value = k == sure ? 1.0 : 0.0; break;
    }
    return r;
  }
  const boost::math::binomial_distribution<double> dist(nd, p0);
  auto cdf = [&](int64_t x) {  // P(X <= x)
    return x < 0 ? 0.0 : x >= n ? 1.0 : boost::math::cdf(dist, static_cast<double>(x));
  };
  auto sf = [&](int64_t x) {  // P(X >= x)
    return x <= 0 ? 1.0 : x > n ? 0.0 : boost::math::cdf(boost::math::complement(dist, static_cast<double>(x - 1)));
  };
  if (alt == Alternative::kLess) {
    r.p_value = std::min(1.0, cdf(k));
    return r;
  }
  if (alt == Alternative::kGreater) {
    r.p_value = std::min(1.0, sf(k));
    return r;
  }
  // Two-sided (R's binom.test, SciPy's binomtest): outcomes on the far side of the mean whose probability
  // is <= P(X = k) * (1 + 1e-7) are as extreme. Compared in log space so nothing underflows.
  const double lp = std::log(p0), lq = std::log1p(-p0);
  auto logpmf = [&](int64_t x) {
    return log_choose(n, x) + static_cast<double>(x) * lp + static_cast<double>(n - x) * lq;
  };
  const double mean = nd * p0;
  const double limit = logpmf(k) + std::log1p(kTwoSidedRelTol);
  if (kd == mean) {
    r.p_value = 1.0;
  } else if (kd < mean) {
    int64_t y = 0;  // outcomes in [ceil(mean), n] at least as extreme
    for (int64_t i = static_cast<int64_t>(std::ceil(mean)); i <= n; ++i) y += logpmf(i) <= limit;
    r.p_value = std::min(1.0, cdf(k) + sf(n - y + 1));
  } else {
    int64_t y = 0;  // outcomes in [0, floor(mean)] at least as extreme
    for (int64_t i = 0; i <= static_cast<int64_t>(std::floor(mean)); ++i) y += logpmf(i) <= limit;
    r.p_value = std::min(1.0, cdf(y - 1) + sf(k));
  }
  return r;
}

}  // namespace rb::stats
