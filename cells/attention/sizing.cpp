// attention's and swa's options and sizing (torch-free; cells/sizing.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "cells/sizing.h"
#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

constexpr int64_t kDefaultWindow = 32;  // swa without a budget

// attention and swa (its module: cells/attention/cell.cpp): H heads of Dh (default D / H); the KV cache holds max_length
// slots (attention) or a window sized to the budget, else 32 (swa).
CellSizing attention(bool sliding) {
  const std::string name = sliding ? "swa" : "attention";
  // positions: "learned" (absolute, the model's table, as Zoology) or "rotary" (RoPE on q and k, inside the
  // cell). Recorded in the resolved options only when not "learned", so the keys of earlier runs stand.
  const nlohmann::json defaults = sliding ? nlohmann::json{{"heads", 1}, {"head_dim", 0}, {"window", 0}, {"positions", "learned"}}
                                          : nlohmann::json{{"heads", 1}, {"head_dim", 0}, {"positions", "learned"}};
  auto size = [name, sliding, defaults](const SizingInput& in) {
    const std::string where = "cell " + name;
    OptionReader r(where, in.options, defaults);
    const int64_t H = r.integer("heads");
    RB_CHECK_INPUT(H >= 1, where + ": heads must be ≥ 1, got " + std::to_string(H));
    int64_t Dh = r.integer("head_dim");
    RB_CHECK_INPUT(Dh >= 0, where + ": head_dim must be ≥ 0 (0 = d_model / heads), got " + std::to_string(Dh));
    if (Dh == 0) Dh = std::max<int64_t>(1, in.d_model / H);
    const std::string positions = r.text("positions");
    RB_CHECK_INPUT(positions == "learned" || positions == "rotary",
                   where + ": option 'positions' got \"" + positions + "\", expected \"learned\" or \"rotary\"");
    RB_CHECK_INPUT(positions != "rotary" || Dh % 2 == 0,
                   where + ": rotary positions need an even head_dim, got " + std::to_string(Dh));
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
    if (positions != "learned") options["positions"] = positions;
    return CellShape{options, 2 * H * Dh * slots,
                     {{"heads", H}, {"head_dim", Dh}, {"window", window}, {"max_length", in.max_length},
                      {"rotary", positions == "rotary" ? 1 : 0}}};
  };
  return {name,
          sliding ? "sliding-window softmax attention, learned (or rotary) positions; fixed state 2·H·Dh·window, window sized to "
                    "the budget"
                  : "causal softmax attention, learned (or rotary) positions; unbounded reference: its KV-cache state 2·H·Dh·L "
                    "grows with length (reported at max_length)",
          {{"family", "attention"}, {"transition", "softmax"}, {"decay", false}, {"conv", false}}, defaults, size};
}

}  // namespace

RB_CELL_SIZINGS(attention) {
  return {attention(false), attention(true)};
}

}  // namespace rb
