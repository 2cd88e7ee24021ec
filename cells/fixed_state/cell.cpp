// The fixed-state family: one cell class over three independent knobs, every combination registered.
//   transition  diag   S_t = diag(α_t) S_{t-1} + k_t v_tᵀ          (decay off: α = 1, linear attention;
//                                                                 decay on: GLA-style per-key α_t = exp(g_t))
//               rank1  S_t = α_t (I − β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ
//                                                                (decay off: α = 1, the delta rule / DeltaNet;
//                                                                 decay on: scalar α_t per head, gated delta rule)
//   decay       on     data-dependent decay (see above)
//   conv        on     a width-4 depthwise causal convolution (+ SiLU) on q, k and v
// Read-out o_t = S_tᵀ q_t, then a per-head RMS norm (the undecayed state grows with T) and the output
// projection. Names join the knobs with '+' in the order transition, decay, conv ("rank1+decay+conv").
// Stable once published: baselines join on them.
//
// Shapes: x {B, T, D}; per head q, k {B, H, T, K}, v {B, H, T, V}; β {B, H, T}; log-decay g {B, H, T, K}
// (diag) or {B, H, T} (rank1); state S {B, H, K, V}.
// State per layer per sequence: H·K·V (+ 3·H·(2K+V) numbers of convolution buffer with conv on).
#include <cmath>

#include "cells/cell.h"
#include "cells/sizing.h"
#include "kernels/delta_rule/delta_rule.h"
#include "kernels/gla/gla.h"
#include "kernels/impl.h"
#include "kernels/linear_attn/linear_attn.h"
#include "core/errors.h"

namespace rb {
namespace {

constexpr int64_t kGateRank = 16;         // GLA's low-rank gate projection D → 16 → H·K
constexpr double kGateNormaliser = 16.0;  // GLA: g = logsigmoid(·) / 16, so per-step decay stays near 1

struct Knobs {
  std::string transition = "diag";
  bool decay = false;
  bool conv = false;
  std::string name() const { return transition + (decay ? "+decay" : "") + (conv ? "+conv" : ""); }
};

torch::Tensor l2_normalise(const torch::Tensor& x) { return x * torch::rsqrt(x.pow(2).sum(-1, true) + 1e-6); }

// One token of the transition, the definition the kernels implement (written out here for the
// stateful step path). S {B, H, K, V} is updated in place of the handle; q, k {B, H, K}; v {B, H, V};
// beta {B, H} (rank1) or undefined; g {B, H, K} (diag) or {B, H} (rank1), or undefined → o {B, H, V}.
torch::Tensor transition_step(torch::Tensor& S, const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& beta, const torch::Tensor& g) {
  if (g.defined()) S = S * (g.dim() == 3 ? g.exp().unsqueeze(-1) : g.exp().unsqueeze(-1).unsqueeze(-1));
  if (beta.defined()) {
    auto err = v - (S * k.unsqueeze(-1)).sum(-2);                        // v − Sᵀk  {B, H, V}
    S = S + k.unsqueeze(-1) * (beta.unsqueeze(-1) * err).unsqueeze(-2);  // + k (β err)ᵀ
  } else {
    S = S + k.unsqueeze(-1) * v.unsqueeze(-2);
  }
  return (S * q.unsqueeze(-1)).sum(-2);  // Sᵀq {B, H, V}
}

class FixedStateCell final : public Cell {
 public:
  FixedStateCell(const Knobs& knobs, const CellConfig& cfg) : knobs_(knobs), impl_(cfg.impl) {
    // Options, their checks and the sizing to the budget: sizing.cpp beside this file.
    const CellShape shape = find_cell_sizing(knobs.name())->size(sizing_input(cfg));
    H_ = shape.dim("heads");
    K_ = shape.dim("key_dim");
    V_ = shape.dim("value_dim");
    parse_kernel_impl(impl_);  // UsageError for anything but auto|ref|chunked|fused
    const int64_t D = cfg.d_model;
    auto linear = [&](const char* name, int64_t in, int64_t out, bool bias) {
      return register_module(name, torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias)));
    };
    q_proj_ = linear("q_proj", D, H_ * K_, false);
    k_proj_ = linear("k_proj", D, H_ * K_, false);
    v_proj_ = linear("v_proj", D, H_ * V_, false);
    o_proj_ = linear("o_proj", H_ * V_, D, false);
    norm_weight_ = register_parameter("norm_weight", torch::ones({V_}));
    if (knobs_.conv) conv_ = register_module("conv", ShortConv(channels(), shape.dim("conv_width"), /*silu=*/true, impl_));
    if (rank1()) beta_proj_ = linear("beta_proj", D, H_, true);
    if (knobs_.decay && !rank1()) {  // GLA: low-rank per-key gate
      gate_down_ = linear("gate_down", D, kGateRank, false);
      gate_up_ = linear("gate_up", kGateRank, H_ * K_, true);
    }
    if (knobs_.decay && rank1()) {  // Gated DeltaNet / Mamba-2: g = −exp(A_log)·softplus(a + dt_bias)
      gate_proj_ = linear("gate_proj", D, H_, false);
      a_log_ = register_parameter("a_log", torch::empty({H_}).uniform_(1.0, 16.0).log());
      // dt_bias = softplus⁻¹(dt), dt log-uniform in [1e-3, 1e-1], as Mamba-2 and GDN initialise it.
      auto dt = (torch::rand({H_}) * (std::log(0.1) - std::log(1e-3)) + std::log(1e-3)).exp();
      dt_bias_ = register_parameter("dt_bias", dt + torch::log(-torch::expm1(-dt)));
    }
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const int64_t B = x.size(0), T = x.size(1);
    Mixed m = mix_inputs(x);
    auto heads = [&](const torch::Tensor& t, int64_t d) { return t.view({B, T, H_, d}).transpose(1, 2); };
    auto q = heads(m.q, K_), k = heads(m.k, K_), v = heads(m.v, V_);  // {B, H, T, ·}
    auto beta = m.beta.defined() ? m.beta.transpose(1, 2) : m.beta;     // {B, H, T}
    torch::Tensor g;
    if (m.g.defined()) g = rank1() ? m.g.transpose(1, 2) : heads(m.g, K_);
    return read_out(run_transition(q.contiguous(), k.contiguous(), v.contiguous(), beta, g).transpose(1, 2),
                    B, T);
  }

