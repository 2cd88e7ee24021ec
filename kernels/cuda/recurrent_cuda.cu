// Fused recurrent forward kernels on CUDA: gated linear attention (diag + per-key decay) and the (gated)
// delta rule (rank-1 + scalar decay). See recurrent_cuda.h for the math and the launch contract.
//
// Dimension letters: B, H, T, K, V as in recurrent_cuda.h; KP = K rounded up to 32, 64, 128 or 256 (the
// register tile, KPL = KP/32 entries per lane); COLS = value columns (warps) per block; TT = tokens per
// shared-memory tile.
//
// Work split: grid = B·H·ceil(V/COLS) blocks of 32·COLS threads. Warp w of a block owns state column
// v = v0 + w of head (b, h); lane l holds S[l + 32j, v] for j < KPL in registers. Each tile of TT tokens of
// q, k (and exp g for GLA) is loaded once per block, coalesced, into shared memory, padded with zeros from K
// to KP so the padded lanes carry a zero state and add nothing. Outputs of a tile are staged in shared memory
// and written back coalesced after the tile.
#include "kernels/cuda/recurrent_cuda.h"

#include <type_traits>

#include "kernels/cuda/cuda_common.cuh"

namespace rb {
namespace {

using cuda_detail::warp_sum;
using cuda_detail::warp_sum3;

constexpr int kCols = 4;  // warps (value columns) per block: 128 threads, enough blocks at small B·H·V

// Tokens per tile: 2048 floats per staged tensor (8 KiB; GLA stages three, the delta rule two) whatever K.
__host__ __device__ constexpr int tile_tokens(int kp) { return 2048 / kp; }

// Loads one tile {n, K} of a {T, K} row-major slab, starting at token t0, into shared {n, KP} with zero
// padding; kExp stores exp(x) instead of x (GLA's decays, evaluated once per block, not per column).
template <int KP, bool kExp>
__device__ __forceinline__ void load_tile(float* dst, const float* __restrict__ src, int t0, int n, int K) {
  for (int i = threadIdx.x; i < n * KP; i += blockDim.x) {
    const int tt = i / KP, kk = i % KP;  // KP is 32, 64, 128 or 256: shifts and masks
    float x = 0.f;
    if (kk < K) {
      x = src[int64_t(t0 + tt) * K + kk];
      if (kExp) x = expf(x);
    }
    dst[i] = x;
  }
}

// Loads the block's COLS value columns of tokens t0..t0+n into shared {n, COLS} (zeros past V).
__device__ __forceinline__ void load_values(float* dst, const float* __restrict__ src, int t0, int n, int V, int v0) {
  for (int i = threadIdx.x; i < n * kCols; i += blockDim.x) {
    const int tt = i / kCols, c = i % kCols;
    dst[i] = (v0 + c < V) ? src[int64_t(t0 + tt) * V + v0 + c] : 0.f;
  }
}

__device__ __forceinline__ void store_values(float* __restrict__ dst, const float* src, int t0, int n, int V, int v0) {
  for (int i = threadIdx.x; i < n * kCols; i += blockDim.x) {
    const int tt = i / kCols, c = i % kCols;
    if (v0 + c < V) dst[int64_t(t0 + tt) * V + v0 + c] = src[i];
  }
}

// q, k, g {B, H, T, K}; v, o {B, H, T, V}; h0, ht {B, H, K, V} or null.
template <int KPL>
__global__ void __launch_bounds__(32 * kCols)
    gla_fwd_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                   const float* __restrict__ g, float* __restrict__ o, const float* __restrict__ h0,
                   float* __restrict__ ht, int T, int K, int V, int vtiles) {
  constexpr int KP = 32 * KPL;
  constexpr int TT = tile_tokens(KP);
  __shared__ float sq[TT * KP], sk[TT * KP], sd[TT * KP];  // q, k, exp(g) of the tile {TT, KP}
  __shared__ float sv[TT * kCols], so[TT * kCols];          // v, o of the block's columns {TT, COLS}

  const int64_t bh = blockIdx.x / vtiles;
  const int v0 = (blockIdx.x % vtiles) * kCols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int col = v0 + warp;  // this warp's column; ≥ V for the idle warps of the last tile
  const float* qb = q + bh * T * K;
  const float* kb = k + bh * T * K;
  const float* gb = g + bh * T * K;
  const float* vb = v + bh * T * V;
  float* ob = o + bh * T * V;

  float s[KPL];  // S[lane + 32j, col]
#pragma unroll
  for (int j = 0; j < KPL; ++j) {
    const int kk = lane + 32 * j;
    s[j] = (h0 != nullptr && col < V && kk < K) ? h0[(bh * K + kk) * V + col] : 0.f;
  }

  for (int t0 = 0; t0 < T; t0 += TT) {
    const int n = min(TT, T - t0);
    load_tile<KP, false>(sq, qb, t0, n, K);
    load_tile<KP, false>(sk, kb, t0, n, K);
    load_tile<KP, true>(sd, gb, t0, n, K);
    load_values(sv, vb, t0, n, V, v0);
    __syncthreads();
    // The state chain is one FMA per entry per token; the read-out reduction is off that chain, so
    // unrolling lets the shuffles of one token overlap the next token's update.
#pragma unroll 4
    for (int tt = 0; tt < n; ++tt) {
      const float vt = sv[tt * kCols + warp];
      float acc = 0.f;
#pragma unroll
      for (int j = 0; j < KPL; ++j) {
        const int i = tt * KP + lane + 32 * j;
        s[j] = fmaf(sd[i], s[j], sk[i] * vt);
        acc = fmaf(s[j], sq[i], acc);
      }
      acc = warp_sum(acc);
      if (lane == 0) so[tt * kCols + warp] = acc;
    }
    __syncthreads();
    store_values(ob, so, t0, n, V, v0);
    // The next tile's loads touch only sq/sk/sd/sv, and its first write to `so` comes after a barrier.
  }

  if (ht != nullptr && col < V) {
#pragma unroll
    for (int j = 0; j < KPL; ++j) {
      const int kk = lane + 32 * j;
      if (kk < K) ht[(bh * K + kk) * V + col] = s[j];
    }
  }
}

// q, k {B, H, T, K}; v, o {B, H, T, V}; beta, g {B, H, T} (g may be null); h0, ht {B, H, K, V} or null.
// Per token, with α = exp(g_t) and the state before the token S:
//   u = β (v − α Sᵀk),   o = α Sᵀq + u (k·q),   S ← α S + k uᵀ
// which is S_t = α(I − βkkᵀ)S + βkvᵀ, o_t = S_tᵀq with the three dot products taken in one pass over S.
template <int KPL>
__global__ void __launch_bounds__(32 * kCols)
    delta_rule_fwd_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                          const float* __restrict__ beta, const float* __restrict__ g, float* __restrict__ o,
                          const float* __restrict__ h0, float* __restrict__ ht, int T, int K, int V, int vtiles) {
  constexpr int KP = 32 * KPL;
  constexpr int TT = tile_tokens(KP);
  __shared__ float sq[TT * KP], sk[TT * KP];          // {TT, KP}
  __shared__ float sb[TT], sa[TT];                    // β, α = exp(g) {TT}
  __shared__ float sv[TT * kCols], so[TT * kCols];    // {TT, COLS}

  const int64_t bh = blockIdx.x / vtiles;
  const int v0 = (blockIdx.x % vtiles) * kCols;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int col = v0 + warp;
  const float* qb = q + bh * T * K;
  const float* kb = k + bh * T * K;
  const float* bb = beta + bh * T;
  const float* gb = g != nullptr ? g + bh * T : nullptr;
  const float* vb = v + bh * T * V;
  float* ob = o + bh * T * V;

  float s[KPL];
#pragma unroll
  for (int j = 0; j < KPL; ++j) {
    const int kk = lane + 32 * j;
    s[j] = (h0 != nullptr && col < V && kk < K) ? h0[(bh * K + kk) * V + col] : 0.f;
  }

  for (int t0 = 0; t0 < T; t0 += TT) {
    const int n = min(TT, T - t0);
    load_tile<KP, false>(sq, qb, t0, n, K);
    load_tile<KP, false>(sk, kb, t0, n, K);
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      sb[i] = bb[t0 + i];
      sa[i] = gb != nullptr ? expf(gb[t0 + i]) : 1.f;
    }
    load_values(sv, vb, t0, n, V, v0);
    __syncthreads();
    for (int tt = 0; tt < n; ++tt) {
      float sk_dot = 0.f, sq_dot = 0.f, kq = 0.f;  // Sᵀk, Sᵀq (this column), k·q
#pragma unroll
      for (int j = 0; j < KPL; ++j) {
        const int i = tt * KP + lane + 32 * j;
        const float kv = sk[i], qv = sq[i];
        sk_dot = fmaf(s[j], kv, sk_dot);
        sq_dot = fmaf(s[j], qv, sq_dot);
        kq = fmaf(kv, qv, kq);
      }
      warp_sum3(sk_dot, sq_dot, kq);
      const float alpha = sa[tt];
      const float u = sb[tt] * (sv[tt * kCols + warp] - alpha * sk_dot);
#pragma unroll
      for (int j = 0; j < KPL; ++j) s[j] = fmaf(alpha, s[j], sk[tt * KP + lane + 32 * j] * u);
      if (lane == 0) so[tt * kCols + warp] = fmaf(alpha, sq_dot, u * kq);
    }
    __syncthreads();
    store_values(ob, so, t0, n, V, v0);
  }

  if (ht != nullptr && col < V) {
#pragma unroll
    for (int j = 0; j < KPL; ++j) {
      const int kk = lane + 32 * j;
      if (kk < K) ht[(bh * K + kk) * V + col] = s[j];
    }
  }
}

