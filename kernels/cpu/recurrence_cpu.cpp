// The fused CPU kernels' inner loops (see recurrence_cpu.h). Every inner loop runs over the value dimension
// V, which is contiguous in the state rows, so it vectorises; reductions over V use `omp simd reduction`
// (compiled with -fopenmp-simd: vector pragmas only, no OpenMP runtime). Results do not depend on the
// number of threads: each (batch, head) or channel is computed by one thread in a fixed order.
#include "kernels/cpu/recurrence_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

namespace rb::cpu {
namespace {

// Decay factors a {K} of token t from the given factors f = exp(g): one per key, one broadcast, or ones.
inline void decay_factors(Decay decay, const float* f, int64_t t, int64_t K, float* a) {
  switch (decay) {
    case Decay::kNone:
      std::fill(a, a + K, 1.0f);
      break;
    case Decay::kScalar:
      std::fill(a, a + K, f[t]);
      break;
    case Decay::kPerKey:
      std::copy(f + t * K, f + (t + 1) * K, a);
      break;
  }
}

// One token of the diagonal-transition forward, in place: S ← diag(a) S + k vᵀ; o = Sᵀ q (o may be null).
inline void decay_step(int64_t K, int64_t V, const float* a, const float* qt, const float* kt, const float* vt,
                       float* S, float* ot) {
  if (ot) std::fill(ot, ot + V, 0.0f);
  for (int64_t i = 0; i < K; ++i) {
    const float ai = a[i], ki = kt[i];
    float* Si = S + i * V;
    if (ot) {
      const float qi = qt[i];
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) {
        const float s = ai * Si[j] + ki * vt[j];
        Si[j] = s;
        ot[j] += qi * s;
      }
    } else {
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) Si[j] = ai * Si[j] + ki * vt[j];
    }
  }
}