  int64_t state_size() const override {
    return H_ * K_ * V_ + (knobs_.conv ? conv_->state_size() : 0);
  }

  nlohmann::json resolved_options() const override { return {{"heads", H_}, {"key_dim", K_}, {"value_dim", V_}}; }

  CellState initial_state(int64_t batch) const override {
    CellState s;
    s.tensors.push_back(torch::zeros({batch, H_, K_, V_}));
    if (knobs_.conv) s.tensors.push_back(conv_->initial_state(batch));
    return s;
  }

  torch::Tensor step(const torch::Tensor& x_t, CellState& state) override {
    const int64_t B = x_t.size(0);
    Mixed m = mix_inputs(x_t.unsqueeze(1), knobs_.conv ? &state.tensors[1] : nullptr);
    auto q = m.q.view({B, H_, K_}), k = m.k.view({B, H_, K_}), v = m.v.view({B, H_, V_});
    auto beta = m.beta.defined() ? m.beta.view({B, H_}) : m.beta;
    auto g = m.g.defined() ? (rank1() ? m.g.view({B, H_}) : m.g.view({B, H_, K_})) : m.g;
    auto o = transition_step(state.tensors[0], q, k, v, beta, g);  // {B, H, V}
    ++state.position;
    return read_out(o.unsqueeze(1), B, 1).squeeze(1);
  }

 private:
  // Per-token inputs of the transition, token-major: q, k {B, T, H·K} (conv, normalisation and scale
  // applied), v {B, T, H·V}, beta {B, T, H}, g {B, T, H·K} (diag) or {B, T, H} (rank1).
  struct Mixed {
    torch::Tensor q, k, v, beta, g;
  };