// Calls f(std::integral_constant<int, KPL>) for the smallest register tile that holds K.
template <typename F>
void dispatch_kpl(int K, F&& f) {
  if (K <= 32) {
    f(std::integral_constant<int, 1>{});
  } else if (K <= 64) {
    f(std::integral_constant<int, 2>{});
  } else if (K <= 128) {
    f(std::integral_constant<int, 4>{});
  } else {
    f(std::integral_constant<int, 8>{});
  }
}

}  // namespace

void gla_fwd_cuda(const float* q, const float* k, const float* v, const float* g, float* o, const float* h0,
                  float* ht, int B, int H, int T, int K, int V, cudaStream_t stream) {
  constexpr const char* kWho = "gla_fwd_cuda";
  cuda_detail::check_recurrent_shape(kWho, B, H, T, K, V, kCudaMaxK);
  cuda_detail::require_ptr(q, kWho, "q");
  cuda_detail::require_ptr(k, kWho, "k");
  cuda_detail::require_ptr(v, kWho, "v");
  cuda_detail::require_ptr(g, kWho, "g");
  cuda_detail::require_ptr(o, kWho, "o");
  const int vtiles = cuda_detail::ceil_div(V, kCols);
  const int blocks = B * H * vtiles;
  dispatch_kpl(K, [&](auto kpl) {
    RB_CUDA_LAUNCH(gla_fwd_kernel<decltype(kpl)::value>, blocks, 32 * kCols, stream)
    (q, k, v, g, o, h0, ht, T, K, V, vtiles);
  });
  cuda_detail::check_launch(kWho);
}

void delta_rule_fwd_cuda(const float* q, const float* k, const float* v, const float* beta, const float* g,
                         float* o, const float* h0, float* ht, int B, int H, int T, int K, int V,
                         cudaStream_t stream) {
  constexpr const char* kWho = "delta_rule_fwd_cuda";
  cuda_detail::check_recurrent_shape(kWho, B, H, T, K, V, kCudaMaxK);
  cuda_detail::require_ptr(q, kWho, "q");
  cuda_detail::require_ptr(k, kWho, "k");
  cuda_detail::require_ptr(v, kWho, "v");
  cuda_detail::require_ptr(beta, kWho, "beta");
  cuda_detail::require_ptr(o, kWho, "o");
  const int vtiles = cuda_detail::ceil_div(V, kCols);
  const int blocks = B * H * vtiles;
  dispatch_kpl(K, [&](auto kpl) {
    RB_CUDA_LAUNCH(delta_rule_fwd_kernel<decltype(kpl)::value>, blocks, 32 * kCols, stream)
    (q, k, v, beta, g, o, h0, ht, T, K, V, vtiles);
  });
  cuda_detail::check_launch(kWho);
}

}  // namespace rb
