// A CPU emulation of the small part of CUDA that kernels/cuda uses, so that CI without a GPU still executes
// the kernels' code (indexing, tiling, shared-memory staging, warp reductions, the algebra) against the CPU
// references. It says nothing about GPU speed, the memory model or hardware races; those need ci/gpu-check.
//
// How: each CUDA thread of a block is a ucontext fiber on one OS thread; a block runs in lockstep rounds,
// every fiber running until its next __syncthreads or shuffle step. All fibers of a block must reach the
// same kind of synchronisation in each round (true of kernels whose warps never diverge around a barrier or
// shuffle, as ours): a mismatch aborts with a message. __shared__ becomes `static` (one copy, shared by the
// block's fibers; blocks run one after another); device memory is host memory.
//
// Used only with RB_CUDA_EMULATION defined (see kernels/cuda/cuda_common.cuh); include it before anything
// from kernels/cuda.
#pragma once

#include <cuda_runtime_api.h>  // types and error strings only; nothing here touches a driver
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#ifndef RB_CUDA_EMULATION
#error "cuda_emulation.h needs RB_CUDA_EMULATION defined"
#endif

// Qualifiers: host code as far as the C++ compiler is concerned.
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __shared__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
using std::min;

struct RbEmuDim {
  unsigned x = 0, y = 0, z = 0;
};
inline RbEmuDim threadIdx, blockIdx, blockDim, gridDim;

namespace rb_emu {

enum Op : int { kNone = 0, kBarrier = 1, kShuffleWrite = 2, kShuffleRead = 3 };

struct Fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  bool done = false;
  int op = kNone;
};

inline ucontext_t g_scheduler;
inline std::vector<Fiber> g_fibers;
inline int g_current = 0;
inline std::function<void()> g_body;
inline float g_shuffle_slots[1024];  // one per thread of the block

inline void yield(int op) {
  g_fibers[g_current].op = op;
  swapcontext(&g_fibers[g_current].ctx, &g_scheduler);
}

inline void trampoline() {
  g_body();
  g_fibers[g_current].done = true;  // uc_link returns to the scheduler
}

[[noreturn]] inline void fail(const char* msg, int block) {
  std::fprintf(stderr, "cuda emulation: %s (block %d)\n", msg, block);
  std::abort();
}

// Runs kernel(args...) over `grid` blocks of `block` threads, blocks one after another.
template <typename Kernel, typename... Args>
void run(int grid, int block, Kernel kernel, Args... args) {
  if (block < 1 || block > 1024) fail("block size out of range", -1);
  gridDim.x = static_cast<unsigned>(grid);
  blockDim.x = static_cast<unsigned>(block);
  g_body = [=] { kernel(args...); };
  for (int b = 0; b < grid; ++b) {
    blockIdx.x = static_cast<unsigned>(b);
    g_fibers.assign(block, Fiber{});
    for (auto& f : g_fibers) {
      f.stack.resize(64 * 1024);
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.data();
      f.ctx.uc_stack.ss_size = f.stack.size();
      f.ctx.uc_link = &g_scheduler;
      makecontext(&f.ctx, trampoline, 0);
    }
    for (;;) {  // one round: every live fiber runs to its next synchronisation point
      int alive = 0, op = kNone;
      for (int i = 0; i < block; ++i) {
        if (g_fibers[i].done) continue;
        g_current = i;
        threadIdx.x = static_cast<unsigned>(i);
        swapcontext(&g_scheduler, &g_fibers[i].ctx);
        if (g_fibers[i].done) continue;
        ++alive;
        if (op == kNone) op = g_fibers[i].op;
        if (op != g_fibers[i].op) fail("threads of a block reached different synchronisation points", b);
      }
      if (alive == 0) break;
      if (alive != block && op != kBarrier) fail("a shuffle while some threads of the block have exited", b);
    }
  }
}

// What RB_CUDA_LAUNCH(kernel, grid, block, stream) becomes: Launch(grid, block, kernel)(args...).
template <typename Kernel>
struct Launch {
  int grid, block;
  Kernel kernel;
  Launch(int g, int b, Kernel k) : grid(g), block(b), kernel(k) {}
  template <typename... Args>
  void operator()(Args... args) const {
    run(grid, block, kernel, args...);
  }
};

}  // namespace rb_emu

inline void __syncthreads() { rb_emu::yield(rb_emu::kBarrier); }

// Every lane writes its value, then (next round) reads its partner's: lockstep like a converged warp.
inline float __shfl_xor_sync(unsigned /*mask*/, float value, int lane_mask) {
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32;
  rb_emu::g_shuffle_slots[tid] = value;
  rb_emu::yield(rb_emu::kShuffleWrite);
  const float other = rb_emu::g_shuffle_slots[tid - lane + (lane ^ lane_mask)];
  rb_emu::yield(rb_emu::kShuffleRead);
  return other;
}

// The runtime calls the kernels and tests make, on host memory. Launches cannot fail to start here.
#define cudaGetLastError() cudaSuccess
#define cudaMalloc(ptr, bytes) ((*(ptr) = std::malloc(bytes)), cudaSuccess)
#define cudaFree(ptr) (std::free(ptr), cudaSuccess)
#define cudaMemset(ptr, value, bytes) (std::memset((ptr), (value), (bytes)), cudaSuccess)
#define cudaMemcpy(dst, src, bytes, kind) (std::memcpy((dst), (src), (bytes)), cudaSuccess)
#define cudaDeviceSynchronize() cudaSuccess
#define cudaGetDeviceCount(count) ((*(count) = 1), cudaSuccess)
