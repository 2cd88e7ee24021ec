// The fixed-state cells' options and sizing (torch-free; cells/sizing.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "cells/sizing.h"
#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

constexpr int64_t kConvWidth = 4;  // the short convolution of the fixed-state cells

// The fixed-state family (its module: cells/fixed_state/cell.cpp): heads H, key_dim K, value_dim V; K = V sized so that
// H·K·V (+ 3·H·(2K+V) of convolution buffer with conv) is closest to the budget, else D / H.
CellSizing fixed_state(const std::string& transition, bool decay, bool conv, const std::string& description) {
  const std::string name = transition + (decay ? "+decay" : "") + (conv ? "+conv" : "");
  const nlohmann::json defaults = {{"heads", 1}, {"key_dim", 0}, {"value_dim", 0}};
  auto size = [name, conv, defaults](const SizingInput& in) {
    const std::string where = "cell " + name;
    OptionReader r(where, in.options, defaults);
    const int64_t H = r.integer("heads");
    RB_CHECK_INPUT(H >= 1, where + ": heads must be ≥ 1, got " + std::to_string(H));
    int64_t K = r.integer("key_dim"), V = r.integer("value_dim");
    RB_CHECK_INPUT(K >= 0 && V >= 0, where + ": key_dim and value_dim must be ≥ 0 (0 = sized), got " +
                                         std::to_string(K) + " and " + std::to_string(V));
    if (K == 0 && V == 0) {
      if (in.state_budget <= 0) {
        K = V = std::max<int64_t>(1, in.d_model / H);
      } else {
        K = V = closest_to_budget(in.state_budget,
                                  [&](int64_t d) { return H * d * d + (conv ? (kConvWidth - 1) * H * 3 * d : 0); });
      }
    }
    if (V == 0) V = K;
    if (K == 0) K = V;
    const int64_t channels = H * (2 * K + V);
    return CellShape{{{"heads", H}, {"key_dim", K}, {"value_dim", V}},
                     H * K * V + (conv ? channels * (kConvWidth - 1) : 0),
                     {{"heads", H}, {"key_dim", K}, {"value_dim", V}, {"conv_width", kConvWidth}}};
  };
  return {name, description, {{"family", "fixed_state"}, {"transition", transition}, {"decay", decay}, {"conv", conv}},
          defaults, size};
}

}  // namespace

RB_CELL_SIZINGS(fixed_state) {
  return {
      fixed_state("diag", false, false, "linear attention (no decay, no conv)"),
      fixed_state("diag", false, true, "linear attention with a width-4 short causal conv"),
      fixed_state("diag", true, false, "GLA: linear attention with data-dependent per-key decay"),
      fixed_state("diag", true, true, "GLA with a width-4 short causal conv"),
      fixed_state("rank1", false, false, "delta rule (DeltaNet): L2-normalised q, k; beta = sigmoid"),
      fixed_state("rank1", false, true, "delta rule with a width-4 short causal conv"),
      fixed_state("rank1", true, false, "gated delta rule (Gated DeltaNet): scalar decay per head"),
      fixed_state("rank1", true, true, "gated delta rule with a width-4 short causal conv"),
  };
}

}  // namespace rb
