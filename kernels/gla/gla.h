// Gated linear attention (the `diag` transition with decay on: data-dependent per-key decay):
//   S_t = diag(exp g_t) S_{t-1} + k_t v_tᵀ,   o_t = S_tᵀ q_t.
// q, k, g {B, H, T, K}; v {B, H, T, V} → o {B, H, T, V}, all fp32; g is a log-decay, g ≤ 0 (decay factor
// exp(g) in (0, 1]). The state S {B, H, K, V} starts at zero. Scaling of q is the caller's business.
// Gradients flow to q, k, v and g.
#pragma once

#include <string>

#include <torch/torch.h>

namespace rb {

// Token by token in LibTorch ops: the definition.
torch::Tensor gla_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& g);

// Chunked (kernels.md §2(c)): within a chunk of C tokens the decayed C×C scores are formed exactly as
// Σ_d q_id k_jd exp(G_id − G_jd) with every exponent ≤ 0; across chunks the state is carried with matrix
// products. Autograd differentiates it.
torch::Tensor gla_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& g, int64_t chunk = 16);

// Fused CPU kernel: hand-written forward and backward over raw pointers, fp32 state, threaded over B×H.
torch::Tensor gla_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& g);

// Dispatcher: impl "auto" | "ref" | "chunked" | "fused" (see kernels/impl.h).
torch::Tensor gla(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g,
                  const std::string& impl = "auto");

}  // namespace rb
