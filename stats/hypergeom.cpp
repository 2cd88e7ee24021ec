// The hypergeometric distribution of a 2x2 table's top-left cell, in log space (see hypergeom.h).
#include "stats/hypergeom.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"

namespace rb::stats::detail {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// Terms this far below the running maximum are < e^-80 ~ 1.8e-35 of it: even 10^6 of them change a sum
// by less than 1e-28 relative, far below double precision.
constexpr double kNegligible = 80.0;

// Index of the maximum of w(x) = logd(x) + t*x over [from, to]. logd is concave (the hypergeometric is
// log-concave), so the forward difference logd(x+1) - logd(x) + t is decreasing: binary search for the
// first x where it turns negative.
int64_t tilted_argmax(const Hypergeom& h, double t, int64_t from, int64_t to) {
  int64_t l = from, r = to;  // the answer lies in [l, r]
  while (l < r) {
    const int64_t mid = l + (r - l) / 2;
    if (h.at(mid + 1) - h.at(mid) + t > 0)
      l = mid + 1;
    else
      r = mid;
  }
  return l;
}

}  // namespace

Hypergeom make_hypergeom(int64_t n1, int64_t n2, int64_t m) {
  RB_ASSERT(n1 >= 0 && n2 >= 0 && m >= 0 && m <= n1 + n2, "bad hypergeometric margins");
  Hypergeom h;
  h.lo = std::max<int64_t>(0, m - n2);
  h.hi = std::min<int64_t>(n1, m);
  const int64_t total = n1 + n2;
  // Mode of the hypergeometric: floor((m + 1)(n1 + 1) / (N + 2)), computed in exact integers.
  const __int128 num = static_cast<__int128>(m + 1) * (n1 + 1);
  h.mode = std::clamp<int64_t>(static_cast<int64_t>(num / (total + 2)), h.lo, h.hi);
  h.logd.assign(static_cast<size_t>(h.size()), 0.0);
  // P(x)/P(x-1) = (n1 - x + 1)(m - x + 1) / (x (n2 - m + x)): products of integers below 2^53 are exact
  // in double, so each step costs one rounded division and one log. Neumaier-compensated running sums.
  double s = 0.0, c = 0.0;
  for (int64_t x = h.mode + 1; x <= h.hi; ++x) {
    const double ratio = (static_cast<double>(n1 - x + 1) * static_cast<double>(m - x + 1)) /
                         (static_cast<double>(x) * static_cast<double>(n2 - m + x));
    const double step = std::log(ratio);
    const double t = s + step;
    c += std::fabs(s) >= std::fabs(step) ? (s - t) + step : (step - t) + s;
    s = t;
    h.logd[static_cast<size_t>(x - h.lo)] = s + c;
  }
  s = 0.0;
  c = 0.0;
  for (int64_t x = h.mode - 1; x >= h.lo; --x) {
    // P(x)/P(x+1) = (x + 1)(n2 - m + x + 1) / ((n1 - x)(m - x))
    const double ratio = (static_cast<double>(x + 1) * static_cast<double>(n2 - m + x + 1)) /
                         (static_cast<double>(n1 - x) * static_cast<double>(m - x));
    const double step = std::log(ratio);
    const double t = s + step;
    c += std::fabs(s) >= std::fabs(step) ? (s - t) + step : (step - t) + s;
    s = t;
    h.logd[static_cast<size_t>(x - h.lo)] = s + c;
  }
  // Full compensated sum (not the truncated walk): a p-value whose tail is the whole support is exactly 1.
  double sum = 0.0, comp = 0.0;
  for (double v : h.logd) {
    const double e = std::exp(v);
    const double t = sum + e;
    comp += std::fabs(sum) >= std::fabs(e) ? (sum - t) + e : (e - t) + sum;
    sum = t;
  }
  h.log_total = std::log(sum + comp);
  return h;
}