// Register-blocked row sweeps for state widths that are a multiple of 16 lanes, up to 128 (the sizes every
// cell uses): the accumulator (an output row) and the broadcast row stay in registers for the whole sweep,
// where the plain loops above load and store the accumulator once per state row. GCC/Clang vector types of
// 16 floats, split by the compiler into what the machine has (one AVX-512 register, two AVX ones).
using Vec = float __attribute__((vector_size(64)));
constexpr int64_t kLanes = 16;
inline Vec load(const float* p) {
  Vec x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
inline void store(float* p, const Vec& x) { std::memcpy(p, &x, sizeof x); }
inline Vec splat(float a) { return Vec{} + a; }
// The sum of the 16 lanes as a tree of halves (four shuffles and adds; summing lane by lane is a serial chain
// of 16 dependent adds, which was half the backward's time).
inline float lane_sum(Vec x) {
#if defined(__clang__)
  x += __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  x += __builtin_shufflevector(x, x, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
  x += __builtin_shufflevector(x, x, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  x += __builtin_shufflevector(x, x, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
#else
  using Mask = int __attribute__((vector_size(64)));
  x += __builtin_shuffle(x, Mask{8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7});
  x += __builtin_shuffle(x, Mask{4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11});
  x += __builtin_shuffle(x, Mask{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13});
  x += __builtin_shuffle(x, Mask{1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14});
#endif
  return x[0];
}

// Rows r of S {R, M·16}: x = f_r ⊙ S_r + c_r u; S_r ← x; acc += w_r x; acc {M·16} overwritten. The decay f_r
// is row_decay[r] broadcast (kRow), the vector lane_decay for every row (kLane) or the scalar `scale` (kConst).
// With w null, no accumulator.
enum class Fade { kRow, kLane, kConst };
template <int M, Fade kFade>
void sweep_update(int64_t R, float* S, const float* row_decay, const float* lane_decay, float scale, const float* c,
                  const float* u, const float* w, float* acc, const float* from = nullptr) {
  const float* src = from ? from : S;  // out of place: S ← f ⊙ from + c uᵀ (the delta rule's recomputation)
  Vec uu[M], aa[M], f[M];
  for (int m = 0; m < M; ++m) {
    uu[m] = load(u + m * kLanes);
    aa[m] = Vec{};
    f[m] = kFade == Fade::kLane ? load(lane_decay + m * kLanes) : splat(scale);
  }
  for (int64_t r = 0; r < R; ++r) {
    float* Sr = S + r * M * kLanes;
    const Vec cr = splat(c[r]);
    const Vec fr = kFade == Fade::kRow ? splat(row_decay[r]) : Vec{};
    const Vec wr = w ? splat(w[r]) : Vec{};
    for (int m = 0; m < M; ++m) {
      const Vec x = (kFade == Fade::kRow ? fr : f[m]) * load(src + (r * M + m) * kLanes) + cr * uu[m];
      store(Sr + m * kLanes, x);
      if (w) aa[m] += wr * x;
    }
  }
  if (acc)
    for (int m = 0; m < M; ++m) store(acc + m * kLanes, aa[m]);
}

// The backward sweep of the diagonal family, rows i of dS {K, M·16}: d = dS_i + q_i dout; dk_i = d·v;
// dv += k_i d; dS_i ← a_i d. dv {M·16} overwritten.
template <int M>
void sweep_backward(int64_t K, float* dS, const float* a, const float* q, const float* kk, const float* dout,
                    const float* v, float* dk, float* dv) {
  Vec o[M], vv[M], acc[M];
  for (int m = 0; m < M; ++m) {
    o[m] = load(dout + m * kLanes);
    vv[m] = load(v + m * kLanes);
    acc[m] = Vec{};
  }
  for (int64_t i = 0; i < K; ++i) {
    float* Si = dS + i * M * kLanes;
    const Vec qi = splat(q[i]), ki = splat(kk[i]), ai = splat(a[i]);
    Vec dot = Vec{};
    for (int m = 0; m < M; ++m) {
      const Vec d = load(Si + m * kLanes) + qi * o[m];
      dot += d * vv[m];
      acc[m] += ki * d;
      store(Si + m * kLanes, ai * d);
    }
    dk[i] = lane_sum(dot);
  }
  for (int m = 0; m < M; ++m) store(dv + m * kLanes, acc[m]);
}

// acc = Σ_r c_r S_r over rows r of S {R, M·16} (the delta rule's prediction Sᵀk). acc overwritten.
template <int M>
void sweep_readout(int64_t R, const float* S, const float* c, float* acc) {
  Vec aa[M];
  for (int m = 0; m < M; ++m) aa[m] = Vec{};
  for (int64_t r = 0; r < R; ++r) {
    const Vec cr = splat(c[r]);
    for (int m = 0; m < M; ++m) aa[m] += cr * load(S + (r * M + m) * kLanes);
  }
  for (int m = 0; m < M; ++m) store(acc + m * kLanes, aa[m]);
}

// The delta rule's backward pass A over rows i of dS {K, M·16}: d = dS_i + q_i dout; dS_i ← d;
// dq_i = S_t,i · dout; du = Σ_i k_i d (overwritten).
template <int M>
void sweep_delta_a(int64_t K, float* dS, const float* St, const float* q, const float* kk, const float* dout,
                   float* dq, float* du) {
  Vec o[M], acc[M];
  for (int m = 0; m < M; ++m) o[m] = load(dout + m * kLanes), acc[m] = Vec{};
  for (int64_t i = 0; i < K; ++i) {
    float* Si = dS + i * M * kLanes;
    const float* Ti = St + i * M * kLanes;
    const Vec qi = splat(q[i]), ki = splat(kk[i]);
    Vec dot = Vec{};
    for (int m = 0; m < M; ++m) {
      const Vec d = load(Si + m * kLanes) + qi * o[m];
      store(Si + m * kLanes, d);
      dot += load(Ti + m * kLanes) * o[m];
      acc[m] += ki * d;
    }
    dq[i] = lane_sum(dot);
  }
  for (int m = 0; m < M; ++m) store(du + m * kLanes, acc[m]);
}

// Pass B: dk_i = dS_i·u − α P_i·dup; Σ_i dS_i·P_i into *dalpha; dS_i ← α (dS_i − k_i dup).
template <int M>
void sweep_delta_b(int64_t K, float* dS, const float* P, float alpha, const float* kk, const float* u,
                   const float* dup, float* dk, float* dalpha) {
  Vec uu[M], pp[M];
  for (int m = 0; m < M; ++m) uu[m] = load(u + m * kLanes), pp[m] = load(dup + m * kLanes);
  const Vec al = splat(alpha);
  Vec da = Vec{};
  for (int64_t i = 0; i < K; ++i) {
    float* Si = dS + i * M * kLanes;
    const float* Pi = P + i * M * kLanes;
    const Vec ki = splat(kk[i]);
    Vec g = Vec{};
    for (int m = 0; m < M; ++m) {
      const Vec d = load(Si + m * kLanes), p = load(Pi + m * kLanes);
      g += d * uu[m] - al * (p * pp[m]);
      da += d * p;
      store(Si + m * kLanes, al * (d - ki * pp[m]));
    }
    dk[i] = lane_sum(g);
  }
  *dalpha += lane_sum(da);
}

// Pass B of token t fused with pass A of token t-1, which reads the same state S_{t-1} = P: one sweep over dS
// and P instead of two over dS and one more over a state. Per row i: dk_i = dS_i·u − α P_i·dup and
// Σ_i dS_i·P_i into *dalpha (pass B of t); then d = α (dS_i − k_i dup) + q'_i dout' with the previous token's
// q', dout'; dS_i ← d; dq'_i = P_i·dout'; du' = Σ_i k'_i d (pass A of t-1, du' overwritten).
template <int M>
void sweep_delta_ba(int64_t K, float* dS, const float* P, float alpha, const float* kk, const float* u,
                    const float* dup, float* dk, float* dalpha, const float* q1, const float* k1, const float* dout1,
                    float* dq1, float* du1) {
  Vec acc[M];
  for (int m = 0; m < M; ++m) acc[m] = Vec{};
  const Vec al = splat(alpha);
  Vec da = Vec{};
  for (int64_t i = 0; i < K; ++i) {
    float* Si = dS + i * M * kLanes;
    const float* Pi = P + i * M * kLanes;
    const Vec ki = splat(kk[i]), qi1 = splat(q1[i]), ki1 = splat(k1[i]);
    Vec g = Vec{}, dot = Vec{};
    for (int m = 0; m < M; ++m) {
      const Vec d = load(Si + m * kLanes), p = load(Pi + m * kLanes), pp = load(dup + m * kLanes);
      const Vec o1 = load(dout1 + m * kLanes);
      g += d * load(u + m * kLanes) - al * (p * pp);
      da += d * p;
      // Same rounding as the two passes apart (pass B stored α (dS_i − k_i dup), pass A added q'_i dout' to it in
      // one fused multiply-add): written with q'_i dout' first, GCC fuses that product into the sum and rounds
      // the other. Same bits as before the fusion (checked with GCC 12 on training runs of rank1 cells).
      const Vec qo = qi1 * o1;
      const Vec d1 = al * (d - ki * pp) + qo;
      store(Si + m * kLanes, d1);
      dot += p * o1;
      acc[m] += ki1 * d1;
    }
    dk[i] = lane_sum(g);
    dq1[i] = lane_sum(dot);
  }
  *dalpha += lane_sum(da);
  for (int m = 0; m < M; ++m) store(du1 + m * kLanes, acc[m]);
}

// The blocked width M·16 for n, or 0 when the plain loops must do.
inline int blocks_of(int64_t n) {
  return n % kLanes == 0 && (n == 16 || n == 32 || n == 64 || n == 128) ? static_cast<int>(n / kLanes) : 0;
}

template <typename F>
bool dispatch_blocks(int64_t n, F&& f) {
  switch (blocks_of(n)) {
    case 1: f(std::integral_constant<int, 1>{}); return true;
    case 2: f(std::integral_constant<int, 2>{}); return true;
    case 4: f(std::integral_constant<int, 4>{}); return true;
    case 8: f(std::integral_constant<int, 8>{}); return true;
    default: return false;
  }
}

// One token of the delta-rule forward, in place. w {V} receives S_{t-1}ᵀ k (kept for the backward pass);
// u {V} is scratch. o may be null.
// With `from` (blocked widths only), the step reads S_{t-1} there and writes S_t into S (no copy first).
inline void delta_step(int64_t K, int64_t V, float alpha, float b, const float* qt, const float* kt, const float* vt,
                       float* S, float* w, float* u, float* ot, const float* from = nullptr) {
  const bool blocked = dispatch_blocks(V, [&](auto m) {
    sweep_readout<decltype(m)::value>(K, from ? from : S, kt, w);
#pragma omp simd
    for (int64_t j = 0; j < V; ++j) u[j] = b * (vt[j] - alpha * w[j]);
    sweep_update<decltype(m)::value, Fade::kConst>(K, S, nullptr, nullptr, alpha, kt, u, ot ? qt : nullptr, ot, from);
  });
  if (blocked) return;
  if (from) std::copy(from, from + K * V, S);
  std::fill(w, w + V, 0.0f);
  for (int64_t i = 0; i < K; ++i) {
    const float ki = kt[i];
    const float* Si = S + i * V;
#pragma omp simd
    for (int64_t j = 0; j < V; ++j) w[j] += ki * Si[j];
  }
  // u = β (v − α Sᵀk): the prediction error of the decayed state.
#pragma omp simd
  for (int64_t j = 0; j < V; ++j) u[j] = b * (vt[j] - alpha * w[j]);
  if (ot) std::fill(ot, ot + V, 0.0f);
  for (int64_t i = 0; i < K; ++i) {
    const float ki = kt[i];
    float* Si = S + i * V;
    if (ot) {
      const float qi = qt[i];
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) {
        const float s = alpha * Si[j] + ki * u[j];
        Si[j] = s;
        ot[j] += qi * s;
      }
    } else {
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) Si[j] = alpha * Si[j] + ki * u[j];
    }
  }
}

}  // namespace

void decay_scan_forward(Decay decay, int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                        const float* g, float* o, float* ck) {
  const int64_t KV = K * V;
  std::vector<float> S(static_cast<size_t>(KV), 0.0f), a(static_cast<size_t>(K));
  for (int64_t t = 0; t < T; ++t) {
    if (ck && t % kCheckpoint == 0) std::copy(S.begin(), S.end(), ck + (t / kCheckpoint) * KV);
    decay_factors(decay, g, t, K, a.data());
    const bool blocked = dispatch_blocks(V, [&](auto m) {
      sweep_update<decltype(m)::value, Fade::kRow>(K, S.data(), a.data(), nullptr, 1.0f, k + t * K, v + t * V,
                                                   q + t * K, o + t * V);
    });
    if (!blocked) decay_step(K, V, a.data(), q + t * K, k + t * K, v + t * V, S.data(), o + t * V);
  }
}

int64_t decay_scan_workspace(int64_t K, int64_t V) { return 2 * K * V + K; }

// Three passes, none of which needs the states of the other direction, so nothing is recomputed from
// checkpoints and stored:
//   1. forward in time, the state held transposed (Sᵀ {V, K}, keys contiguous): S_t again, and
//      dq_t = S_t dout_t accumulated over the state's rows as whole vectors;
//   2. backward in time, dS {K, V}: dS_t = diag(a_{t+1}) dS_{t+1} + q_t doutᵀ; dk_t = dS_t v_t; dv_t = dS_tᵀ k_t;
//   3. the decays' gradient without any state: with G the cumulative log decay, S_t = Σ_{s≤t} e^{G_t − G_s}
//      k_s v_sᵀ, and ∂L/∂G_τ = q_τ ⊙ dq_τ − k_τ ⊙ dk_τ (the output side of every term through τ minus its
//      input side), so dg_t = Σ_{τ≥t} (q_τ ⊙ dq_τ − k_τ ⊙ dk_τ), summed per key (kPerKey) or over keys
//      (kScalar), accumulated in double.
// The old single backward pass recomputed each checkpoint segment's states (a 1 MiB buffer at K = V = 64) and
// made three dot products per state row per token; this makes one.
void decay_scan_backward(Decay decay, int64_t T, int64_t K, int64_t V, const float* q, const float* k,
                         const float* v, const float* g, const float* dout, float* dq, float* dk, float* dv,
                         float* dg, float* work) {
  const int64_t KV = K * V;
  float* St = work;      // {V, K}: the state, transposed (pass 1)
  float* dS = St + KV;   // {K, V}: gradient of the loss w.r.t. the state after the current token (pass 2)
  float* a = dS + KV;    // {K}
  std::fill(St, St + KV, 0.0f);
  for (int64_t t = 0; t < T; ++t) {
    decay_factors(decay, g, t, K, a);
    const float *kt = k + t * K, *vt = v + t * V, *dot = dout + t * V;
    float* dqt = dq + t * K;
    if (dispatch_blocks(K, [&](auto m) {
          sweep_update<decltype(m)::value, Fade::kLane>(V, St, nullptr, a, 1.0f, vt, kt, dot, dqt);
        }))
      continue;
    std::fill(dqt, dqt + K, 0.0f);
    for (int64_t j = 0; j < V; ++j) {
      float* Sj = St + j * K;
      const float vj = vt[j], dj = dot[j];
#pragma omp simd
      for (int64_t i = 0; i < K; ++i) {
        const float x = a[i] * Sj[i] + vj * kt[i];
        Sj[i] = x;
        dqt[i] += dj * x;
      }
    }
  }
  std::fill(dS, dS + KV, 0.0f);
  for (int64_t t = T - 1; t >= 0; --t) {
    const float *qt = q + t * K, *kt = k + t * K, *vt = v + t * V, *dot = dout + t * V;
    float* dvt = dv + t * V;
    decay_factors(decay, g, t, K, a);
    if (dispatch_blocks(V, [&](auto m) {
          sweep_backward<decltype(m)::value>(K, dS, a, qt, kt, dot, vt, dk + t * K, dvt);
        }))
      continue;
    std::fill(dvt, dvt + V, 0.0f);
    for (int64_t i = 0; i < K; ++i) {
      float* dSi = dS + i * V;
      const float qi = qt[i], ki = kt[i], ai = a[i];
      float dk_i = 0.0f;
#pragma omp simd reduction(+ : dk_i)
      for (int64_t j = 0; j < V; ++j) {
        const float d = dSi[j] + qi * dot[j];
        dk_i += d * vt[j];
        dvt[j] += ki * d;
        dSi[j] = ai * d;
      }
      dk[t * K + i] = dk_i;
    }
  }
  if (decay == Decay::kNone) return;
  std::vector<double> run(static_cast<size_t>(decay == Decay::kPerKey ? K : 1), 0.0);
  for (int64_t t = T - 1; t >= 0; --t) {
    const float *qt = q + t * K, *kt = k + t * K, *dqt = dq + t * K, *dkt = dk + t * K;
    if (decay == Decay::kPerKey) {
      for (int64_t i = 0; i < K; ++i) {
        run[static_cast<size_t>(i)] += static_cast<double>(qt[i]) * dqt[i] - static_cast<double>(kt[i]) * dkt[i];
        dg[t * K + i] = static_cast<float>(run[static_cast<size_t>(i)]);
      }
    } else {
      double sum = 0.0;
      for (int64_t i = 0; i < K; ++i) sum += static_cast<double>(qt[i]) * dqt[i] - static_cast<double>(kt[i]) * dkt[i];
      run[0] += sum;
      dg[t] = static_cast<float>(run[0]);
    }
  }
}

void delta_scan_forward(int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                        const float* beta, const float* g, float* o, float* ck) {
  const int64_t KV = K * V;
  std::vector<float> S(static_cast<size_t>(KV), 0.0f), w(static_cast<size_t>(V)), u(static_cast<size_t>(V));
  for (int64_t t = 0; t < T; ++t) {
    if (t % kCheckpoint == 0) std::copy(S.begin(), S.end(), ck + (t / kCheckpoint) * KV);
    const float alpha = g ? std::exp(g[t]) : 1.0f;
    delta_step(K, V, alpha, beta[t], q + t * K, k + t * K, v + t * V, S.data(), w.data(), u.data(), o + t * V);
  }
}

int64_t delta_scan_workspace(int64_t K, int64_t V) { return (kCheckpoint + 2) * K * V + kCheckpoint * V + 3 * V; }

void delta_scan_backward(int64_t T, int64_t K, int64_t V, const float* q, const float* k, const float* v,
                         const float* beta, const float* g, const float* ck, const float* dout, float* dq, float* dk,
                         float* dv, float* dbeta, float* dg, float* work) {
  const int64_t KV = K * V;
  float* dS = work;                              // {K, V}
  float* buf = dS + KV;                          // {kCheckpoint + 1, K, V} states of one segment
  float* wbuf = buf + (kCheckpoint + 1) * KV;    // {kCheckpoint, V}: S_{t-1}ᵀ k_t per token
  float* du = wbuf + kCheckpoint * V;            // {V}
  float* dup = du + V;                           // {V}: β du, the gradient reaching α S_{t-1}ᵀ k
  float* u = dup + V;                            // {V}
  std::fill(dS, dS + KV, 0.0f);
  for (int64_t n = num_checkpoints(T) - 1; n >= 0; --n) {
    const int64_t t0 = n * kCheckpoint, t1 = std::min(T, t0 + kCheckpoint);
    std::copy(ck + n * KV, ck + (n + 1) * KV, buf);
    for (int64_t t = t0; t < t1; ++t) {
      float* next = buf + (t - t0 + 1) * KV;
      const float alpha = g ? std::exp(g[t]) : 1.0f;
      delta_step(K, V, alpha, beta[t], nullptr, k + t * K, v + t * V, next, wbuf + (t - t0) * V, u, nullptr, next - KV);
    }
    for (int64_t t = t1 - 1; t >= t0; --t) {
      const float* St = buf + (t - t0 + 1) * KV;  // S_t
      const float* P = St - KV;                   // S_{t-1}
      const float* wt = wbuf + (t - t0) * V;      // S_{t-1}ᵀ k_t
      const float *qt = q + t * K, *kt = k + t * K, *vt = v + t * V, *dot = dout + t * V;
      const float alpha = g ? std::exp(g[t]) : 1.0f, b = beta[t];
      // Pass A: dS_t += q_t doutᵀ; dq = S_t dout; du = dS_tᵀ k (S_t = α S_{t-1} + k uᵀ).
      // Blocked widths: pass A of every token but the last ran fused into pass B of the token after it, so
      // du and dq_t are already there.
      const int blocks = blocks_of(V);
      if (blocks) {
        if (t == T - 1)
          dispatch_blocks(V, [&](auto m) { sweep_delta_a<decltype(m)::value>(K, dS, St, qt, kt, dot, dq + t * K, du); });
      } else {
        std::fill(du, du + V, 0.0f);
      }
      for (int64_t i = 0; i < (blocks ? 0 : K); ++i) {
        float* dSi = dS + i * V;
        const float* Sti = St + i * V;
        const float qi = qt[i], ki = kt[i];
        float dq_i = 0.0f;
#pragma omp simd reduction(+ : dq_i)
        for (int64_t j = 0; j < V; ++j) {
          const float d = dSi[j] + qi * dot[j];
          dSi[j] = d;
          dq_i += Sti[j] * dot[j];
          du[j] += ki * d;
        }
        dq[t * K + i] = dq_i;
      }
      // u = β r with r = v − α w: dβ = du·r, dv = β du, and β du flows into α w = α S_{t-1}ᵀ k.
      float db = 0.0f, dalpha = 0.0f;
      float* dvt = dv + t * V;
#pragma omp simd reduction(+ : db, dalpha)
      for (int64_t j = 0; j < V; ++j) {
        const float r = vt[j] - alpha * wt[j];
        u[j] = b * r;
        db += du[j] * r;
        dup[j] = b * du[j];
        dvt[j] = dup[j];
        dalpha -= dup[j] * wt[j];
      }
      // Pass B: dk = dS_t u − α S_{t-1} dup; dα += <dS_t, S_{t-1}>; dS_{t-1} = α (dS_t − k dupᵀ).
      if (blocks && t > 0)
        dispatch_blocks(V, [&](auto m) {
          sweep_delta_ba<decltype(m)::value>(K, dS, P, alpha, kt, u, dup, dk + t * K, &dalpha, qt - K, kt - K,
                                             dot - V, dq + (t - 1) * K, du);
        });
      else if (blocks)
        dispatch_blocks(V, [&](auto m) {
          sweep_delta_b<decltype(m)::value>(K, dS, P, alpha, kt, u, dup, dk + t * K, &dalpha);
        });
      for (int64_t i = 0; i < (blocks ? 0 : K); ++i) {
        float* dSi = dS + i * V;
        const float* Pi = P + i * V;
        const float ki = kt[i];
        float a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma omp simd reduction(+ : a1, a2, a3)
        for (int64_t j = 0; j < V; ++j) {
          const float d = dSi[j];
          a1 += d * u[j];
          a2 += Pi[j] * dup[j];
          a3 += d * Pi[j];
          dSi[j] = alpha * (d - ki * dup[j]);
        }
        dk[t * K + i] = a1 - alpha * a2;
        dalpha += a3;
      }
      dbeta[t] = db;
      if (g) dg[t] = alpha * dalpha;
    }
  }
}

void short_conv_forward(int64_t B, int64_t T, int64_t C, int64_t W, int64_t c0, int64_t c1, const float* x,
                        const float* weight, const float* bias, float* y) {
  const int64_t n = c1 - c0;
  std::vector<float> wt(static_cast<size_t>(W * n));  // {W, n}: taps contiguous over channels
  for (int64_t w = 0; w < W; ++w)
    for (int64_t c = 0; c < n; ++c) wt[w * n + c] = weight[(c0 + c) * W + w];
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      float* yr = y + (b * T + t) * C + c0;
      for (int64_t c = 0; c < n; ++c) yr[c] = bias ? bias[c0 + c] : 0.0f;
      for (int64_t w = std::max<int64_t>(0, W - 1 - t); w < W; ++w) {
        const float* xr = x + (b * T + t - (W - 1) + w) * C + c0;
        const float* ww = wt.data() + w * n;
#pragma omp simd
        for (int64_t c = 0; c < n; ++c) yr[c] += ww[c] * xr[c];
      }
    }
}

