// The fused CPU kernels' inner loops: one sequence of one head at a time, over raw fp32 pointers.
// Torch-free on purpose: this file is compiled with the machine's vector instructions (-march=native,
// `omp simd` reductions) while the LibTorch wrappers (autograd functions, threading over B×H with
// at::parallel_for) live in the per-recurrence files.
//
// Per (batch, head) slice, row-major and contiguous: q, k, gk {T, K}; v, o {T, V}; gs, beta {T}; state
// S {K, V}. For the delta rule, checkpoints `ck` {ceil(T / kCheckpoint), K, V} hold the state before tokens 0,
// kCheckpoint, 2·kCheckpoint, … so that the backward pass recomputes states one checkpoint segment at a time
// instead of storing all T of them (autograd through the token-by-token reference stores every state). The
// diagonal family's backward needs no stored state at all (three passes, recurrence_cpu.cpp).
#pragma once

#include <cstdint>

namespace rb::cpu {

// Tokens between stored states. The backward pass holds kCheckpoint + 1 states of one head (1 MiB at K=V=64).
inline constexpr int64_t kCheckpoint = 64;

inline int64_t num_checkpoints(int64_t T) { return (T + kCheckpoint - 1) / kCheckpoint; }

// The decay of the diagonal-transition family: none (linear attention), one per token (ssd), one per key
// per token (gla). The decay scans take the factors a = exp(g) (the wrapper exponentiates them once, with
// LibTorch's vectorised exp: the kernel used to call std::exp K times per token in every pass, which at
// K = 64 cost as much as the state update); the gradient they return is still the one of g.
enum class Decay { kNone, kScalar, kPerKey };

// S_t = diag(a_t) S_{t-1} + k_t v_tᵀ, o_t = S_tᵀ q_t with a = exp(g): `g` here holds the factors a, {T, K}
// (kPerKey), {T} (kScalar) or unused.
// ck, when not null, receives the checkpoints (the backward does not need them).
void decay_scan_forward(Decay decay, int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                        const float* g, float* o, float* ck);

// Gradients of sum(o ⊙ dout): dq, dk {T, K}; dv {T, V}; dg, the gradient of the logs g, with g's shape
// (unused for kNone). `g` holds the factors a = exp(g), as in the forward. Overwrites. `work` needs
// decay_scan_workspace(K, V) floats.
int64_t decay_scan_workspace(int64_t K, int64_t V);
void decay_scan_backward(Decay decay, int64_t T, int64_t K, int64_t V, const float* q, const float* k,
                         const float* v, const float* g, const float* dout, float* dq, float* dk, float* dv,
                         float* dg, float* work);

// S_t = α_t (I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ, o_t = S_tᵀ q_t with α_t = exp(g_t) (g null: α = 1).
void delta_scan_forward(int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                        const float* beta, const float* g, float* o, float* ck);

// Gradients of sum(o ⊙ dout): dq, dk, dv, dbeta, and dg when g is not null. Overwrites.
int64_t delta_scan_workspace(int64_t K, int64_t V);
void delta_scan_backward(int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                         const float* beta, const float* g, const float* ck, const float* dout, float* dq, float* dk,
                         float* dv, float* dbeta, float* dg, float* work);

// Short causal depthwise conv on channels [c0, c1) of x {B, T, C}, weight {C, W}, bias {C} or null.
// Forward writes y (no activation: callers apply SiLU with LibTorch's vectorised op). Backward
// overwrites dx, dweight, dbias on those channels (dbias may be null).
void short_conv_forward(int64_t B, int64_t T, int64_t C, int64_t W, int64_t c0, int64_t c1, const float* x,
                        const float* weight, const float* bias, float* y);
void short_conv_backward(int64_t B, int64_t T, int64_t C, int64_t W, int64_t c0, int64_t c1, const float* x,
                         const float* weight, const float* dy, float* dx, float* dweight, float* dbias);

}  // namespace rb::cpu
