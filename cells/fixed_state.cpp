// The fixed-state family: one cell class over independent knobs, every combination registered.
//   transition  diag  — S_t = S_{t-1} + k_t v_tᵀ (linear attention; decay on: GLA-style per-key decay)
//   conv        on    — a width-4 depthwise causal convolution (+ SiLU) on q, k and v
// Names join the knobs with '+': "diag", "diag+conv". Stable once published: baselines join on them.
//
// Shapes: x {B, T, D}; per head q, k {B, H, T, K}, v {B, H, T, V}; state S {B, H, K, V}.
// State per layer per sequence: H·K·V (+ 3·(W-1)·channels of convolution buffer).
#include <cmath>

#include "cells/cell.h"
#include "kernels/linear_attn/linear_attn.h"
#include "suite/core/errors.h"
#include "suite/core/options.h"

namespace rb {
namespace {

constexpr int64_t kConvWidth = 4;

struct Knobs {
  std::string transition = "diag";
  bool decay = false;
  bool conv = false;
  std::string name() const { return transition + (decay ? "+decay" : "") + (conv ? "+conv" : ""); }
};

nlohmann::json fixed_state_defaults() { return {{"heads", 1}, {"key_dim", 0}, {"value_dim", 0}}; }

class FixedStateCell final : public Cell {
 public:
  FixedStateCell(const Knobs& knobs, const CellConfig& cfg) : knobs_(knobs), impl_(cfg.impl) {
    OptionReader r("cell " + knobs.name(), cfg.options, fixed_state_defaults());
    H_ = r.integer("heads");
    RB_CHECK_INPUT(H_ >= 1, "cell " + knobs.name() + ": heads must be ≥ 1, got " + std::to_string(H_));
    K_ = r.integer("key_dim");
    V_ = r.integer("value_dim");
    if (K_ == 0 && V_ == 0) size_to_budget(cfg.d_model, cfg.state_budget);
    if (V_ == 0) V_ = K_;
    if (K_ == 0) K_ = V_;
    RB_CHECK_INPUT(K_ >= 1 && V_ >= 1, "cell " + knobs.name() + ": key_dim and value_dim must be ≥ 1");
    RB_CHECK_INPUT(impl_ == "auto" || impl_ == "ref" || impl_ == "chunked",
                   "cell " + knobs.name() + ": --impl must be auto, ref or chunked, got " + impl_);
    const int64_t D = cfg.d_model;
    q_proj_ = register_module("q_proj", torch::nn::Linear(torch::nn::LinearOptions(D, H_ * K_).bias(false)));
    k_proj_ = register_module("k_proj", torch::nn::Linear(torch::nn::LinearOptions(D, H_ * K_).bias(false)));
    v_proj_ = register_module("v_proj", torch::nn::Linear(torch::nn::LinearOptions(D, H_ * V_).bias(false)));
    o_proj_ = register_module("o_proj", torch::nn::Linear(torch::nn::LinearOptions(H_ * V_, D).bias(false)));
    norm_weight_ = register_parameter("norm_weight", torch::ones({V_}));
    if (knobs_.conv) conv_ = register_module("conv", ShortConv(channels(), kConvWidth));
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const int64_t B = x.size(0), T = x.size(1);
    auto q = q_proj_->forward(x), k = k_proj_->forward(x), v = v_proj_->forward(x);
    if (knobs_.conv) {
      auto qkv = conv_->forward(torch::cat({q, k, v}, -1));
      auto parts = qkv.split_with_sizes({H_ * K_, H_ * K_, H_ * V_}, -1);
      q = parts[0], k = parts[1], v = parts[2];
    }
    auto heads = [&](const torch::Tensor& t, int64_t d) { return t.view({B, T, H_, d}).transpose(1, 2); };
    q = heads(q, K_) * (1.0 / std::sqrt(static_cast<double>(K_)));  // {B, H, T, K}
    k = heads(k, K_);
    v = heads(v, V_);
    auto o = impl_ == "ref" ? linear_attn_ref(q, k, v) : linear_attn_chunked(q, k, v);  // {B, H, T, V}
    // Per-head RMS norm of the readout: the unnormalised state grows with T.
    o = o * torch::rsqrt(o.pow(2).mean(-1, true) + 1e-6) * norm_weight_;
    return o_proj_->forward(o.transpose(1, 2).reshape({B, T, H_ * V_}));
  }

  int64_t state_size() const override {
    return H_ * K_ * V_ + (knobs_.conv ? channels() * (kConvWidth - 1) : 0);
  }

  nlohmann::json resolved_options() const override { return {{"heads", H_}, {"key_dim", K_}, {"value_dim", V_}}; }

 private:
  int64_t channels() const { return H_ * (2 * K_ + V_); }

  // K = V chosen so the state (conv buffer included) is as close to the budget as possible.
  // Without a budget: K = V = D / H.
  void size_to_budget(int64_t d_model, int64_t budget) {
    if (budget <= 0) {
      K_ = V_ = std::max<int64_t>(1, d_model / H_);
      return;
    }
    int64_t best = 1;
    for (int64_t d = 1; d <= 1024; ++d) {
      K_ = V_ = d;
      const int64_t s = state_size();
      K_ = V_ = best;
      if (std::llabs(s - budget) < std::llabs(state_size() - budget)) best = d;
    }
    K_ = V_ = best;
  }

  Knobs knobs_;
  std::string impl_;
  int64_t H_ = 1, K_ = 0, V_ = 0;
  torch::nn::Linear q_proj_{nullptr}, k_proj_{nullptr}, v_proj_{nullptr}, o_proj_{nullptr};
  torch::Tensor norm_weight_;
  ShortConv conv_{nullptr};
};

CellEntry fixed_state_entry(const Knobs& knobs, const std::string& description) {
  return CellEntry{knobs.name(), description,
                   {{"transition", knobs.transition}, {"decay", knobs.decay}, {"conv", knobs.conv}},
                   fixed_state_defaults(),
                   [knobs](const CellConfig& cfg) { return std::make_shared<FixedStateCell>(knobs, cfg); }};
}

}  // namespace

RB_REGISTER(CellRegistry, diag, fixed_state_entry({"diag", false, false}, "linear attention (no decay, no conv)"));
RB_REGISTER(CellRegistry, diag_conv,
            fixed_state_entry({"diag", false, true}, "linear attention with a width-4 short causal conv"));

}  // namespace rb
