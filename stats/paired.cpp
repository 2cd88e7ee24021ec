// Paired exact tests (the two-sided sign test, the signed-rank test) and Tarone's rule. See stats/stats.h.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "core/errors.h"
#include "stats/stats.h"

namespace rb::stats {

double sign_test_two_sided(const SignTestResult& r) { return std::min(1.0, 2.0 * std::min(r.p_later, r.p_sooner)); }

double sign_test_min_p(int64_t untied) {
  return untied <= 0 ? 1.0 : std::min(1.0, std::ldexp(1.0, static_cast<int>(1 - std::min<int64_t>(untied, 1100))));
}

SignedRankResult signed_rank_test(const std::vector<double>& differences) {
  std::vector<double> d;
  for (double x : differences) {
    RB_CHECK_INPUT(std::isfinite(x), fmt::format("signed-rank test: a difference is {}, expected a finite number", x));
    if (x != 0.0) d.push_back(x);
  }
  SignedRankResult r;
  r.n = static_cast<int64_t>(d.size());
  if (r.n == 0) return r;
  r.min_p = sign_test_min_p(r.n);
  // Doubled mid-ranks of |d| (integers), and W (doubled) from the positive differences.
  std::vector<size_t> idx(d.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return std::fabs(d[i]) < std::fabs(d[j]); });
  std::vector<int64_t> rank2(d.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && std::fabs(d[idx[j + 1]]) == std::fabs(d[idx[i]])) ++j;
    for (size_t k = i; k <= j; ++k) rank2[idx[k]] = static_cast<int64_t>(i + j + 2);  // 2 × mid-rank
    i = j + 1;
  }
  int64_t total = 0, w2 = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    total += rank2[i];
    if (d[i] > 0) w2 += rank2[i];
  }
  // count[s]: the number of sign assignments with doubled positive rank sum s, as probabilities.
  std::vector<double> prob(static_cast<size_t>(total + 1), 0.0);
  prob[0] = 1.0;
  int64_t reach = 0;
  for (int64_t rk : rank2) {
    for (int64_t s = reach; s >= 0; --s) {
      const double half = 0.5 * prob[static_cast<size_t>(s)];
      prob[static_cast<size_t>(s)] = half;
      prob[static_cast<size_t>(s + rk)] += half;
    }
    reach += rk;
  }
  const double centre = 0.5 * static_cast<double>(total);
  const double observed = std::fabs(static_cast<double>(w2) - centre) * (1.0 - 1e-12);
  double p = 0.0;
  for (int64_t s = 0; s <= total; ++s)
    if (std::fabs(static_cast<double>(s) - centre) >= observed) p += prob[static_cast<size_t>(s)];
  r.statistic = 0.5 * static_cast<double>(w2);
  r.p_value = std::min(1.0, p);
  return r;
}

namespace {

// max_m |sum_i sign_i c[m][i]| / norm_m over the statistics with a nonzero norm.
double max_abs_z(const std::vector<std::vector<double>>& c, const std::vector<double>& norm,
                 const std::vector<double>& sign) {
  double best = 0.0;
  for (size_t m = 0; m < c.size(); ++m) {
    if (norm[m] <= 0.0) continue;
    double sum = 0.0;
    for (size_t i = 0; i < sign.size(); ++i) sum += sign[i] * c[m][i];
    best = std::max(best, std::fabs(sum) / norm[m]);
  }
  return best;
}

}  // namespace

PairedMaxT paired_max_t(const std::vector<std::vector<double>>& contributions, int64_t draws, uint64_t seed) {
  PairedMaxT r;
  const size_t metrics = contributions.size();
  r.z.assign(metrics, 0.0);
  r.p.assign(metrics, 1.0);
  if (metrics == 0) return r;
  // Only the pairs with some nonzero contribution are flipped (the others contribute nothing either way).
  std::vector<std::vector<double>> c(metrics);
  for (size_t i = 0; i < contributions[0].size(); ++i) {
    bool any = false;
    for (size_t m = 0; m < metrics; ++m) {
      RB_CHECK_INPUT(contributions[m].size() == contributions[0].size(), "paired max-T: one contribution per pair");
      RB_CHECK_INPUT(std::isfinite(contributions[m][i]), "paired max-T: contributions must be finite");
      any = any || contributions[m][i] != 0.0;
    }
    if (!any) continue;
    for (size_t m = 0; m < metrics; ++m) c[m].push_back(contributions[m][i]);
  }
  const size_t u = c[0].size();
  r.untied = static_cast<int64_t>(u);
  if (u == 0) return r;
  r.min_p = sign_test_min_p(r.untied);
  std::vector<double> norm(metrics, 0.0);
  for (size_t m = 0; m < metrics; ++m) {
    double sum = 0.0;
    for (double x : c[m]) {
      norm[m] += x * x;
      sum += x;
    }
    norm[m] = std::sqrt(norm[m]);
    r.z[m] = norm[m] > 0.0 ? sum / norm[m] : 0.0;
  }
  std::vector<int64_t> exceed(metrics, 0);
  std::vector<double> sign(u, 1.0);
  const auto count = [&](double t) {
    for (size_t m = 0; m < metrics; ++m)
      if (norm[m] > 0.0 && t >= std::fabs(r.z[m]) * (1.0 - 1e-12)) ++exceed[m];
  };
  int64_t total = 0;
  if (u <= 16) {
    const uint64_t flips = uint64_t{1} << u;
    for (uint64_t f = 0; f < flips; ++f) {
      for (size_t i = 0; i < u; ++i) sign[i] = (f >> i) & 1u ? -1.0 : 1.0;
      count(max_abs_z(c, norm, sign));
    }
    total = static_cast<int64_t>(flips);
    for (size_t m = 0; m < metrics; ++m) r.p[m] = norm[m] > 0.0 ? static_cast<double>(exceed[m]) / static_cast<double>(total) : 1.0;
  } else {
    std::mt19937_64 rng(seed);
    for (int64_t d = 0; d < draws; ++d) {
      for (size_t i = 0; i < u; ++i) sign[i] = rng() & 1u ? -1.0 : 1.0;
      count(max_abs_z(c, norm, sign));
    }
    for (size_t m = 0; m < metrics; ++m)
      r.p[m] = norm[m] > 0.0 ? static_cast<double>(1 + exceed[m]) / static_cast<double>(1 + draws) : 1.0;
  }
  r.joint_p = *std::min_element(r.p.begin(), r.p.end());
  return r;
}

TaroneResult tarone_bonferroni(const std::vector<double>& p, const std::vector<double>& min_p, double alpha) {
  RB_CHECK_INPUT(p.size() == min_p.size(), "Tarone: one minimum attainable p per p-value");
  RB_CHECK_INPUT(alpha > 0 && alpha < 1, fmt::format("Tarone: alpha got {}, expected (0, 1)", alpha));
  TaroneResult r;
  const auto m = static_cast<int64_t>(p.size());
  r.adjusted.assign(p.size(), 1.0);
  r.in_family.assign(p.size(), false);
  if (m == 0) return r;
  int64_t k = 1;
  for (; k < m; ++k) {
    int64_t admitted = 0;
    for (double mp : min_p) admitted += significant(mp, alpha / static_cast<double>(k)) ? 1 : 0;
    if (admitted <= k) break;
  }
  r.family = k;
  for (size_t i = 0; i < p.size(); ++i) {
    r.in_family[i] = significant(min_p[i], alpha / static_cast<double>(k));
    if (r.in_family[i]) r.adjusted[i] = std::min(1.0, static_cast<double>(k) * p[i]);
  }
  return r;
}

}  // namespace rb::stats
