// Internal to kernels/cuda: argument checks shared by the launchers, the launch-error check, the warp
// reductions, and the launch macro. Not a public header.
//
// RB_CUDA_EMULATION (set only by tests/cuda's emulated test): the .cu files are compiled as plain C++ against
// tests/cuda/cuda_emulation.h, which runs each CUDA thread as a CPU fiber, so CI without a GPU still executes
// the kernels' indexing and algebra. Production builds never define it.
#pragma once

#ifndef RB_CUDA_EMULATION
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/errors.h"

// RB_CUDA_LAUNCH(kernel, grid, block, stream)(args...): kernel<<<grid, block, 0, stream>>>(args...).
#ifdef RB_CUDA_EMULATION
#define RB_CUDA_LAUNCH(kernel, grid, block, stream) ::rb_emu::Launch((grid), (block), kernel)
#else
#define RB_CUDA_LAUNCH(kernel, grid, block, stream) kernel<<<(grid), (block), 0, (stream)>>>
#endif

namespace rb::cuda_detail {

// Bad input (tier 2): "who: got X, expected Y".
inline void require(bool ok, const char* who, const std::string& got, const char* expected) {
  if (!ok) throw UsageError(std::string(who) + ": got " + got + ", expected " + expected);
}

inline void require_ptr(const void* p, const char* who, const char* name) {
  require(p != nullptr, who, std::string(name) + " = nullptr", "a device pointer");
}

inline void require_dim(int value, int lo, int hi, const char* who, const char* name) {
  require(value >= lo && value <= hi, who, std::string(name) + " = " + std::to_string(value),
          (std::to_string(lo) + " <= " + name + " <= " + std::to_string(hi)).c_str());
}

// Shapes of the recurrences: B, H, K, V ≥ 1, T ≥ 0 (T = 0 only copies h0 to ht), K ≤ 256, and a grid that
// fits one dimension of blocks.
inline void check_recurrent_shape(const char* who, int B, int H, int T, int K, int V, int max_k) {
  require_dim(B, 1, INT32_MAX, who, "B");
  require_dim(H, 1, INT32_MAX, who, "H");
  require_dim(T, 0, INT32_MAX, who, "T");
  require_dim(K, 1, max_k, who, "K");
  require_dim(V, 1, INT32_MAX, who, "V");
  const int64_t blocks = int64_t(B) * H * ((int64_t(V) + 3) / 4);
  require(blocks <= INT32_MAX, who, "B*H*ceil(V/4) = " + std::to_string(blocks), "at most 2^31-1 blocks");
}

// Tier 1 for the runtime: a launch that did not start (no device, bad configuration) is an exception that
// names the launcher; errors inside a running kernel surface at the caller's next synchronisation.
inline void check_launch(const char* who) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(who) + ": kernel launch failed: " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")");
  }
}

inline int ceil_div(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// Butterfly sum over the 32 lanes of a warp: every lane ends with the same (bitwise) total, because each
// step adds the same two partial sums on both partner lanes.
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) x += __shfl_xor_sync(0xffffffffu, x, m);
  return x;
}

// Three independent sums at once, so their shuffles overlap.
__device__ __forceinline__ void warp_sum3(float& a, float& b, float& c) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    const float ra = __shfl_xor_sync(0xffffffffu, a, m);
    const float rb = __shfl_xor_sync(0xffffffffu, b, m);
    const float rc = __shfl_xor_sync(0xffffffffu, c, m);
    a += ra;
    b += rb;
    c += rc;
  }
}

}  // namespace rb::cuda_detail
