// Change points along a series of groups: scores, the step scan and the trend, by permutation of groups.
// See stats/changepoint.h.
#include "stats/changepoint.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <numeric>
#include <random>

#include "core/errors.h"

namespace rb::stats {
namespace {

// The per-group score sums and counts of a segment, with the pooled mean and sum of squares.
struct Scored {
  std::vector<double> sum;    // per group
  std::vector<int64_t> count; // per group
  double mean = 0.0;
  double ss = 0.0;            // sum of squared deviations of the subjects' scores
  int64_t n = 0;
  std::vector<double> subject;     // per subject: its score
  std::vector<int64_t> owner;      // per subject: its group (relative to the segment's start)
  std::vector<int64_t> id;         // per subject: its seed (-1 when unknown)
};

std::vector<double> mid_ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return v[i] < v[j]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + j) + 1.0;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = rank;
    i = j + 1;
  }
  return r;
}

// Log-rank scores of a pooled sample: event at t: 1 − H(t); censored at t: −H(t) (H: Nelson–Aalen, with
// censorings at t still at risk at t).
std::vector<double> log_rank_scores(const std::vector<SurvivalObservation>& obs) {
  std::vector<size_t> idx(obs.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return obs[i].time < obs[j].time; });
  std::vector<double> s(obs.size());
  double hazard = 0.0;
  size_t at_risk = obs.size();
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    int64_t events = 0;
    while (j < idx.size() && obs[idx[j]].time == obs[idx[i]].time) events += obs[idx[j++]].event ? 1 : 0;
    hazard += static_cast<double>(events) / static_cast<double>(at_risk);
    for (size_t k = i; k < j; ++k) s[idx[k]] = (obs[idx[k]].event ? 1.0 : 0.0) - hazard;
    at_risk -= j - i;
    i = j;
  }
  return s;
}

Scored score(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind) {
  RB_CHECK_INPUT(a >= 0 && a <= b && b <= static_cast<int64_t>(groups.size()), "change test: bad segment");
  Scored out;
  std::vector<double> values;
  std::vector<SurvivalObservation> times;
  std::vector<int64_t> owner, ids;
  for (int64_t g = a; g < b; ++g) {
    const auto& grp = groups[static_cast<size_t>(g)];
    for (int64_t i = 0; i < grp.size(); ++i)
      ids.push_back(static_cast<size_t>(i) < grp.ids.size() ? grp.ids[static_cast<size_t>(i)] : -1);
    if (kind == SeriesKind::kSurvival) {
      for (const auto& t : grp.times) {
        RB_CHECK_INPUT(std::isfinite(t.time) && t.time >= 0, "change test: a time must be finite and >= 0");
        times.push_back(t);
        owner.push_back(g - a);
      }
    } else {
      for (double v : grp.values) {
        RB_CHECK_INPUT(std::isfinite(v), "change test: values must be finite");
        RB_CHECK_INPUT(kind != SeriesKind::kLogMeasure || v > 0, "change test: a measure must be > 0");
        values.push_back(v);
        owner.push_back(g - a);
      }
    }
  }
  std::vector<double> s = kind == SeriesKind::kSurvival   ? log_rank_scores(times)
                          : kind == SeriesKind::kContinuous ? mid_ranks(values)
                                                            : values;
  if (kind == SeriesKind::kLogMeasure)
    for (double& v : s) v = std::log(v);
  out.sum.assign(static_cast<size_t>(b - a), 0.0);
  out.count.assign(static_cast<size_t>(b - a), 0);
  out.n = static_cast<int64_t>(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    out.sum[static_cast<size_t>(owner[i])] += s[i];
    out.count[static_cast<size_t>(owner[i])] += 1;
  }
  out.owner = owner;
  out.id = ids;
  if (out.n == 0) return out;
  out.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(out.n);
  for (double v : s) out.ss += (v - out.mean) * (v - out.mean);
  out.subject = std::move(s);
  return out;
}

// The seed-blocked design: subjects grouped by seed (blocks); within a block, scores centred on the block's
// mean; only blocks seen at two or more groups carry information.
struct Blocked {
  std::vector<std::vector<size_t>> blocks;  // subject indices per block (blocks of one subject dropped)
  std::vector<double> centred;              // per subject (0 outside the kept blocks)
  bool informative = false;
};

Blocked block(const Scored& sc) {
  Blocked out;
  out.centred.assign(sc.subject.size(), 0.0);
  std::map<int64_t, std::vector<size_t>> by_id;
  for (size_t i = 0; i < sc.subject.size(); ++i)
    if (sc.id[i] >= 0) by_id[sc.id[i]].push_back(i);
  for (auto& [id, members] : by_id) {
    if (members.size() < 2) continue;
    double mean = 0.0;
    for (size_t i : members) mean += sc.subject[i];
    mean /= static_cast<double>(members.size());
    double ss = 0.0;
    for (size_t i : members) {
      out.centred[i] = sc.subject[i] - mean;
      ss += out.centred[i] * out.centred[i];
    }
    if (ss > 1e-12) out.informative = true;
    out.blocks.push_back(std::move(members));
  }
  return out;
}

