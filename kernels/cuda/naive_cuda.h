// Deliberately simple CUDA versions of the three forward kernels: one thread per output column (or element),
// state in per-thread local memory, no shared memory or shuffles. They are the in-run baselines of the GPU
// benchmarks (a speed figure is quoted as a ratio to them) and a second, independent GPU check in the tests.
// Same arguments, layouts and errors as recurrent_cuda.h and short_conv_cuda.h.
#pragma once

#include <cuda_runtime_api.h>

namespace rb {

void gla_fwd_cuda_naive(const float* q, const float* k, const float* v, const float* g, float* o, int B, int H,
                        int T, int K, int V, cudaStream_t stream = nullptr);

void delta_rule_fwd_cuda_naive(const float* q, const float* k, const float* v, const float* beta, const float* g,
                               float* o, int B, int H, int T, int K, int V, cudaStream_t stream = nullptr);

void short_conv_fwd_cuda_naive(const float* x, const float* weight, const float* bias, float* y, int B, int T,
                               int C, int W, bool silu, cudaStream_t stream = nullptr);

}  // namespace rb
