// `mamba2`: the Mamba-2 mixer (SSD: a scalar, data-dependent decay per head) with its causal conv,
// sized to a state budget through the SSM state width N (d_state).
//
// Options: expand (2), head_dim P (0 = gcd(E, 32)), d_state N (0 = sized to the budget; 16 without one).
//
//   in_proj: x {B, T, D} → z {B, T, E}, xBC {B, T, E + 2N}, dt {B, T, H}      (E = expand·D = H·P)
//   xBC ← SiLU(causal depthwise conv, width 4)(xBC); split into x {B, T, H, P}, B̃ {B, T, N}, C̃ {B, T, N}
//   dt ← softplus(dt + dt_bias);  g = −exp(A_log)·dt  (log-decay per head and token)
//   per head: S_t = exp(g_t) S_{t-1} + B̃_t (dt_t x_t)ᵀ,  y_t = S_tᵀ C̃_t + D_skip·x_t     S {N, P}
//   y ← RMSNorm(y ⊙ SiLU(z));  out_proj: {B, T, E} → {B, T, D}
// B̃ and C̃ are shared by all heads (one group), as in Mamba-2's default. The recurrence is the `ssd`
// kernel with q = C̃, k = B̃, v = dt·x (one scalar decay per head and token).
//
// State per layer per sequence: H·N·P (= E·N) + 3·(E + 2N) numbers of convolution buffer.
#include <cmath>
#include <numeric>

#include "cells/cell.h"
#include "cells/sizing.h"
#include "kernels/impl.h"
#include "kernels/ssd/ssd.h"
#include "core/errors.h"

namespace rb {
namespace {

class Mamba2Cell final : public Cell {
 public:
  explicit Mamba2Cell(const CellConfig& cfg) : impl_(cfg.impl) {
    // Options, their checks and the sizing to the budget: sizing.cpp beside this file.
    const CellShape shape = find_cell_sizing("mamba2")->size(sizing_input(cfg));
    expand_ = shape.dim("expand");
    E_ = shape.dim("channels");
    H_ = shape.dim("heads");
    P_ = shape.dim("head_dim");
    N_ = shape.dim("d_state");
    parse_kernel_impl(impl_);  // UsageError for anything but auto|ref|chunked|fused|cuda
    const int64_t D = cfg.d_model;
    in_proj_ = register_module("in_proj",
                               torch::nn::Linear(torch::nn::LinearOptions(D, 2 * E_ + 2 * N_ + H_).bias(false)));
    conv_ = register_module("conv", ShortConv(E_ + 2 * N_, shape.dim("conv_width"), /*silu=*/true, impl_));
    out_proj_ = register_module("out_proj", torch::nn::Linear(torch::nn::LinearOptions(E_, D).bias(false)));
    // A = −exp(A_log) with A uniform in [1, 16]; dt log-uniform in [1e-3, 1e-1] through dt_bias = softplus⁻¹(dt).
    a_log_ = register_parameter("a_log", torch::empty({H_}).uniform_(1.0, 16.0).log());
    auto dt = (torch::rand({H_}) * (std::log(0.1) - std::log(1e-3)) + std::log(1e-3)).exp();
    dt_bias_ = register_parameter("dt_bias", dt + torch::log(-torch::expm1(-dt)));
    d_skip_ = register_parameter("d_skip", torch::ones({H_}));
    norm_weight_ = register_parameter("norm_weight", torch::ones({E_}));
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const int64_t B = x.size(0), T = x.size(1);
    auto in = in_proj_->forward(x);
    auto parts = in.split_with_sizes({E_, E_ + 2 * N_, H_}, -1);
    auto z = parts[0];
    auto xbc = conv_->forward(parts[1]);
    Ssd s = ssd_inputs(xbc, parts[2]);
    auto heads = [&](const torch::Tensor& t) { return t.transpose(1, 2).contiguous(); };
    auto shared = [&](const torch::Tensor& t) { return t.unsqueeze(1).expand({B, H_, T, N_}).contiguous(); };
    auto y = run_ssd(shared(s.c), shared(s.b), heads(s.v), heads(s.g));  // {B, H, T, P}
    return read_out(y.transpose(1, 2), s.xh, z);
  }

