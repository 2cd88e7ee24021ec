// Softmax attention cells: `attention` (causal, unbounded: the upper anchor) and `swa` (sliding-window
// attention with a fixed window). Both have no sense of order by themselves, so they ask the model for
// learned absolute positions (needs_positions), as Zoology does for its attention baselines.
//
//   qkv = Linear(D, 3·H·Dh)(x) → q, k, v {B, H, T, Dh};  s = q kᵀ / √Dh  {B, H, T, T}
//   attention: query i sees keys j ≤ i;  swa: keys i − window ≤ j ≤ i (window past tokens plus itself)
//   o = softmax(s) v → {B, T, H·Dh} → out_proj → {B, T, D}
// swa computes only the band: blocks of C ≥ window queries against their own and the previous block's keys.
//
// Training speed on MQAR: with no shift (no short conv), recall needs an induction circuit whose
// previous-token head must be learnt from the positions. It forms late and abruptly: on MQAR 2 pairs,
// L=16, width 32, the model sits at 1/2 (copying some context value) for 1000+ steps, then jumps to ~1.
// A budget whose cosine schedule decays before the jump never locks in (tests/cells/cell_learn_test.cpp).
//
// State per layer per sequence (the KV cache a token-by-token decoder carries):
//   attention  2·H·Dh·max_length  — it grows with the sequence length; reported at CellConfig::max_length
//   swa        2·H·Dh·window      — fixed; with a state budget the window is sized to match it
#include <cmath>
#include <limits>

#include "cells/cell.h"
#include "cells/sizing.h"
#include "kernels/impl.h"
#include "core/errors.h"

namespace rb {
namespace {

constexpr int64_t kMinBlock = 32;  // swa computes in blocks of max(window, 32) queries
constexpr double kInf = std::numeric_limits<double>::infinity();

class AttentionCell final : public Cell {
 public:
  // sliding false: full causal attention; true: sliding window (option "window", 0 = sized).
  AttentionCell(const CellConfig& cfg, bool sliding) : sliding_(sliding) {
    // Options, their checks and the sizing to the budget: sizing.cpp beside this file.
    const CellShape shape = find_cell_sizing(sliding ? "swa" : "attention")->size(sizing_input(cfg));
    H_ = shape.dim("heads");
    Dh_ = shape.dim("head_dim");
    window_ = shape.dim("window");                   // swa; 0 for attention
    rotary_ = shape.dim("rotary") != 0;
    if (!sliding) max_length_ = shape.dim("max_length");
    parse_kernel_impl(cfg.impl);  // no kernel family of its own, but the same option is checked everywhere
    const int64_t D = cfg.d_model;
    qkv_proj_ = register_module("qkv_proj", torch::nn::Linear(D, 3 * H_ * Dh_));
    o_proj_ = register_module("o_proj", torch::nn::Linear(H_ * Dh_, D));
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const int64_t B = x.size(0), T = x.size(1);
    auto qkv = qkv_proj_->forward(x).view({B, T, 3, H_, Dh_}).permute({2, 0, 3, 1, 4});  // {3, B, H, T, Dh}
    // unbind, not three qkv[i]: its backward stacks the three gradients in one op, where each select's backward
    // allocates a zero {3, B, H, T, Dh} tensor and autograd sums the three (2% of an attention step, same bits).
    const auto parts = qkv.unbind(0);
    auto q = parts[0] * (1.0 / std::sqrt(static_cast<double>(Dh_))), k = parts[1], v = parts[2];
    if (rotary_) {
      const auto [cos, sin] = rotation(torch::arange(T, x.options().dtype(torch::kLong)));  // {T, Dh}
      q = rotate(q, cos, sin), k = rotate(k, cos, sin);
    }
    const int64_t C = std::max<int64_t>(window_, kMinBlock);
    auto o = sliding_ && 2 * C < T ? banded(q, k, v, C) : full(q, k, v);  // {B, H, T, Dh}
    return o_proj_->forward(o.transpose(1, 2).reshape({B, T, H_ * Dh_}));
  }

