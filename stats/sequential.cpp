// Paired sign tests and group-sequential boundaries with alpha spending (see stats.h).
#include <algorithm>
#include <cmath>
#include <limits>
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

double sign_test_power(double p_worse, double p_better, int64_t pairs, double alpha) {
  RB_CHECK_INPUT(p_worse >= 0.0 && p_better >= 0.0 && p_worse + p_better <= 1.0 + 1e-12,
                 fmt::format("sign test power: got P(worse) {} and P(better) {}, expected probabilities summing to at "
                             "most 1", p_worse, p_better));
  RB_CHECK_INPUT(pairs >= 0, fmt::format("sign test power: got {} pairs, expected >= 0", pairs));
  const double untied = std::min(1.0, p_worse + p_better);
  if (pairs == 0 || untied <= 0.0) return 0.0;
  const boost::math::binomial_distribution<double> d_of(static_cast<double>(pairs), untied);
  const double share = p_worse / untied;
  double power = 0.0;
  int64_t w = 1;  // the fewest worse of d untied pairs the test rejects on: never fewer as d grows
  for (int64_t d = 1; d <= pairs; ++d) {
    while (w <= d && !significant(upper_tail_half(w, d), alpha)) ++w;
    if (w > d) continue;
    const boost::math::binomial_distribution<double> w_of(static_cast<double>(d), share);
    const double tail = boost::math::cdf(boost::math::complement(w_of, static_cast<double>(w - 1)));
    power += boost::math::pdf(d_of, static_cast<double>(d)) * tail;
  }
  return std::min(1.0, power);
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

constexpr double kTol = 1e-12;  // p-values compared as equal within this relative tolerance

// P(Binomial(n, 1/2) >= x) for x = 0..n+1, summed from the top (exact to rounding in the small tails).
std::vector<double> upper_tails(int64_t n) {
  const std::vector<double> pmf = half_pmf(n);
  std::vector<double> tails(static_cast<size_t>(n + 2), 0.0);
  for (int64_t x = n; x >= 0; --x) tails[static_cast<size_t>(x)] = tails[static_cast<size_t>(x + 1)] + pmf[static_cast<size_t>(x)];
  tails[0] = 1.0;
  for (auto& t : tails) t = std::min(t, 1.0);
  return tails;
}

// The smallest count whose upper tail is at most p (n + 1 when none is).
int64_t tail_boundary(const std::vector<double>& tails, double p) {
  for (size_t x = 0; x < tails.size(); ++x)
    if (tails[x] <= p * (1 + kTol)) return static_cast<int64_t>(x);
  return static_cast<int64_t>(tails.size()) - 1;
}

// The H0 probabilities of the parts' joint counts (row-major over the parts) that have not stopped.
struct Grid {
  std::vector<int64_t> dims = {};  // pairs + 1 per part
  std::vector<double> p = {1.0};
};

size_t cells(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// `extra` fresh untied pairs join part `axis`: its count convolved with Binomial(extra, 1/2).
Grid add_pairs(const Grid& g, size_t axis, int64_t extra) {
  if (extra == 0) return g;
  const std::vector<double> add = half_pmf(extra);
  Grid out;
  out.dims = g.dims;
  out.dims[axis] += extra;
  out.p.assign(cells(out.dims), 0.0);
  size_t outer = 1, inner = 1;
  for (size_t j = 0; j < axis; ++j) outer *= static_cast<size_t>(g.dims[j]);
  for (size_t j = axis + 1; j < g.dims.size(); ++j) inner *= static_cast<size_t>(g.dims[j]);
  const auto from = static_cast<size_t>(g.dims[axis]), to = static_cast<size_t>(out.dims[axis]);
  for (size_t o = 0; o < outer; ++o)
    for (size_t a = 0; a < from; ++a)
      for (size_t i = 0; i < inner; ++i) {
        const double v = g.p[(o * from + a) * inner + i];
        if (v == 0.0) continue;
        for (size_t e = 0; e < add.size(); ++e) out.p[(o * to + a + e) * inner + i] += v * add[e];
      }
  return out;
}

// Each cell's min-p: the smallest of its statistics' upper tails (statistic s at the sum of its parts' counts).
std::vector<double> min_p_of_cells(const std::vector<int64_t>& dims, const std::vector<std::vector<size_t>>& statistics,
                                   const std::vector<std::vector<double>>& tails) {
  std::vector<double> out(cells(dims), 1.0);
  std::vector<int64_t> x(dims.size(), 0);
  for (double& m : out) {
    for (size_t s = 0; s < statistics.size(); ++s) {
      int64_t sum = 0;
      for (size_t j : statistics[s]) sum += x[j];
      m = std::min(m, tails[s][static_cast<size_t>(sum)]);
    }
    for (size_t j = dims.size(); j-- > 0;) {  // the next cell, last part fastest
      if (++x[j] < dims[j]) break;
      x[j] = 0;
    }
  }
  return out;
}

// The largest statistic value whose H0 mass of {min-p <= value} fits `allowance` (0 when none does), and
// that mass.
std::pair<double, double> largest_fitting(const std::vector<double>& min_p, const std::vector<double>& mass,
                                          double allowance) {
  std::vector<std::pair<double, double>> by_p;
  for (size_t i = 0; i < mass.size(); ++i)
    if (mass[i] > 0.0) by_p.emplace_back(min_p[i], mass[i]);
  std::sort(by_p.begin(), by_p.end());
  double threshold = 0.0, spent = 0.0, cum = 0.0;
  for (size_t i = 0; i < by_p.size();) {
    size_t j = i;
    double group = 0.0;
    while (j < by_p.size() && by_p[j].first <= by_p[i].first * (1 + kTol)) group += by_p[j++].second;
    if (cum + group > allowance * (1 + kTol)) break;
    cum += group;
    threshold = by_p[j - 1].first;
    spent = cum;
    i = j;
  }
  return {threshold, spent};
}

void check_looks(const std::vector<std::vector<PartCounts>>& looks, const std::vector<double>& information,
                 const std::vector<std::vector<size_t>>& statistics) {
  RB_CHECK_INPUT(!looks.empty() && looks.size() == information.size(),
                 fmt::format("sequential test: got {} looks and {} information fractions, expected the same "
                             "number (at least one)", looks.size(), information.size()));
  const size_t parts = looks.front().size();
  RB_CHECK_INPUT(parts >= 1 && parts <= 4, fmt::format("sequential test: got {} parts, expected 1 to 4", parts));
  std::vector<PartCounts> prev(parts);
  double t0 = 0.0;
  for (size_t k = 0; k < looks.size(); ++k) {  // every look checked before any is used
    RB_CHECK_INPUT(looks[k].size() == parts,
                   fmt::format("sequential test: look {} has {} parts, expected {}", k + 1, looks[k].size(), parts));
    for (size_t j = 0; j < parts; ++j) {
      const auto& c = looks[k][j];
      RB_CHECK_INPUT(c.pairs >= prev[j].pairs && c.worse >= 0 && c.worse <= c.pairs,
                     fmt::format("sequential test: look {} has {} worse of {} pairs after {} pairs: counts must "
                                 "grow and worse <= pairs", k + 1, c.worse, c.pairs, prev[j].pairs));
    }
    RB_CHECK_INPUT(information[k] > t0 && information[k] <= 1 + 1e-12,
                   fmt::format("sequential test: information fractions must increase within (0, 1], got {} after {}",
                               information[k], t0));
    prev = looks[k];
    t0 = information[k];
  }
  for (const auto& st : statistics) {
    RB_CHECK_INPUT(!st.empty(), "sequential test: a statistic sums no part");
    for (size_t j : st)
      RB_CHECK_INPUT(j < parts, fmt::format("sequential test: a statistic names part {} of {}", j + 1, parts));
  }
  double grid = 1.0;
  for (const auto& c : looks.back()) grid *= static_cast<double>(c.pairs + 1);
  RB_CHECK_INPUT(grid <= 1e7, fmt::format("sequential test: {} joint counts, expected at most 10^7 (fewer pairs)", grid));
}

}  // namespace

SequentialResult sequential_sign_test(const std::vector<std::pair<int64_t, int64_t>>& looks,
                                      const std::vector<double>& information, double alpha, Spending spending,
                                      double futility_p) {
  std::vector<std::vector<PartCounts>> parts;
  for (const auto& [n, x] : looks) parts.push_back({{n, x}});
  return sequential_min_p_test(parts, information, alpha, spending, futility_p);
}

SequentialResult sequential_min_p_test(const std::vector<std::vector<PartCounts>>& looks,
                                       const std::vector<double>& information, double alpha, Spending spending,
                                       double futility_p, const std::vector<std::vector<size_t>>& given) {
  RB_CHECK_INPUT(futility_p > 0 && futility_p <= 1, fmt::format("futility p got {}, expected (0, 1]", futility_p));
  check_looks(looks, information, given);
  const size_t parts = looks.front().size();
  std::vector<std::vector<size_t>> statistics = given;
  if (statistics.empty())
    for (size_t j = 0; j < parts; ++j) statistics.push_back({j});
  SequentialResult out;
  Grid state;
  state.dims.assign(parts, 1);
  std::vector<PartCounts> prev(parts);
  double spent = 0.0, crossed_before = 0.0;
  for (size_t k = 0; k < looks.size(); ++k) {
    const auto& now = looks[k];
    for (size_t j = 0; j < parts; ++j) state = add_pairs(state, j, now[j].pairs - prev[j].pairs);
    SequentialLook look;
    for (const auto& st : statistics) {
      LookTest t;
      t.parts = st;
      for (size_t j : st) t.pairs += now[j].pairs, t.worse += now[j].worse;
      look.tests.push_back(t);
    }
    std::vector<std::vector<double>> tails;
    for (const auto& t : look.tests) tails.push_back(upper_tails(t.pairs));
    const std::vector<double> min_p = min_p_of_cells(state.dims, statistics, tails);

    look.information = information[k];
    look.alpha_allowed = alpha_spent(spending, alpha, information[k]);
    const auto [threshold, mass] = largest_fitting(min_p, state.p, look.alpha_allowed - spent);
    look.p_boundary = threshold;
    spent += mass;
    look.alpha_spent = spent;
    for (const auto& c : now) look.pairs += c.pairs, look.later += c.worse;
    for (size_t s = 0; s < look.tests.size(); ++s) {
      auto& t = look.tests[s];
      t.p = tails[s][static_cast<size_t>(t.worse)];
      t.boundary = threshold > 0.0 ? tail_boundary(tails[s], threshold) : t.pairs + 1;
      look.min_p = std::min(look.min_p, t.p);
    }
    // This look alone, fresh: the H0 mass of the product distribution with a min-p at most the observed.
    {
      Grid fresh;
      fresh.dims.assign(parts, 1);
      for (size_t j = 0; j < parts; ++j) fresh = add_pairs(fresh, j, now[j].pairs);
      double p = 0.0;
      for (size_t i = 0; i < min_p.size(); ++i)
        if (min_p[i] <= look.min_p * (1 + kTol)) p += fresh.p[i];
      look.p_nominal = std::min(1.0, p);
    }
    look.crossed = threshold > 0.0 && look.min_p <= threshold * (1 + kTol);
    // Stage-wise ordering: crossing earlier is more extreme; at this look, a min-p at most the observed one.
    double at_most = 0.0;
    for (size_t i = 0; i < min_p.size(); ++i)
      if (min_p[i] <= look.min_p * (1 + kTol)) at_most += state.p[i];
    const bool final_look = information[k] >= 1 - 1e-12;
    // Futile when no statistic leans towards "worse" (each one's own p above the bound); non-binding: the
    // boundaries above ignore it, so stopping for futility only lowers the error.
    look.futile = !look.crossed && !final_look && look.min_p > futility_p;
    out.looks.push_back(look);
    if (look.crossed || look.futile || k + 1 == looks.size()) {
      out.crossed = look.crossed;
      out.open = !look.crossed && !look.futile && !final_look;
      out.p_value = look.futile ? 1.0 : std::min(1.0, crossed_before + at_most);
      return out;
    }
    for (size_t i = 0; i < min_p.size(); ++i)
      if (threshold > 0.0 && min_p[i] <= threshold * (1 + kTol)) state.p[i] = 0.0;  // those paths stopped
    crossed_before = spent;
    prev = now;
  }
  return out;
}

double median_upper_bound(std::vector<double> x, double alpha) {
  RB_CHECK_INPUT(alpha > 0 && alpha < 1, fmt::format("median bound: alpha got {}, expected (0, 1)", alpha));
  const auto n = static_cast<int64_t>(x.size());
  if (n == 0) return std::numeric_limits<double>::infinity();
  std::sort(x.begin(), x.end());
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), 0.5);
  for (int64_t u = 1; u <= n; ++u)  // P(median <= x_(u)) = P(Binomial(n, 1/2) <= u - 1)
    if (boost::math::cdf(b, static_cast<double>(u - 1)) >= 1 - alpha - 1e-12) return x[static_cast<size_t>(u - 1)];
  return std::numeric_limits<double>::infinity();
}

}  // namespace rb::stats