// max_c |z_c| over the splits of the groups in `order`; `at` receives the maximising split (groups before it
// form the left side) and `z_at` its signed z (right side minus expected: > 0 when the right scores higher).
double scan(const Scored& sc, const std::vector<int64_t>& order, int64_t* at, double* z_at) {
  const double n = static_cast<double>(sc.n);
  double best = 0.0, left_sum = 0.0;
  int64_t left_n = 0;
  for (size_t c = 1; c < order.size(); ++c) {
    left_sum += sc.sum[static_cast<size_t>(order[c - 1])];
    left_n += sc.count[static_cast<size_t>(order[c - 1])];
    if (left_n == 0 || left_n == sc.n) continue;
    const double nl = static_cast<double>(left_n);
    const double var = nl * (n - nl) / (n * (n - 1.0)) * sc.ss;
    const double z = -(left_sum - nl * sc.mean) / std::sqrt(var);
    if (std::fabs(z) > best) {
      best = std::fabs(z);
      if (at) *at = static_cast<int64_t>(c);
      if (z_at) *z_at = z;
    }
  }
  return best;
}

// The standardised covariance of scores with group position (positions = index in `order`).
double trend(const Scored& sc, const std::vector<int64_t>& order, double* z_out) {
  const double n = static_cast<double>(sc.n);
  double xbar = 0.0;
  for (size_t p = 0; p < order.size(); ++p) xbar += static_cast<double>(p) * static_cast<double>(sc.count[static_cast<size_t>(order[p])]);
  xbar /= n;
  double t = 0.0, sxx = 0.0;
  for (size_t p = 0; p < order.size(); ++p) {
    const auto g = static_cast<size_t>(order[p]);
    const double dx = static_cast<double>(p) - xbar;
    t += dx * (sc.sum[g] - static_cast<double>(sc.count[g]) * sc.mean);
    sxx += dx * dx * static_cast<double>(sc.count[g]);
  }
  if (sxx <= 0.0) return 0.0;
  const double z = t / std::sqrt(sxx * sc.ss / (n - 1.0));
  if (z_out) *z_out = z;
  return std::fabs(z);
}

// Fisher–Yates with the generator's raw draws (the same sequence on every platform).
template <typename T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(rng() % i)]);
}

// The permutation p of `out.statistic`: draws `permuted(rng)` (one permutation's statistic) at least
// `permutations` times, growing tenfold while fewer than 10 exceed, up to `max_permutations`.
template <typename Permuted>
void permutation_p(ChangeTest& out, const ChangeTestOptions& options, uint64_t seed, Permuted&& permuted) {
  std::mt19937_64 rng(seed);
  const double bar = out.statistic * (1.0 - 1e-9);
  int64_t exceed = 0, drawn = 0, target = std::max<int64_t>(options.permutations, 1);
  while (true) {
    for (; drawn < target; ++drawn)
      if (permuted(rng) >= bar) ++exceed;
    if (exceed >= 10 || target >= options.max_permutations) break;
    target = std::min(options.max_permutations, target * 10 + 9);
  }
  out.permutations = drawn;
  out.p = static_cast<double>(1 + exceed) / static_cast<double>(1 + drawn);
}

template <typename Statistic>
ChangeTest permute(const Scored& sc, const ChangeTestOptions& options, Statistic&& statistic) {
  ChangeTest out;
  const auto groups = static_cast<int64_t>(sc.sum.size());
  if (groups < 2 || sc.n < 2 || !(sc.ss > 1e-12)) return out;
  std::vector<int64_t> order(static_cast<size_t>(groups));
  std::iota(order.begin(), order.end(), 0);
  out.statistic = statistic(order, &out.split, &out.z);
  permutation_p(out, options, options.seed, [&](std::mt19937_64& rng) {
    shuffle(order, rng);
    return statistic(order, nullptr, nullptr);
  });
  return out;
}

}  // namespace

ChangeTest step_test(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                     const ChangeTestOptions& options) {
  const Scored sc = score(groups, a, b, kind);
  ChangeTest t = permute(sc, options, [&](const std::vector<int64_t>& order, int64_t* at, double* z) {
    return scan(sc, order, at, z);
  });
  if (t.split >= 0) t.split += a;
  return t;
}

ChangeTest trend_test(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                      const ChangeTestOptions& options) {
  const Scored sc = score(groups, a, b, kind);
  ChangeTest t = permute(sc, options, [&](const std::vector<int64_t>& order, int64_t*, double* z) {
    return trend(sc, order, z);
  });
  t.split = -1;
  return t;
}

