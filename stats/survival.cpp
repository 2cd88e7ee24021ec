// Censored survival for lock-in times: the Kaplan–Meier estimate, its median and restricted mean, and the
// log-rank test with an exact permutation p-value. A seed that locks in is an event at its lock-in step; one
// that never does is censored at the step budget. Conventions follow R's survival package (survfit,
// survdiff); the exact p is the conditional permutation distribution of the log-rank statistic, computed by
// dynamic programming over the distinct log-rank scores.
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// R's print.survfit treats S(t) within sqrt(machine epsilon) of 0.5 as equal to 0.5 (its median rule).
constexpr double kMedianTol = 1.4901161193847656e-08;
// Scores are keyed as integers in units of 2^-40 (~9.1e-13): fine enough that distinct sums of scores stay
// apart, coarse enough that N subjects times the largest score (1 + harmonic number ~ 8.5 for N = 1000)
// stay far below 2^63 (log_rank checks the bound). A power of two, so the scaling itself is exact.
constexpr double kScoreUnit = 1099511627776.0;  // 2^40
// Relative tolerance for ties between sums of scores (floating-point rounding must not break a tie).
constexpr double kScoreTieRelTol = 1e-9;

void validate_sample(const std::vector<SurvivalObservation>& obs, const char* what) {
  if (obs.empty()) throw UsageError(fmt::format("{}: got no observations, expected at least one", what));
  for (size_t i = 0; i < obs.size(); ++i)
    if (!std::isfinite(obs[i].time) || obs[i].time < 0)
      throw UsageError(fmt::format("{}: observation #{} has time {}, expected a finite time >= 0", what, i + 1,
                                   obs[i].time));
}

// One distinct time of a (possibly pooled) sample: who is at risk, who has the event, who is censored.
struct TimePoint {
  double time = 0.0;
  int64_t at_risk = 0, events = 0, censored = 0;
  int64_t at_risk_a = 0, events_a = 0;  // the part in group a (log-rank only)
};

// Distinct times in ascending order; subjects with group[i] true count towards the *_a fields.
std::vector<TimePoint> time_points(const std::vector<SurvivalObservation>& obs, const std::vector<char>& in_a) {
  std::vector<size_t> order(obs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return obs[x].time < obs[y].time; });
  std::vector<TimePoint> pts;
  int64_t remaining = static_cast<int64_t>(obs.size()), remaining_a = 0;
  for (char a : in_a) remaining_a += a ? 1 : 0;
  for (size_t i = 0; i < order.size();) {
    TimePoint p;
    p.time = obs[order[i]].time;
    p.at_risk = remaining;
    p.at_risk_a = remaining_a;
    size_t j = i;
    for (; j < order.size() && obs[order[j]].time == p.time; ++j) {
      const bool a = !in_a.empty() && in_a[order[j]];
      if (obs[order[j]].event) {
        ++p.events;
        p.events_a += a ? 1 : 0;
      } else {
        ++p.censored;
      }
      --remaining;
      remaining_a -= a ? 1 : 0;
    }
    pts.push_back(p);
    i = j;
  }
  return pts;
}

// Hypergeometric probabilities h[c] = C(k, c) C(K, m - c) / C(K + k, m) for c = lo..hi (returned from
// index 0 = lo), from the integer ratios h(c+1)/h(c) = (k - c)(m - c) / ((c + 1)(K - m + c + 1)) walked out
// from the mode (all values <= 1 there, so nothing overflows) and normalised by their sum: no lgamma, so the
// terms keep nearly full double precision (the exact p-value is compared with brute force at 1e-12).
std::vector<double> hypergeom_terms(int64_t K, int64_t k, int64_t m, int64_t lo, int64_t hi) {
  const int64_t total = K + k;
  const int64_t mode = std::clamp<int64_t>(((m + 1) * (k + 1)) / (total + 2), lo, hi);
  std::vector<double> h(static_cast<size_t>(hi - lo + 1), 0.0);
  h[static_cast<size_t>(mode - lo)] = 1.0;
  for (int64_t c = mode; c < hi; ++c)
    h[static_cast<size_t>(c + 1 - lo)] = h[static_cast<size_t>(c - lo)] *
                                         (static_cast<double>(k - c) * static_cast<double>(m - c)) /
                                         (static_cast<double>(c + 1) * static_cast<double>(K - m + c + 1));
  for (int64_t c = mode; c > lo; --c)
    h[static_cast<size_t>(c - 1 - lo)] = h[static_cast<size_t>(c - lo)] *
                                         (static_cast<double>(c) * static_cast<double>(K - m + c)) /
                                         (static_cast<double>(k - c + 1) * static_cast<double>(m - c + 1));
  double sum = 0.0;
  for (double v : h) sum += v;
  for (double& v : h) v /= sum;
  return h;
}

