// The delta rule (`rank1` transition) and, with a decay, the gated delta rule:
//   S_t = exp(g_t) · (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ,   o_t = S_tᵀ q_t      (S is K×V)
// q, k {B, H, T, K}; v {B, H, T, V}; beta {B, H, T} in (0, 1); g {B, H, T} log-decay ≤ 0, or an undefined
// tensor for no decay (plain delta rule) → o {B, H, T, V}, all fp32. The state starts at zero.
// The caller L2-normalises q and k (the transition is only contractive for ‖k‖ ≤ 1) and scales q.
// Gradients flow to q, k, v, beta and (when defined) g.
#pragma once

#include <string>

#include <torch/torch.h>

namespace rb {

// Token by token in LibTorch ops: the definition.
torch::Tensor delta_rule_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& beta, const torch::Tensor& g = {});

// Chunked with the WY/UT transform (kernels.md §2(b)): per chunk of C tokens a triangular solve
// (I + A)^{-1} turns the C rank-1 updates into matrix products; across chunks the state is carried.
torch::Tensor delta_rule_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& beta, const torch::Tensor& g = {}, int64_t chunk = 64);

// Fused CPU kernel: hand-written forward and backward over raw pointers, fp32 state, threaded over B×H.
torch::Tensor delta_rule_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& beta, const torch::Tensor& g = {});

// Dispatcher: impl "auto" | "ref" | "chunked" | "fused" (see kernels/impl.h).
torch::Tensor delta_rule(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& beta, const torch::Tensor& g = {}, const std::string& impl = "auto");

}  // namespace rb