namespace {

// Permutation within blocks: each seed's scores shuffled among the groups that seed was run at. `statistic`
// gets the per-group sums of the centred scores.
template <typename Statistic>
ChangeTest permute_within(const Scored& sc, const Blocked& bl, const ChangeTestOptions& options, Statistic&& statistic) {
  ChangeTest out;
  const size_t groups = sc.sum.size();
  if (groups < 2 || !bl.informative) return out;
  std::vector<double> values = bl.centred, sums(groups);
  auto group_sums = [&] {
    std::fill(sums.begin(), sums.end(), 0.0);
    for (size_t i = 0; i < values.size(); ++i) sums[static_cast<size_t>(sc.owner[i])] += values[i];
  };
  group_sums();
  out.statistic = statistic(sums, &out.split, &out.z);
  std::vector<double> tmp;
  permutation_p(out, options, options.seed ^ 0xb10c, [&](std::mt19937_64& rng) {
    for (const auto& members : bl.blocks) {
      tmp.clear();
      for (size_t i : members) tmp.push_back(bl.centred[i]);
      shuffle(tmp, rng);
      for (size_t j = 0; j < members.size(); ++j) values[members[j]] = tmp[j];
    }
    group_sums();
    return statistic(sums, nullptr, nullptr);
  });
  return out;
}

// Per block, how many of its subjects sit at each group (the permutation keeps these fixed).
std::vector<std::vector<int64_t>> block_counts(const Scored& sc, const Blocked& bl) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& members : bl.blocks) {
    std::vector<int64_t> c(sc.sum.size(), 0);
    for (size_t i : members) c[static_cast<size_t>(sc.owner[i])] += 1;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

ChangeTest step_test_within_seeds(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                                  const ChangeTestOptions& options) {
  const Scored sc = score(groups, a, b, kind);
  const Blocked bl = block(sc);
  const size_t G = sc.sum.size();
  if (G < 2 || !bl.informative) return {};
  // The variance of the left sum at each split under within-block permutation (fixed: counts do not move).
  const auto counts = block_counts(sc, bl);
  std::vector<double> var(G, 0.0);
  for (size_t k = 0; k < bl.blocks.size(); ++k) {
    double q = 0.0;
    for (size_t i : bl.blocks[k]) q += bl.centred[i] * bl.centred[i];
    const auto nb = static_cast<double>(bl.blocks[k].size());
    double left = 0.0;
    for (size_t c = 1; c < G; ++c) {
      left += static_cast<double>(counts[k][c - 1]);
      var[c] += left * (nb - left) / (nb * (nb - 1.0)) * q;
    }
  }
  ChangeTest t = permute_within(sc, bl, options, [&](const std::vector<double>& sums, int64_t* at, double* z_at) {
    double best = 0.0, left = 0.0;
    for (size_t c = 1; c < G; ++c) {
      left += sums[c - 1];
      if (var[c] <= 1e-12) continue;
      const double z = -left / std::sqrt(var[c]);
      if (std::fabs(z) > best) {
        best = std::fabs(z);
        if (at) *at = static_cast<int64_t>(c);
        if (z_at) *z_at = z;
      }
    }
    return best;
  });
  if (t.split >= 0) t.split += a;
  t.within_seeds = true;
  return t;
}

ChangeTest trend_test_within_seeds(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                                   const ChangeTestOptions& options) {
  const Scored sc = score(groups, a, b, kind);
  const Blocked bl = block(sc);
  const size_t G = sc.sum.size();
  if (G < 2 || !bl.informative) return {};
  double var = 0.0;
  for (const auto& members : bl.blocks) {
    double q = 0.0, xbar = 0.0, sxx = 0.0;
    for (size_t i : members) {
      q += bl.centred[i] * bl.centred[i];
      xbar += static_cast<double>(sc.owner[i]);
    }
    xbar /= static_cast<double>(members.size());
    for (size_t i : members) sxx += (static_cast<double>(sc.owner[i]) - xbar) * (static_cast<double>(sc.owner[i]) - xbar);
    var += q * sxx / (static_cast<double>(members.size()) - 1.0);
  }
  if (var <= 1e-12) return {};
  ChangeTest t = permute_within(sc, bl, options, [&](const std::vector<double>& sums, int64_t*, double* z_out) {
    double tr = 0.0;
    for (size_t g = 0; g < G; ++g) tr += static_cast<double>(g) * sums[g];
    const double z = tr / std::sqrt(var);
    if (z_out) *z_out = z;
    return std::fabs(z);
  });
  t.split = -1;
  t.within_seeds = true;
  return t;
}

std::vector<ChangeTest> segment_below(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b,
                                      const ChangeTest& top, SeriesKind kind, double alpha,
                                      const ChangeTestOptions& options) {
  std::vector<ChangeTest> found{top};
  if (top.split <= a || top.split >= b) return found;
  for (const auto& [lo, hi] : {std::pair{a, top.split}, std::pair{top.split, b}}) {
    if (hi - lo < 2) continue;
    const ChangeTest sub = top.within_seeds ? step_test_within_seeds(groups, lo, hi, kind, options)
                                            : step_test(groups, lo, hi, kind, options);
    if (sub.split < 0 || sub.p > alpha) continue;
    const auto below = segment_below(groups, lo, hi, sub, kind, alpha, options);
    found.insert(found.end(), below.begin(), below.end());
  }
  std::sort(found.begin() + 1, found.end(), [](const ChangeTest& x, const ChangeTest& y) { return x.split < y.split; });
  return found;
}

}  // namespace rb::stats
