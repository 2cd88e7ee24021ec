// Linear attention: reference, chunked and fused forms (the fused one is kernels/gla's diagonal-transition
// kernel with no decay), the dispatcher, and their registration.
#include "kernels/linear_attn/linear_attn.h"

#include "kernels/check.h"
#include "kernels/gla/decay_scan.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {

torch::Tensor linear_attn_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  auto S = torch::zeros({B, H, K, V}, q.options());  // S {B, H, K, V}
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    auto kt = k.select(2, t);  // {B, H, K}
    auto vt = v.select(2, t);  // {B, H, V}
    S = S + kt.unsqueeze(-1) * vt.unsqueeze(-2);
    outs.push_back(torch::matmul(q.select(2, t).unsqueeze(-2), S).squeeze(-2));  // {B, H, V}
  }
  return torch::stack(outs, 2);
}

torch::Tensor linear_attn_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  int64_t chunk) {
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  auto S = torch::zeros({B, H, K, V}, q.options());
  std::vector<torch::Tensor> outs;
  for (int64_t s = 0; s < T; s += chunk) {
    const int64_t C = std::min(chunk, T - s);
    auto qc = q.narrow(2, s, C), kc = k.narrow(2, s, C), vc = v.narrow(2, s, C);  // {B, H, C, ·}
    auto mask = torch::ones({C, C}, q.options().dtype(torch::kBool)).tril();
    auto A = torch::matmul(qc, kc.transpose(-1, -2)).masked_fill(mask.logical_not(), 0.0);  // {B, H, C, C}
    outs.push_back(torch::matmul(qc, S) + torch::matmul(A, vc));
    S = S + torch::matmul(kc.transpose(-1, -2), vc);
  }
  return torch::cat(outs, 2);
}

torch::Tensor linear_attn_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
  detail::check_qkv("linear_attn_fused", q, k, v);
  return detail::decay_scan_fused(q, k, v, torch::Tensor(), cpu::Decay::kNone);
}

torch::Tensor linear_attn(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const std::string& impl) {
  return dispatch_impl("linear_attn", impl, {q, k, v}, [&] { return linear_attn_ref(q, k, v); },
                       [&] { return linear_attn_chunked(q, k, v); }, [&] { return linear_attn_fused(q, k, v); });
}

namespace {

std::vector<torch::Tensor> make_inputs(const KernelShape& s, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  // k scaled by 1/√(K·T): outputs stay O(1) over long sequences, even without decay.
  auto qkv = random_qkv(s, gen, 1.0 / std::sqrt(static_cast<double>(s.K * s.T)));
  auto &q = qkv[0], &k = qkv[1], &v = qkv[2];
  return {q.requires_grad_(), k.requires_grad_(), v.requires_grad_()};
}

double flops(const KernelShape& s) {
  // Per token per head: state update 2KV, readout 2KV.
  return 4.0 * s.B * s.H * s.T * s.K * s.V;
}

}  // namespace

RB_REGISTER(KernelRegistry, la_ref,
            KernelEntry{"linear_attn_ref", "linear_attn", "ref", "token-by-token LibTorch ops", make_inputs,
                        [](const std::vector<torch::Tensor>& x) { return linear_attn_ref(x[0], x[1], x[2]); },
                        flops});
RB_REGISTER(KernelRegistry, la_chunked,
            KernelEntry{"linear_attn_chunked", "linear_attn", "chunked", "chunk 64: masked intra-chunk GEMM + state",
                        make_inputs,
                        [](const std::vector<torch::Tensor>& x) { return linear_attn_chunked(x[0], x[1], x[2]); },
                        flops});
RB_REGISTER(KernelRegistry, la_fused,
            KernelEntry{"linear_attn_fused", "linear_attn", "fused",
                        "hand-written CPU forward/backward (gla kernel, no decay), threads over B×H", make_inputs,
                        [](const std::vector<torch::Tensor>& x) { return linear_attn_fused(x[0], x[1], x[2]); },
                        flops});

}  // namespace rb
