// Short causal depthwise convolution forward on CUDA. See short_conv_cuda.h for the math and the contract.
//
// Work split: grid = B · ceil(T/TT) · ceil(C/128) blocks of 128 threads; thread c of a block walks TT time
// steps of one channel, keeping the last W−1 inputs in registers (a sliding window), so consecutive threads
// read consecutive channels (coalesced) and each input is read ≈ (1 + (W−1)/TT) times.
#include "kernels/cuda/short_conv_cuda.h"

#include <type_traits>

#include "kernels/cuda/cuda_common.cuh"

namespace rb {
namespace {

constexpr int kThreads = 128;
constexpr int kSteps = 64;  // TT: time steps per thread

__device__ __forceinline__ float silu(float a) { return a / (1.f + expf(-a)); }

// x, y {B, T, C}; weight {C, W}; bias {C} or null.
// (No __launch_bounds__: with it, ptxas capped W = 3, 4 at 32 registers and spilled the window.)
template <int W>
__global__ void short_conv_fwd_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                                      const float* __restrict__ bias, float* __restrict__ y, int T, int C,
                                      int tblocks, int cblocks, bool apply_silu) {
  const int cb = blockIdx.x % cblocks;
  const int tb = (blockIdx.x / cblocks) % tblocks;
  const int64_t b = blockIdx.x / (int64_t(cblocks) * tblocks);
  const int c = cb * kThreads + threadIdx.x;
  if (c >= C) return;
  const int t0 = tb * kSteps, t1 = min(T, t0 + kSteps);

  float w[W];
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = weight[int64_t(c) * W + i];
  const float b0 = bias != nullptr ? bias[c] : 0.f;
  const float* xc = x + b * T * C + c;  // x[b, t, c] = xc[t * C]
  float* yc = y + b * T * C + c;

  float win[W];  // win[i] = x[t − (W−1) + i]; win[W−1] is the current step
#pragma unroll
  for (int i = 0; i < W - 1; ++i) {
    const int t = t0 - (W - 1) + i;
    win[i] = t >= 0 ? xc[int64_t(t) * C] : 0.f;
  }
  for (int t = t0; t < t1; ++t) {
    win[W - 1] = xc[int64_t(t) * C];
    float acc = b0;
#pragma unroll
    for (int i = 0; i < W; ++i) acc = fmaf(w[i], win[i], acc);
    yc[int64_t(t) * C] = apply_silu ? silu(acc) : acc;
#pragma unroll
    for (int i = 0; i < W - 1; ++i) win[i] = win[i + 1];
  }
}

template <int W>
void launch(const float* x, const float* weight, const float* bias, float* y, int blocks, int T, int C,
            int tblocks, int cblocks, bool silu, cudaStream_t stream) {
  RB_CUDA_LAUNCH(short_conv_fwd_kernel<W>, blocks, kThreads, stream)(x, weight, bias, y, T, C, tblocks, cblocks, silu);
}

}  // namespace

void short_conv_fwd_cuda(const float* x, const float* weight, const float* bias, float* y, int B, int T, int C,
                         int W, bool silu, cudaStream_t stream) {
  constexpr const char* kWho = "short_conv_fwd_cuda";
  cuda_detail::require_dim(B, 1, INT32_MAX, kWho, "B");
  cuda_detail::require_dim(T, 1, INT32_MAX, kWho, "T");
  cuda_detail::require_dim(C, 1, INT32_MAX, kWho, "C");
  cuda_detail::require_dim(W, 1, kCudaMaxConvWidth, kWho, "W");
  cuda_detail::require_ptr(x, kWho, "x");
  cuda_detail::require_ptr(weight, kWho, "weight");
  cuda_detail::require_ptr(y, kWho, "y");
  const int tblocks = cuda_detail::ceil_div(T, kSteps);
  const int cblocks = cuda_detail::ceil_div(C, kThreads);
  const int64_t blocks = int64_t(B) * tblocks * cblocks;
  cuda_detail::require(blocks <= INT32_MAX, kWho, "B*ceil(T/64)*ceil(C/128) = " + std::to_string(blocks),
                       "at most 2^31-1 blocks");
  const int nb = static_cast<int>(blocks);
  switch (W) {
    case 1: launch<1>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 2: launch<2>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 3: launch<3>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 4: launch<4>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 5: launch<5>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 6: launch<6>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    case 7: launch<7>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;
    default: launch<8>(x, weight, bias, y, nb, T, C, tblocks, cblocks, silu, stream); break;  // W == 8 (checked)
  }
  cuda_detail::check_launch(kWho);
}

}  // namespace rb
