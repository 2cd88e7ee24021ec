// Multiple-comparison adjustment of p-values, following the definitions of R's p.adjust.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {

AdjustMethod parse_adjust_method(std::string_view name) {
  if (name == "bonferroni") return AdjustMethod::kBonferroni;
  if (name == "holm") return AdjustMethod::kHolm;
  if (name == "hochberg") return AdjustMethod::kHochberg;
  if (name == "bh" || name == "BH" || name == "fdr" || name == "benjamini-hochberg") return AdjustMethod::kBH;
  if (name == "by" || name == "BY" || name == "benjamini-yekutieli") return AdjustMethod::kBY;
  throw UsageError(fmt::format("adjustment method: got '{}', expected bonferroni, holm, hochberg, bh or by", name));
}

const char* adjust_method_name(AdjustMethod method) {
  switch (method) {
    case AdjustMethod::kBonferroni: return "bonferroni";
    case AdjustMethod::kHolm: return "holm";
    case AdjustMethod::kHochberg: return "hochberg";
    case AdjustMethod::kBH: return "bh";
    case AdjustMethod::kBY: return "by";
  }
  return "?";
}

std::vector<double> p_adjust(const std::vector<double>& p, AdjustMethod method) {
  for (size_t i = 0; i < p.size(); ++i)
    if (!(p[i] >= 0.0 && p[i] <= 1.0))
      throw UsageError(fmt::format("p-value #{}: got {}, expected a probability in [0, 1]", i + 1, p[i]));
  const size_t n = p.size();
  std::vector<double> out(n);
  if (n == 0) return out;
  const double nd = static_cast<double>(n);
  if (method == AdjustMethod::kBonferroni) {
    for (size_t i = 0; i < n; ++i) out[i] = std::min(1.0, nd * p[i]);
    return out;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (method == AdjustMethod::kHolm) {
    // Ascending p; step-down: running max of (n - i) p_(i) for 0-based rank i.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    double running = 0.0;
    for (size_t i = 0; i < n; ++i) {
      running = std::max(running, (nd - static_cast<double>(i)) * p[order[i]]);
      out[order[i]] = std::min(1.0, running);
    }
    return out;
  }
  // Step-up methods: descending p, running min of factor(rank) * p, rank = n..1 (1-based, ascending).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
  double q = 1.0;  // BY's extra factor: sum_{i=1}^{n} 1/i
  if (method == AdjustMethod::kBY) {
    q = 0.0;
    for (size_t i = 1; i <= n; ++i) q += 1.0 / static_cast<double>(i);
  }
  double running = 1.0;
  for (size_t k = 0; k < n; ++k) {
    const double rank = nd - static_cast<double>(k);  // 1-based rank in ascending order
    const double factor = method == AdjustMethod::kHochberg ? (nd - rank + 1) : q * nd / rank;
    running = std::min(running, factor * p[order[k]]);
    out[order[k]] = std::min(1.0, running);
  }
  return out;
}

}  // namespace rb::stats
