// Internal to stats/: the conditional (hypergeometric) distribution of a 2x2 table's top-left cell given
// its margins, held in log space relative to its mode, plus the per-margin p-value sweep shared by the
// Fisher power, the smallest attainable p-value and Boschloo's test. Not part of the public API.
#pragma once

#include <cstdint>
#include <vector>

#include "stats/stats.h"

namespace rb::stats::detail {

// A = top-left cell given row totals n1, n2 and first-column total m; support [lo, hi].
struct Hypergeom {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t mode = 0;
  std::vector<double> logd;  // logd[x - lo] = log P(A = x) + const, with logd at the mode = 0
  double log_total = 0.0;    // log of sum over the support of exp(logd)

  int64_t size() const { return hi - lo + 1; }
  double at(int64_t x) const { return logd[static_cast<size_t>(x - lo)]; }
};

// Builds the distribution by the ratio recurrence P(x+1)/P(x) from the mode outward (one log per point,
// compensated accumulation): relative error ~1e-13 even at tens of thousands per row.
Hypergeom make_hypergeom(int64_t n1, int64_t n2, int64_t m);

// log sum_{x in [from, to]} exp(logd(x) + t * (x - ref)); -inf for an empty range. Uses log-concavity:
// starts at the tilted maximum and stops once terms fall e^-80 below it.
double tilted_lse(const Hypergeom& h, double t, int64_t from, int64_t to, int64_t ref);

// E[A] under the noncentral distribution with log odds ratio t.
double tilted_mean(const Hypergeom& h, double t);

// Fisher p-values (for `alt`) of every table with these margins: out[x - lo] for x in [lo, hi].
// Plain doubles (fine for comparisons with alpha; fisher_exact itself keeps log space to the end).
void margin_p_values(const Hypergeom& h, Alternative alt, std::vector<double>& out);

}  // namespace rb::stats::detail
