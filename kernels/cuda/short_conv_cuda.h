// CUDA forward of the short causal depthwise convolution (the `+conv` knob), torch-free, raw device pointers.
// Computes what kernels/short_conv/short_conv.h defines:
//   y[b, t, c] = act( bias[c] + Σ_{w<W} weight[c, w] · x[b, t − (W−1) + w, c] )      (x before t = 0 is 0)
// so tap W−1 multiplies x_t; act = SiLU when `silu`, else identity.
//
// Design: channel-last layout makes threads over C coalesced; each thread walks a run of time steps keeping
// the last W−1 inputs in registers, so x is read about once and y written once (memory-bound).
#pragma once

#include <cuda_runtime_api.h>

namespace rb {

// The widths the kernel is compiled for (1..kCudaMaxConvWidth).
inline constexpr int kCudaMaxConvWidth = 8;

// x, y {B, T, C}; weight {C, W}; bias {C} or nullptr. Asynchronous on `stream`.
// Throws rb::UsageError on a bad argument, std::runtime_error when the launch fails.
void short_conv_fwd_cuda(const float* x, const float* weight, const float* bias, float* y, int B, int T, int C,
                         int W, bool silu, cudaStream_t stream = nullptr);

}  // namespace rb