  int64_t state_size() const override { return 2 * H_ * Dh_ * slots(); }

  nlohmann::json resolved_options() const override {
    nlohmann::json j = {{"heads", H_}, {"head_dim", Dh_}};
    if (sliding_) j["window"] = window_;
    if (rotary_) j["positions"] = "rotary";
    return j;
  }

  bool needs_positions() const override { return !rotary_; }

  // The KV cache: keys and values {B, H, slots, Dh}. attention: one slot per position up to max_length;
  // swa: a ring of `window` slots holding the most recent past tokens.
  CellState initial_state(int64_t batch) const override {
    CellState s;
    s.tensors.push_back(torch::zeros({batch, H_, slots(), Dh_}));
    s.tensors.push_back(torch::zeros({batch, H_, slots(), Dh_}));
    return s;
  }

  torch::Tensor step(const torch::Tensor& x_t, CellState& state) override {
    const int64_t B = x_t.size(0), t = state.position;
    RB_CHECK_INPUT(sliding_ || t < max_length_, "cell attention: the sequence is longer than max_length " +
                                                    std::to_string(max_length_) + " its KV cache was sized for");
    auto qkv = qkv_proj_->forward(x_t).view({B, 3, H_, Dh_});
    auto q = qkv.select(1, 0), k = qkv.select(1, 1), v = qkv.select(1, 2);  // {B, H, Dh}
    if (rotary_) {
      const auto [cos, sin] = rotation(torch::full({1}, t, x_t.options().dtype(torch::kLong)));  // {1, Dh}
      q = rotate(q, cos, sin), k = rotate(k, cos, sin);
    }
    auto& k_cache = state.tensors[0];
    auto& v_cache = state.tensors[1];
    const int64_t past = sliding_ ? std::min(t, window_) : t;  // filled slots other than this token
    // Keys this token sees: the filled slots (order is irrelevant to softmax) and itself.
    torch::Tensor keys = k.unsqueeze(2), values = v.unsqueeze(2);
    if (past > 0) {
      keys = torch::cat({k_cache.narrow(2, 0, past), keys}, 2);
      values = torch::cat({v_cache.narrow(2, 0, past), values}, 2);
    }
    auto s = (keys * q.unsqueeze(2)).sum(-1) * (1.0 / std::sqrt(static_cast<double>(Dh_)));  // {B, H, past+1}
    auto o = (torch::softmax(s, -1).unsqueeze(-1) * values).sum(2);                          // {B, H, Dh}
    const int64_t slot = sliding_ ? t % window_ : t;
    k_cache = k_cache.index_copy(2, torch::full({1}, slot, x_t.options().dtype(torch::kLong)), k.unsqueeze(2));
    v_cache = v_cache.index_copy(2, torch::full({1}, slot, x_t.options().dtype(torch::kLong)), v.unsqueeze(2));
    ++state.position;
    return o_proj_->forward(o.reshape({B, H_ * Dh_}));
  }

 private:
  int64_t slots() const { return sliding_ ? window_ : max_length_; }

  // RoPE: the pair (x_i, x_{i+Dh/2}) of a head rotated by the angle pos·10000^(−2i/Dh). cos, sin {P, Dh} for
  // positions {P}; a cached key keeps its rotation, so q·k depends on the positions' difference only.
  std::pair<torch::Tensor, torch::Tensor> rotation(const torch::Tensor& positions) const {
    const int64_t half = Dh_ / 2;
    auto freq = torch::pow(10000.0, torch::arange(half, positions.options().dtype(torch::kFloat)) * (-2.0 / static_cast<double>(Dh_)));  // {Dh/2}
    auto angle = positions.to(torch::kFloat).unsqueeze(1) * freq.unsqueeze(0);                                 // {P, Dh/2}
    angle = torch::cat({angle, angle}, 1);                                                                    // {P, Dh}
    return {angle.cos(), angle.sin()};
  }
  // x {..., P, Dh} (or {B, H, Dh} for one position, P = 1): x·cos + rotate_half(x)·sin.
  static torch::Tensor rotate(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    const int64_t half = x.size(-1) / 2;
    auto rotated = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
    if (x.dim() == 3) return x * cos.squeeze(0) + rotated * sin.squeeze(0);
    return x * cos + rotated * sin;
  }

