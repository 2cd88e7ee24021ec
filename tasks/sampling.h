// Sampling helpers shared by the task generators: distinct draws, weighted draws without replacement,
// non-overlapping placements and shuffles, all on top of rb::Rng so that generated data is identical on
// every machine and standard library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace rb {

// K distinct integers from [lo, hi), uniformly, in random order (partial Fisher–Yates).
inline std::vector<int64_t> sample_distinct(Rng& rng, int64_t lo, int64_t hi, int64_t k) {
  std::vector<int64_t> pool(static_cast<size_t>(hi - lo));
  std::iota(pool.begin(), pool.end(), lo);
  for (int64_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(static_cast<int64_t>(pool.size()) - i)]);
  pool.resize(static_cast<size_t>(k));
  return pool;
}

// K distinct indices drawn without replacement with weights w (successive renormalised draws, as numpy's
// choice(replace=False, p=...)).
inline std::vector<int64_t> sample_weighted_distinct(Rng& rng, std::vector<double> w, int64_t k) {
  std::vector<int64_t> out;
  for (int64_t j = 0; j < k; ++j) {
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    double u = rng.uniform() * total;
    int64_t pick = static_cast<int64_t>(w.size()) - 1;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] <= 0) continue;
      if (u < w[i]) {
        pick = static_cast<int64_t>(i);
        break;
      }
      u -= w[i];
    }
    while (w[static_cast<size_t>(pick)] <= 0) --pick;  // guard against rounding at the tail
    out.push_back(pick);
    w[static_cast<size_t>(pick)] = 0;
  }
  return out;
}

// In-place uniform shuffle (Fisher–Yates).
template <class T>
void shuffle_in_place(Rng& rng, std::vector<T>& v) {
  for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i) std::swap(v[i], v[rng.below(i + 1)]);
}

// Start positions of `k` non-overlapping blocks of `width` tokens inside [lo, lo + span), uniformly over
// all such placements, in increasing order. Needs k·width ≤ span.
// Method: choose k distinct "gaps" among span − k·(width−1) positions, then push each block right by the
// widths of the blocks before it.
inline std::vector<int64_t> place_blocks(Rng& rng, int64_t lo, int64_t span, int64_t k, int64_t width) {
  auto starts = sample_distinct(rng, 0, span - k * (width - 1), k);
  std::sort(starts.begin(), starts.end());
  for (int64_t i = 0; i < k; ++i) starts[i] += lo + i * (width - 1);
  return starts;
}

}  // namespace rb
