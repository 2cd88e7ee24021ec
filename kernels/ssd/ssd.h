// Scalar data-dependent decay (Mamba-2 SSD, simple GLA):
//   S_t = exp(g_t) S_{t-1} + k_t v_tᵀ,   o_t = S_tᵀ q_t.
// q, k {B, H, T, K}; v {B, H, T, V}; g {B, H, T} log-decay ≤ 0 → o {B, H, T, V}, all fp32. The state
// S {B, H, K, V} starts at zero. For Mamba-2: q = C, k = B, v = dt·x, g = dt·A (kernels.md §2(d)).
// Gradients flow to q, k, v and g.
#pragma once

#include <string>

#include <torch/torch.h>

namespace rb {

// Token by token in LibTorch ops: the definition.
torch::Tensor ssd_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& g);

// Chunked (kernels.md §2(d)): (Q Kᵀ ⊙ exp(segsum g)) V within a chunk, the carried state across chunks.
torch::Tensor ssd_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& g, int64_t chunk = 64);

// Fused CPU kernel (shares the gla kernel's code with one decay per head), forward and backward.
torch::Tensor ssd_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& g);

// Dispatcher: impl "auto" | "ref" | "chunked" | "fused" (see kernels/impl.h).
torch::Tensor ssd(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g,
                  const std::string& impl = "auto");

}  // namespace rb