struct State {
  int64_t key = 0;  // sum of the chosen subjects' score keys
  double p = 0.0;   // probability that the chosen subjects among those added so far are this many with this sum
};

// The rejection region of the exact test in key units: sums >= upper or <= lower (either may be infinite).
struct Region {
  double upper = 0.0, lower = 0.0;
};

struct Tail {
  bool exact = false;  // false: too many states, p not computed
  double p = 1.0;
};

// P(S in region), S = the sum of n_a score keys drawn without replacement from the pooled subjects, given
// as classes of equal key (key, size) in ascending key order.
// Classes are added one at a time. states[m] holds the sums of the subjects chosen among those added so far
// when m were chosen there, with their probabilities (all states together sum to 1): of the r = n_a - m
// still to choose among the R subjects left, c fall in the next class (size k) with the hypergeometric
// probability C(k, c) C(R - k, r - c) / C(R, r) <= 1, so nothing overflows for any N.
// Pruning (the network algorithm's idea): the completions of a state reach sums between its key plus the r
// smallest and its key plus the r largest keys left; a state whose whole range lies in the region adds its
// probability to the p-value at once, one whose range misses the region is dropped. Both decisions are
// exact (integer keys, the same comparisons as at the end), and they keep the states few for extreme
// observations, the ones a gate cares about. (Ascending key order pruned best of the orders tried: it
// beat descending, extremes first and alternating ends on 20-30 seeds per group.)
Tail exact_tail(const std::vector<std::pair<int64_t, int64_t>>& classes, int64_t n_a, const Region& region) {
  // prefix[i]: the sum of the i smallest keys. The r smallest keys left after the first `done` subjects sum
  // to prefix[done + r] - prefix[done]; the r largest (always among those left) to prefix[N] - prefix[N - r].
  std::vector<int64_t> prefix(1, 0);
  for (const auto& [key, k] : classes)
    for (int64_t j = 0; j < k; ++j) prefix.push_back(prefix.back() + key);
  const int64_t n_total = static_cast<int64_t>(prefix.size()) - 1;

  double p_in = 0.0;  // probability of the states already known to end in the region
  std::vector<std::vector<State>> states(static_cast<size_t>(n_a + 1)), next(static_cast<size_t>(n_a + 1));
  states[0].push_back({0, 1.0});
  int64_t left = n_total;  // subjects not yet added
  for (const auto& [key_v, k] : classes) {
    const size_t done = static_cast<size_t>(n_total - left + k);  // subjects added once this class is
    size_t pushed = 0;
    for (auto& out : next) out.clear();
    for (int64_t m = 0; m <= n_a; ++m) {
      const std::vector<State>& from = states[static_cast<size_t>(m)];
      if (from.empty()) continue;
      const int64_t r = n_a - m;
      const int64_t lo = std::max<int64_t>(0, r - (left - k)), hi = std::min(k, r);
      const std::vector<double> h = hypergeom_terms(left - k, k, r, lo, hi);
      for (int64_t c = lo; c <= hi; ++c) {
        const double hc = h[static_cast<size_t>(c - lo)];
        if (hc == 0.0) continue;
        const int64_t r2 = r - c;
        const int64_t add = c * key_v, rest_min = prefix[done + static_cast<size_t>(r2)] - prefix[done],
                      rest_max = prefix.back() - prefix[prefix.size() - 1 - static_cast<size_t>(r2)];
        std::vector<State>& out = next[static_cast<size_t>(m + c)];
        for (const State& st : from) {
          const int64_t key = st.key + add;
          const double low = static_cast<double>(key + rest_min), high = static_cast<double>(key + rest_max);
          if (low >= region.upper || high <= region.lower || region.lower >= region.upper) {
            p_in += st.p * hc;  // every completion lands in the region
          } else if (low > region.lower && high < region.upper) {
            continue;  // no completion does
          } else {
            out.push_back({key, st.p * hc});
            ++pushed;
          }
        }
        if (pushed > 4 * static_cast<size_t>(kMaxLogRankStates)) return {};  // before merging: bound memory
      }
    }
    size_t count = 0;
    for (std::vector<State>& out : next) {
      std::sort(out.begin(), out.end(), [](const State& x, const State& y) { return x.key < y.key; });
      size_t w = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        if (w > 0 && out[w - 1].key == out[i].key)
          out[w - 1].p += out[i].p;
        else
          out[w++] = out[i];
      }
      out.resize(w);
      count += w;
    }
    if (count > static_cast<size_t>(kMaxLogRankStates)) return {};
    states.swap(next);
    left -= k;
  }
  // Every state is decided once no subjects are left (its range is a single sum).
  for (const auto& rest : states) RB_ASSERT(rest.empty(), "log-rank: undecided states after the last class");
  return {true, std::clamp(p_in, 0.0, 1.0)};
}

}  // namespace