  // Query i may see key j: j ≤ i, and for swa j ≥ i − window.
  torch::Tensor visible(const torch::Tensor& i, const torch::Tensor& j) const {
    auto ok = j <= i;
    return sliding_ ? ok.logical_and(j >= i - window_) : ok;
  }

  // q (scaled), k, v {B, H, T, Dh}: all T×T scores, masked → {B, H, T, Dh}.
  torch::Tensor full(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) const {
    const int64_t T = q.size(2);
    auto s = torch::matmul(q, k.transpose(-1, -2));  // {B, H, T, T}
    auto pos = torch::arange(T, q.options().dtype(torch::kLong));
    s = s.masked_fill(visible(pos.unsqueeze(1), pos.unsqueeze(0)).logical_not(), -kInf);
    return torch::matmul(torch::softmax(s, -1), v);
  }

  // Sliding window in blocks of C ≥ window queries: block b sees keys of blocks b−1 and b, so the cost is
  // T·2C scores instead of T². Same result as full() up to rounding.
  torch::Tensor banded(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t C) const {
    const int64_t B = q.size(0), T = q.size(2), nb = (T + C - 1) / C, Tp = nb * C;
    namespace F = torch::nn::functional;
    // Pad time: C slots in front of the keys (block −1, hidden), up to nb·C at the end (future, hidden).
    auto pad_q = F::pad(q, F::PadFuncOptions({0, 0, 0, Tp - T}));
    auto pad_k = F::pad(k, F::PadFuncOptions({0, 0, C, Tp - T}));
    auto pad_v = F::pad(v, F::PadFuncOptions({0, 0, C, Tp - T}));
    auto qb = pad_q.view({B, H_, nb, C, Dh_});                                            // {B, H, nb, C, Dh}
    auto kb = pad_k.unfold(2, 2 * C, C).transpose(-1, -2);                                // {B, H, nb, 2C, Dh}
    auto vb = pad_v.unfold(2, 2 * C, C).transpose(-1, -2);
    auto s = torch::matmul(qb, kb.transpose(-1, -2));                                     // {B, H, nb, C, 2C}
    const auto index = q.options().dtype(torch::kLong);  // on q's device
    auto blk = torch::arange(nb, index).view({nb, 1, 1});
    auto i = blk * C + torch::arange(C, index).view({1, C, 1});                   // query positions
    auto j = blk * C - C + torch::arange(2 * C, index).view({1, 1, 2 * C});       // key positions
    auto hidden = visible(i, j).logical_and(j >= 0).logical_not();                        // {nb, C, 2C}
    s = s.masked_fill(hidden, -kInf);
    auto o = torch::matmul(torch::softmax(s, -1), vb);                                    // {B, H, nb, C, Dh}
    return o.reshape({B, H_, Tp, Dh_}).narrow(2, 0, T);
  }

  bool sliding_;
  bool rotary_ = false;
  int64_t H_ = 1, Dh_ = 0, window_ = 0, max_length_ = 0;
  torch::nn::Linear qkv_proj_{nullptr}, o_proj_{nullptr};
};

}  // namespace

RB_REGISTER(CellRegistry, attention,
            cell_entry("attention", [](const CellConfig& cfg) { return std::make_shared<AttentionCell>(cfg, false); }));
RB_REGISTER(CellRegistry, swa,
            cell_entry("swa", [](const CellConfig& cfg) { return std::make_shared<AttentionCell>(cfg, true); }));

}  // namespace rb
