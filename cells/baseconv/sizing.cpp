// baseconv's options and sizing (torch-free; cells/sizing.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "cells/sizing.h"
#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

constexpr int64_t kDefaultKernel = 3;  // baseconv without a budget: Zoology's short filter

// baseconv (its module: cells/baseconv/cell.cpp): one depthwise filter of width W over D channels, W − 1 = budget / D
// (rounded, ≥ 1), else 3.
CellSizing baseconv() {
  const nlohmann::json defaults = {{"kernel_size", 0}};
  auto size = [defaults](const SizingInput& in) {
    OptionReader r("cell baseconv", in.options, defaults);
    int64_t W = r.integer("kernel_size");
    RB_CHECK_INPUT(W == 0 || W >= 2, "cell baseconv: kernel_size must be ≥ 2 (0 = sized to the budget), got " +
                                         std::to_string(W));
    if (W == 0)
      W = in.state_budget > 0
              ? 1 + std::max<int64_t>(1, std::llround(static_cast<double>(in.state_budget) / static_cast<double>(in.d_model)))
              : kDefaultKernel;
    return CellShape{{{"kernel_size", W}}, in.d_model * (W - 1), {{"kernel_size", W}}};
  };
  return {"baseconv", "Zoology's BaseConv: causal depthwise conv(u) * Linear(u) + u; filter width sized to the budget",
          {{"family", "baseconv"}, {"transition", "conv"}, {"decay", false}, {"conv", true}}, defaults, size};
}

}  // namespace

RB_CELL_SIZINGS(baseconv) {
  return {baseconv()};
}

}  // namespace rb