  // x {B, T, D}. With `conv_buffer` the convolution runs as one step (T = 1) on that carried buffer.
  Mixed mix_inputs(const torch::Tensor& x, torch::Tensor* conv_buffer = nullptr) {
    Mixed m;
    auto q = q_proj_->forward(x), k = k_proj_->forward(x), v = v_proj_->forward(x);
    if (knobs_.conv) {
      auto qkv = torch::cat({q, k, v}, -1);
      qkv = conv_buffer ? conv_->step(qkv.squeeze(1), *conv_buffer).unsqueeze(1) : conv_->forward(qkv);
      auto parts = qkv.split_with_sizes({H_ * K_, H_ * K_, H_ * V_}, -1);
      q = parts[0], k = parts[1], v = parts[2];
    }
    const auto sizes = q.sizes().vec();
    auto per_head = [&](const torch::Tensor& t) { return t.view({sizes[0], sizes[1], H_, K_}); };
    if (rank1()) {  // L2-normalised q and k keep the eigenvalues of I − βkkᵀ in [1 − β, 1]
      q = l2_normalise(per_head(q)).view(sizes);
      k = l2_normalise(per_head(k)).view(sizes);
      m.beta = torch::sigmoid(beta_proj_->forward(x));
    }
    m.q = q * (1.0 / std::sqrt(static_cast<double>(K_)));
    m.k = k;
    m.v = v;
    if (knobs_.decay && !rank1())
      m.g = torch::log_sigmoid(gate_up_->forward(gate_down_->forward(x))) / kGateNormaliser;
    if (knobs_.decay && rank1())
      m.g = -a_log_.exp() * torch::softplus(gate_proj_->forward(x) + dt_bias_);
    return m;
  }

  // o {B, T, H, V} → per-head RMS norm, output projection → {B, T, D}.
  torch::Tensor read_out(torch::Tensor o, int64_t B, int64_t T) {
    o = o * torch::rsqrt(o.pow(2).mean(-1, true) + 1e-6) * norm_weight_;
    return o_proj_->forward(o.reshape({B, T, H_ * V_}));
  }

  // q, k {B, H, T, K}; v {B, H, T, V} → o {B, H, T, V}.
  torch::Tensor run_transition(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& beta, const torch::Tensor& g) {
    if (rank1()) return delta_rule(q, k, v, beta.contiguous(), g.defined() ? g.contiguous() : g, impl_);
    return knobs_.decay ? gla(q, k, v, g.contiguous(), impl_) : linear_attn(q, k, v, impl_);
  }

  bool rank1() const { return knobs_.transition == "rank1"; }
  int64_t channels() const { return H_ * (2 * K_ + V_); }

  Knobs knobs_;
  std::string impl_;
  int64_t H_ = 1, K_ = 0, V_ = 0;
  torch::nn::Linear q_proj_{nullptr}, k_proj_{nullptr}, v_proj_{nullptr}, o_proj_{nullptr};
  torch::nn::Linear beta_proj_{nullptr}, gate_down_{nullptr}, gate_up_{nullptr}, gate_proj_{nullptr};
  torch::Tensor norm_weight_, a_log_, dt_bias_;
  ShortConv conv_{nullptr};
};

CellEntry fixed_state_entry(const Knobs& knobs) {
  return cell_entry(knobs.name(), [knobs](const CellConfig& cfg) { return std::make_shared<FixedStateCell>(knobs, cfg); });
}

}  // namespace

RB_REGISTER(CellRegistry, diag, fixed_state_entry({"diag", false, false}));
RB_REGISTER(CellRegistry, diag_conv, fixed_state_entry({"diag", false, true}));
RB_REGISTER(CellRegistry, diag_decay, fixed_state_entry({"diag", true, false}));
RB_REGISTER(CellRegistry, diag_decay_conv, fixed_state_entry({"diag", true, true}));
RB_REGISTER(CellRegistry, rank1, fixed_state_entry({"rank1", false, false}));
RB_REGISTER(CellRegistry, rank1_conv, fixed_state_entry({"rank1", false, true}));
RB_REGISTER(CellRegistry, rank1_decay, fixed_state_entry({"rank1", true, false}));
RB_REGISTER(CellRegistry, rank1_decay_conv, fixed_state_entry({"rank1", true, true}));

}  // namespace rb