void short_conv_backward(int64_t B, int64_t T, int64_t C, int64_t W, int64_t c0, int64_t c1, const float* x,
                         const float* weight, const float* dy, float* dx, float* dweight, float* dbias) {
  const int64_t n = c1 - c0;
  std::vector<float> wt(static_cast<size_t>(W * n)), dwt(static_cast<size_t>(W * n), 0.0f),
      db(static_cast<size_t>(n), 0.0f);
  for (int64_t w = 0; w < W; ++w)
    for (int64_t c = 0; c < n; ++c) wt[w * n + c] = weight[(c0 + c) * W + w];
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) std::fill(dx + (b * T + t) * C + c0, dx + (b * T + t) * C + c1, 0.0f);
    for (int64_t t = 0; t < T; ++t) {
      const float* dz = dy + (b * T + t) * C + c0;
      const int64_t w_first = std::max<int64_t>(0, W - 1 - t);
#pragma omp simd
      for (int64_t c = 0; c < n; ++c) db[c] += dz[c];
      for (int64_t w = w_first; w < W; ++w) {
        const int64_t row = (b * T + t - (W - 1) + w) * C + c0;
        const float* xr = x + row;
        float* dxr = dx + row;
        const float* ww = wt.data() + w * n;
        float* dww = dwt.data() + w * n;
#pragma omp simd
        for (int64_t c = 0; c < n; ++c) {
          dww[c] += dz[c] * xr[c];
          dxr[c] += ww[c] * dz[c];
        }
      }
    }
  }
  for (int64_t c = 0; c < n; ++c) {
    for (int64_t w = 0; w < W; ++w) dweight[(c0 + c) * W + w] = dwt[w * n + c];
    if (dbias) dbias[c0 + c] = db[c];
  }
}

}  // namespace rb::cpu
