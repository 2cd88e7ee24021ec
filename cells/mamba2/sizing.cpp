// mamba2's options and sizing (torch-free; cells/sizing.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "cells/sizing.h"
#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

constexpr int64_t kMamba2ConvWidth = 4;  // mamba2's causal convolution

// mamba2 (its module: cells/mamba2/cell.cpp): E = expand·D channels in heads of P; d_state N sized so that
// H·N·P + 3·(E + 2N) is closest to the budget, else 16.
CellSizing mamba2() {
  const nlohmann::json defaults = {{"expand", 2}, {"head_dim", 0}, {"d_state", 0}};
  auto size = [defaults](const SizingInput& in) {
    const std::string where = "cell mamba2";
    OptionReader r(where, in.options, defaults);
    const int64_t expand = r.integer("expand");
    int64_t P = r.integer("head_dim"), N = r.integer("d_state");
    RB_CHECK_INPUT(expand >= 1, where + ": expand must be ≥ 1, got " + std::to_string(expand));
    const int64_t E = expand * in.d_model;
    if (P == 0) P = std::gcd<int64_t>(E, 32);  // heads of 32 channels where the width allows
    RB_CHECK_INPUT(P >= 1 && E % P == 0, where + ": head_dim must divide expand·d_model = " + std::to_string(E) +
                                             ", got " + std::to_string(P));
    const int64_t H = E / P;
    RB_CHECK_INPUT(N >= 0, where + ": d_state must be ≥ 0 (0 = sized to the budget), got " + std::to_string(N));
    if (N == 0)
      N = in.state_budget <= 0
              ? 16
              : closest_to_budget(in.state_budget, [&](int64_t n) { return H * n * P + (kMamba2ConvWidth - 1) * (E + 2 * n); });
    return CellShape{{{"expand", expand}, {"head_dim", P}, {"d_state", N}},
                     H * N * P + (kMamba2ConvWidth - 1) * (E + 2 * N),
                     {{"expand", expand}, {"channels", E}, {"heads", H}, {"head_dim", P}, {"d_state", N},
                      {"conv_width", kMamba2ConvWidth}}};
  };
  return {"mamba2", "Mamba-2 (SSD): scalar data-dependent decay per head, width-4 causal conv",
          {{"family", "ssd"}, {"transition", "scalar"}, {"decay", true}, {"conv", true}}, defaults, size};
}

}  // namespace

RB_CELL_SIZINGS(mamba2) {
  return {mamba2()};
}

}  // namespace rb
