// Mann-Whitney U (Wilcoxon rank-sum): exact null distribution for small samples without ties, normal
// approximation with tie and continuity correction otherwise. Conventions follow SciPy's mannwhitneyu
// and R's wilcox.test (U of x; two-sided p = 2 * the smaller tail, capped at 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {
namespace {

// P(U = u), u = 0..n1*n2, for samples of sizes n1, n2 without ties. Recurrence on the largest value:
// it is an x with probability i/(i+j) (then it beats all j y's) or a y:
//   P_{i,j}(u) = i/(i+j) P_{i-1,j}(u - j) + j/(i+j) P_{i,j-1}(u).
// Only additions of positive terms: no cancellation. O(n1^2 n2^2 / 4) work, O(n1 n2^2) memory.
std::vector<double> exact_u_distribution(int64_t n1, int64_t n2) {
  std::vector<std::vector<double>> prev(static_cast<size_t>(n2 + 1)), cur(static_cast<size_t>(n2 + 1));
  for (auto& v : prev) v.assign(1, 1.0);  // i = 0: U = 0 surely
  for (int64_t i = 1; i <= n1; ++i) {
    cur[0].assign(1, 1.0);  // j = 0: U = 0 surely
    for (int64_t j = 1; j <= n2; ++j) {
      std::vector<double>& out = cur[static_cast<size_t>(j)];
      out.assign(static_cast<size_t>(i * j + 1), 0.0);
      const double wx = static_cast<double>(i) / static_cast<double>(i + j), wy = 1.0 - wx;
      const auto& px = prev[static_cast<size_t>(j)];     // P_{i-1,j}
      const auto& py = cur[static_cast<size_t>(j - 1)];  // P_{i,j-1}
      for (size_t u = 0; u < px.size(); ++u) out[u + static_cast<size_t>(j)] += wx * px[u];
      for (size_t u = 0; u < py.size(); ++u) out[u] += wy * py[u];
    }
    std::swap(prev, cur);
  }
  return prev[static_cast<size_t>(n2)];
}

void check_sample(const std::vector<double>& v, const char* name) {
  if (v.empty()) throw UsageError(fmt::format("mann-whitney: sample {} is empty, expected at least one value", name));
  for (double x : v)
    if (std::isnan(x)) throw UsageError(fmt::format("mann-whitney: sample {} holds NaN, expected numbers", name));
}

}  // namespace

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, Alternative alt,
                                 MannWhitneyMethod method, bool continuity) {
  check_sample(x, "x");
  check_sample(y, "y");
  MannWhitneyResult r;
  r.alternative = alt;
  const int64_t n1 = static_cast<int64_t>(x.size()), n2 = static_cast<int64_t>(y.size()), n = n1 + n2;
  r.n_x = n1;
  r.n_y = n2;

  // Average ranks of the pooled sample; tie term sum(t^3 - t) over tie groups.
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::vector<size_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pooled[a] < pooled[b]; });
  std::vector<double> rank(static_cast<size_t>(n));
  double tie_term = 0.0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const double avg = 0.5 * static_cast<double>(i + j) + 1.0;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = avg;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  r.ties = tie_term > 0;
  double r1 = 0.0;
  for (int64_t i = 0; i < n1; ++i) r1 += rank[static_cast<size_t>(i)];
  const double n1d = static_cast<double>(n1), n2d = static_cast<double>(n2), nd = static_cast<double>(n);
  r.u = r1 - n1d * (n1d + 1) / 2;
  const double u2 = n1d * n2d - r.u;

  // The statistic whose upper tail is the p-value: U1 for greater, U2 for less, max for two-sided.
  const double u_stat = alt == Alternative::kGreater ? r.u : alt == Alternative::kLess ? u2 : std::max(r.u, u2);
  const double factor = alt == Alternative::kTwoSided ? 2.0 : 1.0;

  const double mu = n1d * n2d / 2;
  const double sd = std::sqrt(n1d * n2d / 12 * ((nd + 1) - tie_term / (nd * (nd - 1))));
  // Signed z of U of x (with the continuity correction towards the mean), reported for both methods.
  const double dev = r.u - mu;
  const double cc = continuity ? (dev > 0 ? 0.5 : dev < 0 ? -0.5 : 0.0) : 0.0;
  r.z = sd > 0 ? (dev - cc) / sd : 0.0;

  bool exact = false;
  switch (method) {
    case MannWhitneyMethod::kAuto:
      exact = !r.ties && n1 <= kMannWhitneyExactMaxN && n2 <= kMannWhitneyExactMaxN;
      break;
    case MannWhitneyMethod::kExact:
      if (r.ties)
        throw UsageError("mann-whitney: got tied values with the exact method, expected no ties",
                         "use the normal approximation (method auto or normal) for tied data");
      if (n1 > 100 || n2 > 100)
        throw UsageError(fmt::format("mann-whitney: got samples of {} and {} with the exact method, expected at "
                                     "most 100 each", n1, n2));
      exact = true;
      break;
    case MannWhitneyMethod::kNormal: exact = false; break;
  }
  r.exact = exact;
  r.method = exact ? "exact" : "normal";
  if (exact) {
    const std::vector<double> dist = exact_u_distribution(n1, n2);
    // U is an integer without ties; P(U >= u_stat).
    const size_t from = static_cast<size_t>(std::llround(u_stat));
    double tail = 0.0;
    for (size_t u = dist.size(); u-- > from;) tail += dist[u];
    r.p_value = std::clamp(factor * tail, 0.0, 1.0);
  } else {
    if (!(sd > 0)) {
      r.p_value = 1.0;  // every value tied: no evidence either way
    } else {
      const double z = (u_stat - mu - (continuity ? 0.5 : 0.0)) / sd;
      const double sf = boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
      r.p_value = std::clamp(factor * sf, 0.0, 1.0);
    }
  }
  return r;
}

