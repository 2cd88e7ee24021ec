// CUDA forward kernels of the two decayed recurrences, behind torch-free launchers on raw device pointers.
// They compute exactly what kernels/gla/gla.h and kernels/delta_rule/delta_rule.h define (same layouts,
// same conventions), so the CPU `*_ref` functions are their reference. Forward only, fp32 throughout.
//
// Dimension letters: B batch, H heads, T time, K key dim (1..256), V value dim. All tensors are dense,
// row-major, on the current CUDA device. Launches are asynchronous on `stream`; nothing is synchronised.
//
// Design (one "fused recurrent" kernel per recurrence, kernels.md §6 "CUDA references"): value columns of
// the state never mix, so each warp owns one column S[:, v] of one (b, h) with the K entries spread over its
// 32 lanes in registers, and loops over T. A block of 4 warps shares tiles of q/k/g staged in shared memory;
// reductions over K are warp shuffles; no atomics, so results are deterministic run to run.
#pragma once

#include <cuda_runtime_api.h>

namespace rb {

// The largest key dim the kernels hold in registers.
inline constexpr int kCudaMaxK = 256;

// Gated linear attention (diag transition with data-dependent per-key decay):
//   S_t = diag(exp g_t) S_{t-1} + k_t v_tᵀ,   o_t = S_tᵀ q_t.
// q, k, g {B, H, T, K}; v, o {B, H, T, V}; g is a log-decay (≤ 0 in practice; not checked).
// h0 {B, H, K, V}: initial state, or nullptr for zeros. ht {B, H, K, V}: final state out, or nullptr.
// Throws rb::UsageError on a bad argument ("got X, expected Y"), std::runtime_error when the launch fails.
void gla_fwd_cuda(const float* q, const float* k, const float* v, const float* g, float* o, const float* h0,
                  float* ht, int B, int H, int T, int K, int V, cudaStream_t stream = nullptr);

// Delta rule, gated when g is given (forget before the error, as fla's gated delta rule):
//   S_t = exp(g_t) (I − β_t k_t k_tᵀ) S_{t-1} + β_t k_t v_tᵀ,   o_t = S_tᵀ q_t.
// q, k {B, H, T, K}; v, o {B, H, T, V}; beta {B, H, T}; g {B, H, T} log-decay, or nullptr for no decay.
// h0, ht {B, H, K, V} as for gla_fwd_cuda. The caller L2-normalises q and k and scales q.
void delta_rule_fwd_cuda(const float* q, const float* k, const float* v, const float* beta, const float* g,
                         float* o, const float* h0, float* ht, int B, int H, int T, int K, int V,
                         cudaStream_t stream = nullptr);

}  // namespace rb
