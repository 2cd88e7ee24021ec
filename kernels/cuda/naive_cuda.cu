// The simple CUDA baselines declared in naive_cuda.h: the definitions written out literally, one thread per
// state column (recurrences) or per output element (convolution), state in per-thread local memory.
#include "kernels/cuda/naive_cuda.h"

#include "kernels/cuda/cuda_common.cuh"
#include "kernels/cuda/recurrent_cuda.h"
#include "kernels/cuda/short_conv_cuda.h"

namespace rb {
namespace {

constexpr int kThreads = 128;

// One thread per (b·h, v). q, k, g {B, H, T, K}; v, o {B, H, T, V}.
__global__ void gla_naive_kernel(const float* q, const float* k, const float* v, const float* g, float* o,
                                 int64_t BH, int T, int K, int V) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= BH * V) return;
  const int64_t bh = idx / V;
  const int col = static_cast<int>(idx % V);
  float s[kCudaMaxK];
  for (int kk = 0; kk < K; ++kk) s[kk] = 0.f;
  for (int t = 0; t < T; ++t) {
    const int64_t row = (bh * T + t) * K;
    const float vt = v[(bh * T + t) * V + col];
    float acc = 0.f;
    for (int kk = 0; kk < K; ++kk) {
      s[kk] = expf(g[row + kk]) * s[kk] + k[row + kk] * vt;
      acc += s[kk] * q[row + kk];
    }
    o[(bh * T + t) * V + col] = acc;
  }
}

// One thread per (b·h, v): decay, error, rank-1 update, read-out, as three passes over the column.
__global__ void delta_rule_naive_kernel(const float* q, const float* k, const float* v, const float* beta,
                                        const float* g, float* o, int64_t BH, int T, int K, int V) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= BH * V) return;
  const int64_t bh = idx / V;
  const int col = static_cast<int>(idx % V);
  float s[kCudaMaxK];
  for (int kk = 0; kk < K; ++kk) s[kk] = 0.f;
  for (int t = 0; t < T; ++t) {
    const int64_t row = (bh * T + t) * K;
    const float alpha = g != nullptr ? expf(g[bh * T + t]) : 1.f;
    float pred = 0.f;
    for (int kk = 0; kk < K; ++kk) {
      s[kk] *= alpha;
      pred += s[kk] * k[row + kk];
    }
    const float u = beta[bh * T + t] * (v[(bh * T + t) * V + col] - pred);
    float acc = 0.f;
    for (int kk = 0; kk < K; ++kk) {
      s[kk] += k[row + kk] * u;
      acc += s[kk] * q[row + kk];
    }
    o[(bh * T + t) * V + col] = acc;
  }
}

// One thread per (b, t, c). x, y {B, T, C}; weight {C, W}; bias {C} or null.
__global__ void short_conv_naive_kernel(const float* x, const float* weight, const float* bias, float* y,
                                        int64_t B, int T, int C, int W, bool apply_silu) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= B * T * C) return;
  const int c = static_cast<int>(idx % C);
  const int t = static_cast<int>((idx / C) % T);
  float acc = bias != nullptr ? bias[c] : 0.f;
  for (int w = 0; w < W; ++w) {
    const int ts = t - (W - 1) + w;
    if (ts >= 0) acc += weight[int64_t(c) * W + w] * x[idx + int64_t(ts - t) * C];
  }
  y[idx] = apply_silu ? acc / (1.f + expf(-acc)) : acc;
}

int blocks_for(int64_t n, const char* who) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  cuda_detail::require(blocks <= INT32_MAX, who, "a grid of " + std::to_string(blocks) + " blocks",
                       "at most 2^31-1 blocks");
  return static_cast<int>(blocks);
}

}  // namespace

void gla_fwd_cuda_naive(const float* q, const float* k, const float* v, const float* g, float* o, int B, int H,
                        int T, int K, int V, cudaStream_t stream) {
  constexpr const char* kWho = "gla_fwd_cuda_naive";
  cuda_detail::check_recurrent_shape(kWho, B, H, T, K, V, kCudaMaxK);
  cuda_detail::require_ptr(q, kWho, "q");
  cuda_detail::require_ptr(k, kWho, "k");
  cuda_detail::require_ptr(v, kWho, "v");
  cuda_detail::require_ptr(g, kWho, "g");
  cuda_detail::require_ptr(o, kWho, "o");
  const int64_t BH = int64_t(B) * H;
  RB_CUDA_LAUNCH(gla_naive_kernel, blocks_for(BH * V, kWho), kThreads, stream)(q, k, v, g, o, BH, T, K, V);
  cuda_detail::check_launch(kWho);
}

void delta_rule_fwd_cuda_naive(const float* q, const float* k, const float* v, const float* beta, const float* g,
                               float* o, int B, int H, int T, int K, int V, cudaStream_t stream) {
  constexpr const char* kWho = "delta_rule_fwd_cuda_naive";
  cuda_detail::check_recurrent_shape(kWho, B, H, T, K, V, kCudaMaxK);
  cuda_detail::require_ptr(q, kWho, "q");
  cuda_detail::require_ptr(k, kWho, "k");
  cuda_detail::require_ptr(v, kWho, "v");
  cuda_detail::require_ptr(beta, kWho, "beta");
  cuda_detail::require_ptr(o, kWho, "o");
  const int64_t BH = int64_t(B) * H;
  RB_CUDA_LAUNCH(delta_rule_naive_kernel, blocks_for(BH * V, kWho), kThreads, stream)
  (q, k, v, beta, g, o, BH, T, K, V);
  cuda_detail::check_launch(kWho);
}

void short_conv_fwd_cuda_naive(const float* x, const float* weight, const float* bias, float* y, int B, int T,
                               int C, int W, bool silu, cudaStream_t stream) {
  constexpr const char* kWho = "short_conv_fwd_cuda_naive";
  cuda_detail::require_dim(B, 1, INT32_MAX, kWho, "B");
  cuda_detail::require_dim(T, 1, INT32_MAX, kWho, "T");
  cuda_detail::require_dim(C, 1, INT32_MAX, kWho, "C");
  cuda_detail::require_dim(W, 1, kCudaMaxConvWidth, kWho, "W");
  cuda_detail::require_ptr(x, kWho, "x");
  cuda_detail::require_ptr(weight, kWho, "weight");
  cuda_detail::require_ptr(y, kWho, "y");
  const int64_t n = int64_t(B) * T * C;
  RB_CUDA_LAUNCH(short_conv_naive_kernel, blocks_for(n, kWho), kThreads, stream)(x, weight, bias, y, B, T, C, W, silu);
  cuda_detail::check_launch(kWho);
}

}  // namespace rb
