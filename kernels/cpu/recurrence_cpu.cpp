// The fused CPU kernels' inner loops (see recurrence_cpu.h). Every inner loop runs over the value dimension
// V, which is contiguous in the state rows, so it vectorises; reductions over V use `omp simd reduction`
// (compiled with -fopenmp-simd: vector pragmas only, no OpenMP runtime). Results do not depend on the
// number of threads: each (batch, head) or channel is computed by one thread in a fixed order.
#include "kernels/cpu/recurrence_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace rb::cpu {
namespace {

// Decay factors a {K} of token t: exp(g) per key, one exp(g) broadcast, or ones.
inline void decay_factors(Decay decay, const float* g, int64_t t, int64_t K, float* a) {
  switch (decay) {
    case Decay::kNone:
      std::fill(a, a + K, 1.0f);
      break;
    case Decay::kScalar:
      std::fill(a, a + K, std::exp(g[t]));
      break;
    case Decay::kPerKey:
      for (int64_t i = 0; i < K; ++i) a[i] = std::exp(g[t * K + i]);
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

// One token of the delta-rule forward, in place. w {V} receives S_{t-1}ᵀ k (kept for the backward pass);
// u {V} is scratch. o may be null.
inline void delta_step(int64_t K, int64_t V, float alpha, float b, const float* qt, const float* kt, const float* vt,
                       float* S, float* w, float* u, float* ot) {
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
    if (t % kCheckpoint == 0) std::copy(S.begin(), S.end(), ck + (t / kCheckpoint) * KV);
    decay_factors(decay, g, t, K, a.data());
    decay_step(K, V, a.data(), q + t * K, k + t * K, v + t * V, S.data(), o + t * V);
  }
}

int64_t decay_scan_workspace(int64_t K, int64_t V) { return (kCheckpoint + 2) * K * V + K; }

void decay_scan_backward(Decay decay, int64_t T, int64_t K, int64_t V, const float* q, const float* k,
                         const float* v, const float* g, const float* ck, const float* dout, float* dq, float* dk,
                         float* dv, float* dg, float* work) {
  const int64_t KV = K * V;
  float* dS = work;                 // {K, V}: gradient of the loss w.r.t. the state after the current token
  float* buf = dS + KV;             // {kCheckpoint + 1, K, V}: recomputed states of one segment
  float* a = buf + (kCheckpoint + 1) * KV;  // {K}
  std::fill(dS, dS + KV, 0.0f);
  for (int64_t n = num_checkpoints(T) - 1; n >= 0; --n) {
    const int64_t t0 = n * kCheckpoint, t1 = std::min(T, t0 + kCheckpoint);
    std::copy(ck + n * KV, ck + (n + 1) * KV, buf);
    for (int64_t t = t0; t < t1; ++t) {
      float* next = buf + (t - t0 + 1) * KV;
      std::copy(next - KV, next, next);
      decay_factors(decay, g, t, K, a);
      decay_step(K, V, a, nullptr, k + t * K, v + t * V, next, nullptr);
    }
    for (int64_t t = t1 - 1; t >= t0; --t) {
      const float* St = buf + (t - t0 + 1) * KV;  // S_t
      const float* Sp = St - KV;                  // S_{t-1}
      const float *qt = q + t * K, *kt = k + t * K, *vt = v + t * V, *dot = dout + t * V;
      float* dvt = dv + t * V;
      std::fill(dvt, dvt + V, 0.0f);
      decay_factors(decay, g, t, K, a);
      float dg_sum = 0.0f;
      for (int64_t i = 0; i < K; ++i) {
        float* dSi = dS + i * V;
        const float *Sti = St + i * V, *Spi = Sp + i * V;
        const float qi = qt[i], ki = kt[i], ai = a[i];
        float dq_i = 0.0f, dk_i = 0.0f, dg_i = 0.0f;
        // dS_t = q_t doutᵀ + (carried from t+1); dq = S_t dout; dk = dS_t v; dv = dS_tᵀ k;
        // d(log a) = a ⊙ rowsum(dS_t ⊙ S_{t-1}); then carry diag(a) dS_t to t-1.
#pragma omp simd reduction(+ : dq_i, dk_i, dg_i)
        for (int64_t j = 0; j < V; ++j) {
          const float d = dSi[j] + qi * dot[j];
          dq_i += Sti[j] * dot[j];
          dk_i += d * vt[j];
          dg_i += d * Spi[j];
          dvt[j] += ki * d;
          dSi[j] = ai * d;
        }
        dq[t * K + i] = dq_i;
        dk[t * K + i] = dk_i;
        if (decay == Decay::kPerKey) dg[t * K + i] = ai * dg_i;
        dg_sum += dg_i;
      }
      if (decay == Decay::kScalar) dg[t] = a[0] * dg_sum;
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
      std::copy(next - KV, next, next);
      const float alpha = g ? std::exp(g[t]) : 1.0f;
      delta_step(K, V, alpha, beta[t], nullptr, k + t * K, v + t * V, next, wbuf + (t - t0) * V, u, nullptr);
    }
    for (int64_t t = t1 - 1; t >= t0; --t) {
      const float* St = buf + (t - t0 + 1) * KV;  // S_t
      const float* P = St - KV;                   // S_{t-1}
      const float* wt = wbuf + (t - t0) * V;      // S_{t-1}ᵀ k_t
      const float *qt = q + t * K, *kt = k + t * K, *vt = v + t * V, *dot = dout + t * V;
      const float alpha = g ? std::exp(g[t]) : 1.0f, b = beta[t];
      // Pass A: dS_t += q_t doutᵀ; dq = S_t dout; du = dS_tᵀ k (S_t = α S_{t-1} + k uᵀ).
      std::fill(du, du + V, 0.0f);
      for (int64_t i = 0; i < K; ++i) {
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
      for (int64_t i = 0; i < K; ++i) {
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