double tilted_lse(const Hypergeom& h, double t, int64_t from, int64_t to, int64_t ref) {
  from = std::max(from, h.lo);
  to = std::min(to, h.hi);
  if (from > to) return kNegInf;
  const int64_t xm = tilted_argmax(h, t, from, to);
  auto w = [&](int64_t x) { return h.at(x) + t * static_cast<double>(x - ref); };
  double wmax = w(xm);
  // Numerical noise can make the found point a hair below a neighbour; the walk below is unaffected.
  double sum = 1.0;
  for (int64_t x = xm + 1; x <= to; ++x) {
    const double d = w(x) - wmax;
    if (d < -kNegligible) break;
    sum += std::exp(d);
  }
  for (int64_t x = xm - 1; x >= from; --x) {
    const double d = w(x) - wmax;
    if (d < -kNegligible) break;
    sum += std::exp(d);
  }
  return wmax + std::log(sum);
}

double tilted_mean(const Hypergeom& h, double t) {
  const int64_t xm = tilted_argmax(h, t, h.lo, h.hi);
  auto w = [&](int64_t x) { return h.at(x) + t * static_cast<double>(x - xm); };
  const double wmax = w(xm);
  // Accumulate sum of weights and of (x - xm) * weight; E[A] = xm + ratio.
  double s0 = 1.0, s1 = 0.0;
  for (int64_t x = xm + 1; x <= h.hi; ++x) {
    const double d = w(x) - wmax;
    if (d < -kNegligible) break;
    const double e = std::exp(d);
    s0 += e;
    s1 += e * static_cast<double>(x - xm);
  }
  for (int64_t x = xm - 1; x >= h.lo; --x) {
    const double d = w(x) - wmax;
    if (d < -kNegligible) break;
    const double e = std::exp(d);
    s0 += e;
    s1 += e * static_cast<double>(x - xm);
  }
  return static_cast<double>(xm) + s1 / s0;
}

void margin_p_values(const Hypergeom& h, Alternative alt, std::vector<double>& out) {
  const size_t n = static_cast<size_t>(h.size());
  out.assign(n, 0.0);
  std::vector<double> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = std::exp(h.logd[i] - h.log_total);
  if (alt == Alternative::kLess) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) out[i] = std::min(1.0, s += d[i]);
    return;
  }
  if (alt == Alternative::kGreater) {
    double s = 0.0;
    for (size_t i = n; i-- > 0;) out[i] = std::min(1.0, s += d[i]);
    return;
  }
  // Two-sided: p(x) = sum of P(y) over y with logd(y) <= logd(x) + log(1 + 1e-7). Order the support by
  // density: unimodal, so merging the rising left part and the falling right part sorts it in O(n).
  const size_t mode = static_cast<size_t>(h.mode - h.lo);
  std::vector<size_t> order;
  order.reserve(n);
  size_t l = 0, r = n - 1;
  while (l <= mode && r > mode) order.push_back(h.logd[l] <= h.logd[r] ? l++ : r--);
  while (l <= mode) order.push_back(l++);
  while (r > mode) order.push_back(r--);
  const bool sorted = std::is_sorted(order.begin(), order.end(),
                                     [&](size_t a, size_t b) { return h.logd[a] < h.logd[b]; });
  if (!sorted)
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return h.logd[a] < h.logd[b]; });
  const double log_tol = std::log1p(kTwoSidedRelTol);
  std::vector<double> cum(n);
  double s = 0.0;
  for (size_t k = 0; k < n; ++k) cum[k] = s += d[order[k]];
  size_t j = 0;
  for (size_t k = 0; k < n; ++k) {
    const double limit = h.logd[order[k]] + log_tol;
    if (j < k) j = k;
    while (j + 1 < n && h.logd[order[j + 1]] <= limit) ++j;
    out[order[k]] = std::min(1.0, cum[j]);
  }
}

}  // namespace rb::stats::detail