std::vector<KaplanMeierStep> kaplan_meier(const std::vector<SurvivalObservation>& obs) {
  validate_sample(obs, "kaplan-meier");
  std::vector<KaplanMeierStep> steps;
  double s = 1.0;
  for (const TimePoint& p : time_points(obs, {})) {
    s *= 1.0 - static_cast<double>(p.events) / static_cast<double>(p.at_risk);
    steps.push_back({p.time, p.at_risk, p.events, p.censored, s});
  }
  return steps;
}

double kaplan_meier_median(const std::vector<SurvivalObservation>& obs) {
  const std::vector<KaplanMeierStep> km = kaplan_meier(obs);
  for (size_t i = 0; i < km.size(); ++i) {
    if (!(km[i].survival < 0.5 + kMedianTol)) continue;
    // On a flat stretch at exactly 0.5 the median is the middle of the stretch: halfway to the next time
    // the curve drops (R's print.survfit); when it never drops again, the stretch's start.
    if (std::fabs(km[i].survival - 0.5) < kMedianTol)
      for (size_t j = i + 1; j < km.size(); ++j)
        if (km[j].survival < km[i].survival) return 0.5 * (km[i].time + km[j].time);
    return km[i].time;
  }
  return kNaN;
}

double restricted_mean(const std::vector<SurvivalObservation>& obs, double tau) {
  if (!std::isfinite(tau) || tau < 0)
    throw UsageError(fmt::format("restricted mean: got tau = {}, expected a finite time >= 0", tau));
  const std::vector<KaplanMeierStep> km = kaplan_meier(obs);
  double area = 0.0, s = 1.0, from = 0.0;
  for (const KaplanMeierStep& st : km) {
    if (st.time >= tau) break;
    area += s * (st.time - from);
    from = st.time;
    s = st.survival;
  }
  return area + s * (tau - from);
}

