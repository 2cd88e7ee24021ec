// Paired sign tests and group-sequential boundaries with alpha spending (see stats.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "core/errors.h"
#include "stats/stats.h"

namespace rb::stats {
namespace {

// P(Binomial(n, 1/2) >= x), exact (Boost: the regularised incomplete beta).
double upper_tail_half(int64_t x, int64_t n) {
  if (x <= 0) return 1.0;
  if (x > n) return 0.0;
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
  return boost::math::cdf(boost::math::complement(b, static_cast<double>(x - 1)));
}

// The Binomial(m, 1/2) probabilities 0..m.
std::vector<double> half_pmf(int64_t m) {
  std::vector<double> p(static_cast<size_t>(m + 1));
  const boost::math::binomial_distribution<double> b(static_cast<double>(m), 0.5);
  for (int64_t i = 0; i <= m; ++i) p[static_cast<size_t>(i)] = boost::math::pdf(b, static_cast<double>(i));
  return p;
}

}  // namespace

int later_of_pair(const SurvivalObservation& a, const SurvivalObservation& b) {
  if (a.event && b.event) return b.time > a.time ? 1 : b.time < a.time ? -1 : 0;
  if (a.event && !b.event) return a.time <= b.time ? 1 : 0;   // b had not locked in by its censoring
  if (!a.event && b.event) return b.time <= a.time ? -1 : 0;
  return 0;                                                  // both censored
}

SignTestResult sign_test(int64_t later, int64_t sooner, int64_t ties) {
  RB_CHECK_INPUT(later >= 0 && sooner >= 0 && ties >= 0,
                 fmt::format("sign test: counts must be >= 0, got later {}, sooner {}, ties {}", later, sooner, ties));
  SignTestResult r;
  r.later = later;
  r.sooner = sooner;
  r.ties = ties;
  r.p_later = upper_tail_half(later, later + sooner);
  r.p_sooner = upper_tail_half(sooner, later + sooner);
  return r;
}

SignTestResult paired_sign_test(const std::vector<std::pair<SurvivalObservation, SurvivalObservation>>& pairs) {
  int64_t later = 0, sooner = 0, ties = 0;
  for (const auto& [a, b] : pairs) {
    RB_CHECK_INPUT(std::isfinite(a.time) && std::isfinite(b.time) && a.time >= 0 && b.time >= 0,
                   fmt::format("paired sign test: times must be finite and >= 0, got {} and {}", a.time, b.time));
    const int d = later_of_pair(a, b);
    (d > 0 ? later : d < 0 ? sooner : ties) += 1;
  }
  return sign_test(later, sooner, ties);
}

Spending parse_spending(std::string_view name) {
  if (name == "obrien-fleming" || name == "obf" || name == "o'brien-fleming") return Spending::kOBrienFleming;
  if (name == "pocock") return Spending::kPocock;
  throw UsageError(fmt::format("unknown alpha-spending function '{}'", name), "valid: obrien-fleming (obf), pocock");
}

const char* spending_name(Spending s) { return s == Spending::kPocock ? "pocock" : "obrien-fleming"; }

double alpha_spent(Spending s, double alpha, double t) {
  RB_CHECK_INPUT(alpha > 0 && alpha < 1, fmt::format("alpha got {}, expected a value in (0, 1)", alpha));
  RB_CHECK_INPUT(t > 0 && t <= 1 + 1e-12, fmt::format("information fraction got {}, expected (0, 1]", t));
  t = std::min(t, 1.0);
  if (s == Spending::kPocock) return alpha * std::log(1.0 + (std::exp(1.0) - 1.0) * t);
  const boost::math::normal_distribution<double> z;
  const double q = boost::math::quantile(boost::math::complement(z, alpha / 2.0));
  return 2.0 * boost::math::cdf(boost::math::complement(z, q / std::sqrt(t)));
}

namespace {

// The H0 distribution of light later + weight × heavy later over `light` and `heavy` fresh untied pairs.
std::vector<double> weighted_half_pmf(int64_t light, int64_t heavy, int64_t weight) {
  const std::vector<double> a = half_pmf(light), b = half_pmf(heavy);
  std::vector<double> out(static_cast<size_t>(light + weight * heavy + 1), 0.0);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) out[i + static_cast<size_t>(weight) * j] += a[i] * b[j];
  return out;
}

}  // namespace

SequentialResult sequential_sign_test(const std::vector<std::pair<int64_t, int64_t>>& looks,
                                      const std::vector<double>& information, double alpha, Spending spending,
                                      double futility_p) {
  std::vector<WeightedLookCounts> counts;
  for (const auto& [n, x] : looks) counts.push_back({n, x, 0, 0});
  return sequential_weighted_sign_test(counts, 1, information, alpha, spending, futility_p);
}