ShiftEstimate hodges_lehmann(const std::vector<double>& x, const std::vector<double>& y, double level) {
  if (x.empty() || y.empty()) throw UsageError("hodges-lehmann: both samples must be non-empty");
  if (!(level > 0 && level < 1)) throw UsageError(fmt::format("hodges-lehmann: level must be in (0, 1), got {}", level));
  std::vector<double> all;
  all.reserve(x.size() * y.size());
  for (double xi : x)
    for (double yj : y) {
      if (std::isnan(xi) || std::isnan(yj)) throw UsageError("hodges-lehmann: samples must not hold NaN");
      all.push_back(xi - yj);
    }
  std::sort(all.begin(), all.end());
  const size_t m = all.size();
  ShiftEstimate r;
  r.estimate = m % 2 ? all[m / 2] : 0.5 * (all[m / 2 - 1] + all[m / 2]);
  std::vector<double> d(all.begin(), std::unique(all.begin(), all.end()));  // the distinct differences
  // Gap j lies between the distinct differences d[j-1] and d[j] (d[-1] = -inf, d[u] = +inf); inside a gap
  // no x - shift equals a y, and U is constant. The interval's ends are the differences that bound the kept
  // gaps, as in the classical order-statistic interval when there are no ties.
  const size_t u = d.size();
  auto probe = [&](size_t gap) {
    return gap == 0 ? d.front() - 1.0 : gap == u ? d.back() + 1.0 : 0.5 * (d[gap - 1] + d[gap]);
  };
  const double tail = (1.0 - level) / 2;
  auto kept = [&](size_t gap, Alternative alt) {
    std::vector<double> moved(x);
    for (double& v : moved) v -= probe(gap);
    return !significant(mann_whitney_u(moved, y, alt).p_value, tail);
  };
  std::vector<size_t> gaps(u + 1);
  std::iota(gaps.begin(), gaps.end(), size_t{0});
  // "x - shift greater than y" is kept from some gap on; "less" is kept up to some gap.
  const auto first = std::partition_point(gaps.begin(), gaps.end(), [&](size_t g) { return !kept(g, Alternative::kGreater); });
  const auto past = std::partition_point(gaps.begin(), gaps.end(), [&](size_t g) { return kept(g, Alternative::kLess); });
  const double inf = std::numeric_limits<double>::infinity();
  r.low = first == gaps.end() ? d.back() : *first == 0 ? -inf : d[*first - 1];
  r.high = past == gaps.begin() ? d.front() : *(past - 1) == u ? inf : d[*(past - 1)];
  return r;
}

}  // namespace rb::stats
