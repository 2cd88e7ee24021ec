#include "cells/sizing.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

constexpr int64_t kConvWidth = 4;        // the short convolution of the fixed-state cells
constexpr int64_t kMamba2ConvWidth = 4;  // mamba2's causal convolution
constexpr int64_t kDefaultWindow = 32;   // swa without a budget
constexpr int64_t kDefaultKernel = 3;    // baseconv without a budget: Zoology's short filter

// The d in [1, 4096] whose state(d) is closest to `budget` (the smallest such d on a tie).
template <typename StateAt>
int64_t closest_to_budget(int64_t budget, StateAt state_at) {
  int64_t best = 1;
  for (int64_t d = 1; d <= 4096; ++d)
    if (std::llabs(state_at(d) - budget) < std::llabs(state_at(best) - budget)) best = d;
  return best;
}

// The fixed-state family (cells/fixed_state.cpp): heads H, key_dim K, value_dim V; K = V sized so that
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

// mamba2 (cells/mamba2.cpp): E = expand·D channels in heads of P; d_state N sized so that
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

// attention and swa (cells/attention.cpp): H heads of Dh (default D / H); the KV cache holds max_length
// slots (attention) or a window sized to the budget, else 32 (swa).
CellSizing attention(bool sliding) {
  const std::string name = sliding ? "swa" : "attention";
  const nlohmann::json defaults = sliding ? nlohmann::json{{"heads", 1}, {"head_dim", 0}, {"window", 0}}
                                          : nlohmann::json{{"heads", 1}, {"head_dim", 0}};
  auto size = [name, sliding, defaults](const SizingInput& in) {
    const std::string where = "cell " + name;
    OptionReader r(where, in.options, defaults);
    const int64_t H = r.integer("heads");
    RB_CHECK_INPUT(H >= 1, where + ": heads must be ≥ 1, got " + std::to_string(H));
    int64_t Dh = r.integer("head_dim");
    RB_CHECK_INPUT(Dh >= 0, where + ": head_dim must be ≥ 0 (0 = d_model / heads), got " + std::to_string(Dh));
    if (Dh == 0) Dh = std::max<int64_t>(1, in.d_model / H);
    int64_t window = 0, slots = 0;
    if (sliding) {
      window = r.integer("window");
      RB_CHECK_INPUT(window >= 0, where + ": window must be ≥ 0 (0 = sized to the budget), got " + std::to_string(window));
      if (window == 0)
        window = in.state_budget > 0
                     ? std::max<int64_t>(1, std::llround(static_cast<double>(in.state_budget) / (2.0 * H * Dh)))
                     : kDefaultWindow;
      slots = window;
    } else {
      RB_CHECK_INPUT(in.max_length >= 1, where + ": needs the maximum sequence length (its KV cache grows with it), got " +
                                             std::to_string(in.max_length));
      slots = in.max_length;
    }
    nlohmann::json options = {{"heads", H}, {"head_dim", Dh}};
    if (sliding) options["window"] = window;
    return CellShape{options, 2 * H * Dh * slots,
                     {{"heads", H}, {"head_dim", Dh}, {"window", window}, {"max_length", in.max_length}}};
  };
  return {name,
          sliding ? "sliding-window softmax attention, learned positions; fixed state 2·H·Dh·window, window sized to "
                    "the budget"
                  : "causal softmax attention, learned positions; unbounded reference: its KV-cache state 2·H·Dh·L "
                    "grows with length (reported at max_length)",
          {{"family", "attention"}, {"transition", "softmax"}, {"decay", false}, {"conv", false}}, defaults, size};
}

// baseconv (cells/baseconv.cpp): one depthwise filter of width W over D channels, W − 1 = budget / D
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

const std::vector<CellSizing>& cell_sizings() {
  static const std::vector<CellSizing> all = [] {
    std::vector<CellSizing> v = {
        fixed_state("diag", false, false, "linear attention (no decay, no conv)"),
        fixed_state("diag", false, true, "linear attention with a width-4 short causal conv"),
        fixed_state("diag", true, false, "GLA: linear attention with data-dependent per-key decay"),
        fixed_state("diag", true, true, "GLA with a width-4 short causal conv"),
        fixed_state("rank1", false, false, "delta rule (DeltaNet): L2-normalised q, k; beta = sigmoid"),
        fixed_state("rank1", false, true, "delta rule with a width-4 short causal conv"),
        fixed_state("rank1", true, false, "gated delta rule (Gated DeltaNet): scalar decay per head"),
        fixed_state("rank1", true, true, "gated delta rule with a width-4 short causal conv"),
        mamba2(),
        attention(false),
        attention(true),
        baseconv(),
    };
    std::sort(v.begin(), v.end(), [](const CellSizing& a, const CellSizing& b) { return a.name < b.name; });
    return v;
  }();
  return all;
}

const CellSizing* find_cell_sizing(const std::string& name) {
  for (const auto& s : cell_sizings())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace rb
