// Linear attention (the `diag` transition with decay off): S_t = S_{t-1} + k_t v_tᵀ, o_t = S_tᵀ q_t.
// q, k {B, H, T, K}; v {B, H, T, V} → o {B, H, T, V}, all fp32. The state S {B, H, K, V} starts at zero.
// Scaling of q (e.g. K^-1/2) is the caller's business.
#pragma once

#include <string>

#include <torch/torch.h>

namespace rb {

// Token by token in LibTorch ops: the definition every faster form is tested against.
torch::Tensor linear_attn_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);

// Chunked: within a chunk of C tokens a masked C×C product, across chunks the carried state
// (../shared/reference/kernels.md §2(a)). Exact up to rounding; autograd differentiates it.
torch::Tensor linear_attn_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  int64_t chunk = 64);

// Fused CPU kernel: hand-written forward and backward (the gla kernel with no decay), threaded over B×H.
torch::Tensor linear_attn_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v);

// Dispatcher: impl "auto" | "ref" | "chunked" | "fused" (see kernels/impl.h).
torch::Tensor linear_attn(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const std::string& impl = "auto");

}  // namespace rb