LogRankResult log_rank(const std::vector<SurvivalObservation>& a, const std::vector<SurvivalObservation>& b,
                       Alternative alt) {
  validate_sample(a, "log-rank: group a");
  validate_sample(b, "log-rank: group b");
  LogRankResult r;
  r.alternative = alt;
  std::vector<SurvivalObservation> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::vector<char> in_a(pooled.size(), 0);
  std::fill(in_a.begin(), in_a.begin() + static_cast<std::ptrdiff_t>(a.size()), 1);
  const std::vector<TimePoint> pts = time_points(pooled, in_a);

  // Observed, expected and the hypergeometric variance, summed over event times (R's survdiff, rho = 0).
  // Alongside, the Nelson–Aalen cumulative hazard H(t) = sum_{t_j <= t} d_j / n_j of the pooled sample, whose
  // key defines the scores: event at t: 1 - H(t), censored at t: -H(t).
  int64_t events = 0;
  double hazard = 0.0;
  std::vector<int64_t> hazard_key(pts.size());
  for (size_t j = 0; j < pts.size(); ++j) {
    const TimePoint& p = pts[j];
    if (p.events > 0) {
      const double n = static_cast<double>(p.at_risk), na = static_cast<double>(p.at_risk_a);
      const double d = static_cast<double>(p.events), da = static_cast<double>(p.events_a);
      events += p.events;
      r.observed_a += da;
      r.observed_b += d - da;
      r.expected_a += d * na / n;
      r.expected_b += d * (n - na) / n;
      if (p.at_risk > 1) r.variance += d * (na / n) * (1 - na / n) * (n - d) / (n - 1);
      hazard += d / n;
    }
    hazard_key[j] = std::llround(hazard * kScoreUnit);
  }
  if (events == 0) {
    r.p_asymptotic = r.p_value = 1.0;
    return r;
  }
  const double diff = r.observed_a - r.expected_a;
  if (r.variance > 0) {
    r.chi_square = diff * diff / r.variance;
    r.z = diff / std::sqrt(r.variance);
    const boost::math::normal_distribution<double> normal;
    switch (alt) {
      case Alternative::kGreater: r.p_asymptotic = boost::math::cdf(boost::math::complement(normal, r.z)); break;
      case Alternative::kLess: r.p_asymptotic = boost::math::cdf(normal, r.z); break;
      case Alternative::kTwoSided:
        r.p_asymptotic = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(normal, std::fabs(r.z))));
        break;
    }
  } else {
    r.p_asymptotic = 1.0;  // no information (every event time has one group empty or everyone failing)
  }

  // Score classes: one per (time, event or censored), keyed as integers so that sums are exact and equal
  // sums merge. key_obs is group a's sum: O_a - E_a in key units.
  std::vector<std::pair<int64_t, int64_t>> classes;
  const int64_t unit = static_cast<int64_t>(kScoreUnit);
  int64_t key_obs = 0, key_total = 0;
  double key_abs = 0.0;
  {
    std::vector<size_t> order(pooled.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return pooled[x].time < pooled[y].time; });
    std::vector<int64_t> subject_key(pooled.size());
    for (size_t i = 0, j = 0; i < order.size(); ++i) {
      while (pts[j].time != pooled[order[i]].time) ++j;
      subject_key[order[i]] = pooled[order[i]].event ? unit - hazard_key[j] : -hazard_key[j];
    }
    for (size_t i = 0; i < pooled.size(); ++i) {
      key_total += subject_key[i];
      key_abs += std::fabs(static_cast<double>(subject_key[i]));
      if (in_a[i]) key_obs += subject_key[i];
    }
    std::sort(subject_key.begin(), subject_key.end());
    for (size_t i = 0; i < subject_key.size();) {
      size_t j = i;
      while (j < subject_key.size() && subject_key[j] == subject_key[i]) ++j;
      classes.emplace_back(subject_key[i], static_cast<int64_t>(j - i));
      i = j;
    }
  }
  const int64_t n_a = static_cast<int64_t>(a.size()), n_total = static_cast<int64_t>(pooled.size());
  const double key_mean = static_cast<double>(n_a) * static_cast<double>(key_total) / static_cast<double>(n_total);
  // Ties: within 1e-9 relative of the observed deviation, at least 1e-9 in score units (~1100 key units),
  // and never less than n_a + 2 units: each key is rounded by about half a unit, so two splits with equal
  // true sums may differ by up to n_a units and must still tie.
  const double dev_obs = std::fabs(static_cast<double>(key_obs) - key_mean);
  const double tol = std::max({kScoreTieRelTol * std::max(dev_obs, kScoreUnit), static_cast<double>(n_a) + 2.0});

  Region region;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (alt) {
    case Alternative::kGreater: region = {static_cast<double>(key_obs) - tol, -kInf}; break;
    case Alternative::kLess: region = {kInf, static_cast<double>(key_obs) + tol}; break;
    case Alternative::kTwoSided: region = {key_mean + dev_obs - tol, key_mean - dev_obs + tol}; break;
  }
  Tail t;  // every partial sum is bounded by key_abs: beyond 2^62 the integer keys could overflow
  if (key_abs < 0x1p62) t = exact_tail(classes, n_a, region);
  r.exact = t.exact;
  r.p_value = t.exact ? t.p : r.p_asymptotic;
  return r;
}

}  // namespace rb::stats