  int64_t state_size() const override { return H_ * N_ * P_ + conv_->state_size(); }

  nlohmann::json resolved_options() const override {
    return {{"expand", expand_}, {"head_dim", P_}, {"d_state", N_}};
  }

  CellState initial_state(int64_t batch) const override {
    CellState s;
    s.tensors.push_back(torch::zeros({batch, H_, N_, P_}));
    s.tensors.push_back(conv_->initial_state(batch));
    return s;
  }

  torch::Tensor step(const torch::Tensor& x_t, CellState& state) override {
    auto in = in_proj_->forward(x_t.unsqueeze(1));  // {B, 1, ·}
    auto parts = in.split_with_sizes({E_, E_ + 2 * N_, H_}, -1);
    auto xbc = conv_->step(parts[1].squeeze(1), state.tensors[1]).unsqueeze(1);
    Ssd s = ssd_inputs(xbc, parts[2]);
    auto& S = state.tensors[0];                                                    // {B, H, N, P}
    S = S * s.g.squeeze(1).exp().unsqueeze(-1).unsqueeze(-1) +
        s.b.squeeze(1).unsqueeze(1).unsqueeze(-1) * s.v.squeeze(1).unsqueeze(-2);  // + B̃ (dt x)ᵀ
    auto y = (S * s.c.squeeze(1).unsqueeze(1).unsqueeze(-1)).sum(-2);               // Sᵀ C̃ {B, H, P}
    ++state.position;
    return read_out(y.unsqueeze(1), s.xh, parts[0]).squeeze(1);
  }

 private:
  // Token-major SSD inputs: b, c {B, T, N}; v = dt·x {B, T, H, P}; g {B, T, H}; xh = x {B, T, H, P}.
  struct Ssd {
    torch::Tensor b, c, v, g, xh;
  };

  Ssd ssd_inputs(const torch::Tensor& xbc, const torch::Tensor& dt_raw) {
    const int64_t B = xbc.size(0), T = xbc.size(1);
    auto p = xbc.split_with_sizes({E_, N_, N_}, -1);
    Ssd s;
    s.xh = p[0].reshape({B, T, H_, P_});
    s.b = p[1];
    s.c = p[2];
    auto dt = torch::softplus(dt_raw + dt_bias_);  // {B, T, H}
    s.g = -a_log_.exp() * dt;
    s.v = s.xh * dt.unsqueeze(-1);
    return s;
  }

  // y {B, T, H, P} (+ D_skip·x) → gated RMS norm → out_proj {B, T, D}.
  torch::Tensor read_out(torch::Tensor y, const torch::Tensor& xh, const torch::Tensor& z) {
    const int64_t B = y.size(0), T = y.size(1);
    y = (y + xh * d_skip_.view({H_, 1})).reshape({B, T, E_}) * torch::silu(z);
    y = y * torch::rsqrt(y.pow(2).mean(-1, true) + 1e-5) * norm_weight_;
    return out_proj_->forward(y);
  }

  // q, k {B, H, T, N}; v {B, H, T, P}; g {B, H, T} → {B, H, T, P}.
  torch::Tensor run_ssd(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& g) {
    return ssd(q, k, v, g, impl_);
  }

  std::string impl_;
  int64_t expand_ = 2, E_ = 0, H_ = 0, P_ = 0, N_ = 0;
  torch::nn::Linear in_proj_{nullptr}, out_proj_{nullptr};
  ShortConv conv_{nullptr};
  torch::Tensor a_log_, dt_bias_, d_skip_, norm_weight_;
};

}  // namespace

RB_REGISTER(CellRegistry, mamba2,
            cell_entry("mamba2", [](const CellConfig& cfg) { return std::make_shared<Mamba2Cell>(cfg); }));

}  // namespace rb