SequentialResult sequential_weighted_sign_test(const std::vector<WeightedLookCounts>& looks, int64_t heavy_weight,
                                               const std::vector<double>& information, double alpha,
                                               Spending spending, double futility_p) {
  RB_CHECK_INPUT(!looks.empty() && looks.size() == information.size(),
                 fmt::format("sequential test: got {} looks and {} information fractions, expected the same "
                             "number (at least one)", looks.size(), information.size()));
  RB_CHECK_INPUT(futility_p > 0 && futility_p <= 1, fmt::format("futility p got {}, expected (0, 1]", futility_p));
  RB_CHECK_INPUT(heavy_weight >= 1 && heavy_weight <= 64,
                 fmt::format("sequential test: heavy weight got {}, expected 1 to 64", heavy_weight));
  {  // every look checked before any is used (a futile first look must not hide a malformed second)
    WeightedLookCounts prev;
    double t0 = 0.0;
    for (size_t k = 0; k < looks.size(); ++k) {
      const auto& c = looks[k];
      for (const auto& [n, x, n0] : {std::tuple{c.light_pairs, c.light_later, prev.light_pairs},
                                     std::tuple{c.heavy_pairs, c.heavy_later, prev.heavy_pairs}})
        RB_CHECK_INPUT(n >= n0 && x >= 0 && x <= n,
                       fmt::format("sequential test: look {} has {} later of {} pairs after {} pairs: counts must "
                                   "grow and later <= pairs", k + 1, x, n, n0));
      RB_CHECK_INPUT(information[k] > t0 && information[k] <= 1 + 1e-12,
                     fmt::format("sequential test: information fractions must increase within (0, 1], got {} after {}",
                                 information[k], t0));
      prev = c;
      t0 = information[k];
    }
  }
  SequentialResult out;
  // state[w]: H0 probability of reaching this look with statistic w so far, not rejected.
  std::vector<double> state = {1.0};
  WeightedLookCounts prev;
  double spent = 0.0, crossed_before = 0.0;
  for (size_t k = 0; k < looks.size(); ++k) {
    const auto& c = looks[k];
    const double t = information[k];
    const int64_t w = c.light_later + heavy_weight * c.heavy_later;
    // The new untied pairs' statistic joins the surviving paths.
    const std::vector<double> add =
        weighted_half_pmf(c.light_pairs - prev.light_pairs, c.heavy_pairs - prev.heavy_pairs, heavy_weight);
    std::vector<double> next(state.size() + add.size() - 1, 0.0);
    for (size_t i = 0; i < state.size(); ++i)
      if (state[i] > 0)
        for (size_t j = 0; j < add.size(); ++j) next[i + j] += state[i] * add[j];
    state = std::move(next);
    const auto top = static_cast<int64_t>(state.size()) - 1;
    SequentialLook look;
    look.pairs = c.light_pairs + c.heavy_pairs;
    look.later = c.light_later + c.heavy_later;
    look.statistic = w;
    look.information = t;
    look.alpha_allowed = alpha_spent(spending, alpha, t);
    // The smallest boundary whose crossing probability fits the allowance left.
    const double allowance = look.alpha_allowed - spent;
    double tail = 0.0;
    int64_t boundary = top + 1;
    for (int64_t b = top; b >= 0; --b) {
      if (tail + state[static_cast<size_t>(b)] > allowance * (1 + 1e-12)) break;
      tail += state[static_cast<size_t>(b)];
      boundary = b;
    }
    look.boundary = boundary;
    spent += tail;
    look.alpha_spent = spent;
    if (c.heavy_pairs == 0) {
      look.p_nominal = upper_tail_half(c.light_later, c.light_pairs);
    } else {
      const std::vector<double> alone = weighted_half_pmf(c.light_pairs, c.heavy_pairs, heavy_weight);
      double p = 0.0;
      for (int64_t b = w; b <= top; ++b) p += alone[static_cast<size_t>(b)];
      look.p_nominal = std::min(1.0, p);
    }
    look.crossed = w >= boundary;
    // Stage-wise ordering: crossing earlier is more extreme; at this look, at least w among the survivors.
    double at_least_w = 0.0;
    for (int64_t b = w; b <= top; ++b) at_least_w += state[static_cast<size_t>(b)];
    const bool final_look = t >= 1 - 1e-12;
    look.futile = !look.crossed && !final_look && look.p_nominal > futility_p;
    out.looks.push_back(look);
    if (look.crossed || look.futile || k + 1 == looks.size()) {
      out.crossed = look.crossed;
      out.open = !look.crossed && !look.futile && !final_look;
      out.p_value = look.futile ? 1.0 : std::min(1.0, crossed_before + at_least_w);
      return out;
    }
    for (int64_t b = boundary; b <= top; ++b) state[static_cast<size_t>(b)] = 0.0;  // those paths stopped
    crossed_before = spent;
    prev = c;
  }
  return out;
}

}  // namespace rb::stats
