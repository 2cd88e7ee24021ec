// Scalar-decay linear attention (Mamba-2 SSD): reference, chunked and fused forms and their registration.
// The fused form is the diagonal-transition kernel of kernels/gla with one decay per head and token.
//
// Dimension letters: B batch, H heads, T time, K key dim, V value dim, N chunks, C chunk length.
#include "kernels/ssd/ssd.h"

#include <limits>

#include "kernels/check.h"
#include "kernels/gla/decay_scan.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {
namespace {

void check_ssd(const std::string& kernel, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
               const torch::Tensor& g) {
  const auto d = detail::check_qkv(kernel, q, k, v);
  detail::check_tensor(kernel + ": g", g, {d[0], d[1], d[2]});
}

}  // namespace

torch::Tensor ssd_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& g) {
  check_ssd("ssd_ref", q, k, v, g);
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  auto S = torch::zeros({B, H, K, V}, q.options());  // S {B, H, K, V}
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    auto kt = k.select(2, t), vt = v.select(2, t);  // {B, H, K}, {B, H, V}
    S = S * torch::exp(g.select(2, t)).view({B, H, 1, 1}) + kt.unsqueeze(-1) * vt.unsqueeze(-2);
    outs.push_back(torch::matmul(q.select(2, t).unsqueeze(-2), S).squeeze(-2));  // {B, H, V}
  }
  return torch::stack(outs, 2);
}

torch::Tensor ssd_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& g, int64_t chunk) {
  check_ssd("ssd_chunked", q, k, v, g);
  RB_CHECK_INPUT(chunk >= 1, "ssd_chunked: chunk: got " + std::to_string(chunk) + ", expected ≥ 1");
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  const int64_t C = chunk, N = (T + C - 1) / C, P = N * C - T;
  auto pad = [&](const torch::Tensor& x) { return P ? torch::constant_pad_nd(x, {0, 0, 0, P}) : x; };
  auto qc = pad(q).view({B, H, N, C, K}), kc = pad(k).view({B, H, N, C, K}), vc = pad(v).view({B, H, N, C, V});
  auto G = (P ? torch::constant_pad_nd(g, {0, P}) : g).view({B, H, N, C}).cumsum(3);  // chunk-local cumsum
  // Decay between tokens j ≤ i of a chunk, exp(G_i − G_j) ≤ 1 (kernels.md §2(d) step 1).
  auto upper = torch::ones({C, C}, q.options().dtype(torch::kBool)).triu(1);
  auto L = torch::exp((G.unsqueeze(4) - G.unsqueeze(3)).masked_fill(upper, -std::numeric_limits<float>::infinity()));
  auto o_intra = torch::matmul(torch::matmul(qc, kc.transpose(-1, -2)) * L, vc);  // {B, H, N, C, V}
  auto S = torch::zeros({B, H, K, V}, q.options());
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    auto Gn = G.select(2, n), GL = Gn.select(2, C - 1);  // {B, H, C}, {B, H}
    outs.push_back(o_intra.select(2, n) + torch::exp(Gn).unsqueeze(-1) * torch::matmul(qc.select(2, n), S));
    auto kd = kc.select(2, n) * torch::exp(GL.unsqueeze(-1) - Gn).unsqueeze(-1);  // decayed to the chunk's end
    S = torch::exp(GL).view({B, H, 1, 1}) * S + torch::matmul(kd.transpose(-1, -2), vc.select(2, n));
  }
  return torch::stack(outs, 2).view({B, H, N * C, V}).narrow(2, 0, T);
}

torch::Tensor ssd_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& g) {
  check_ssd("ssd_fused", q, k, v, g);
  return detail::decay_scan_fused(q, k, v, g, cpu::Decay::kScalar);
}

torch::Tensor ssd(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g,
                  const std::string& impl) {
  return dispatch_impl("ssd", impl, {q, k, v, g}, [&] { return ssd_ref(q, k, v, g); },
                       [&] { return ssd_chunked(q, k, v, g); }, [&] { return ssd_fused(q, k, v, g); });
}

namespace {

std::vector<torch::Tensor> make_inputs(const KernelShape& s, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  // k scaled by 1/√(K·T): outputs stay O(1) over long sequences, even without decay.
  auto qkv = random_qkv(s, gen, 1.0 / std::sqrt(static_cast<double>(s.K * s.T)));
  auto &q = qkv[0], &k = qkv[1], &v = qkv[2];
  auto g = torch::log_sigmoid(at::randn({s.B, s.H, s.T}, gen, opts)) * s.gate_scale;
  return {q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), g.requires_grad_()};
}

double flops(const KernelShape& s) { return 5.0 * s.B * s.H * s.T * s.K * s.V; }

double bytes(const KernelShape& s) { return 4.0 * s.B * s.H * s.T * (2.0 * s.K + 2.0 * s.V + 1.0); }

KernelEntry entry(const std::string& impl, const std::string& description,
                  std::function<torch::Tensor(const std::vector<torch::Tensor>&)> fn) {
  return KernelEntry{"ssd_" + impl, "ssd", impl, description, make_inputs, std::move(fn), flops, bytes, /*decay=*/true};
}

}  // namespace

RB_REGISTER(KernelRegistry, ssd_ref_entry,
            entry("ref", "token-by-token LibTorch ops",
                  [](const std::vector<torch::Tensor>& x) { return ssd_ref(x[0], x[1], x[2], x[3]); }));
RB_REGISTER(KernelRegistry, ssd_chunked_entry,
            entry("chunked", "chunk 64: (QKᵀ ⊙ decay mask) V + carried state (LibTorch ops)",
                  [](const std::vector<torch::Tensor>& x) { return ssd_chunked(x[0], x[1], x[2], x[3]); }));
RB_REGISTER(KernelRegistry, ssd_fused_entry,
            entry("fused", "the gla CPU kernel with one decay per head: forward/backward, threads over B×H",
                  [](const std::vector<torch::Tensor>& x) { return ssd_fused(x[0], x[1], x[2], x[3]); }));

}  // namespace rb
