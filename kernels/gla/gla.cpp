// Gated linear attention (per-key decay): reference, chunked and fused forms, the shared fused
// diagonal-transition autograd function (also used by linear_attn and ssd), and their registration.
//
// Dimension letters: B batch, H heads, T time, K key dim, V value dim, N chunks, C chunk length.
#include "kernels/gla/gla.h"

#include <limits>

#include "kernels/check.h"
#include "kernels/gla/decay_scan.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {

namespace detail {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Autograd wrapper of cpu::decay_scan_{forward,backward}: forward keeps only every kCheckpoint-th state
// (ck {B, H, ceil(T / kCheckpoint), K, V}); backward recomputes the rest one segment at a time.
class DecayScanFunction : public torch::autograd::Function<DecayScanFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q_in, const torch::Tensor& k_in,
                               const torch::Tensor& v_in, const torch::Tensor& g_in, int64_t decay_code) {
    const auto decay = static_cast<cpu::Decay>(decay_code);
    auto q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();
    // The decay factors exp(g), once, vectorised: the kernel takes them instead of the logs (recurrence_cpu.h).
    auto g = decay == cpu::Decay::kNone ? torch::Tensor() : g_in.exp().contiguous();
    const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
    const int64_t gstride = decay == cpu::Decay::kPerKey ? T * K : T;
    auto o = torch::empty({B, H, T, V}, q.options());
    const float *qp = q.data_ptr<float>(), *kp = k.data_ptr<float>(), *vp = v.data_ptr<float>();
    const float* gp = g.defined() ? g.data_ptr<float>() : nullptr;
    float* op = o.data_ptr<float>();
    at::parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
      for (int64_t bh = begin; bh < end; ++bh)
        cpu::decay_scan_forward(decay, T, K, V, qp + bh * T * K, kp + bh * T * K, vp + bh * T * V,
                                gp ? gp + bh * gstride : nullptr, op + bh * T * V, nullptr);
    });
    ctx->save_for_backward({q, k, v, g});
    ctx->saved_data["decay"] = decay_code;
    return o;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto decay = static_cast<cpu::Decay>(ctx->saved_data["decay"].toInt());
    auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &g = saved[3];
    if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    auto dout = grads[0].contiguous();
    const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
    const int64_t gstride = decay == cpu::Decay::kPerKey ? T * K : T;
    auto dq = torch::empty_like(q), dk = torch::empty_like(k), dv = torch::empty_like(v);
    auto dg = g.defined() ? torch::empty_like(g) : torch::Tensor();
    const float *qp = q.data_ptr<float>(), *kp = k.data_ptr<float>(), *vp = v.data_ptr<float>();
    const float* gp = g.defined() ? g.data_ptr<float>() : nullptr;
    const float* dop = dout.data_ptr<float>();
    float *dqp = dq.data_ptr<float>(), *dkp = dk.data_ptr<float>(), *dvp = dv.data_ptr<float>();
    float* dgp = dg.defined() ? dg.data_ptr<float>() : nullptr;
    at::parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> work(static_cast<size_t>(cpu::decay_scan_workspace(K, V)));
      for (int64_t bh = begin; bh < end; ++bh)
        cpu::decay_scan_backward(decay, T, K, V, qp + bh * T * K, kp + bh * T * K, vp + bh * T * V,
                                 gp ? gp + bh * gstride : nullptr, dop + bh * T * V,
                                 dqp + bh * T * K, dkp + bh * T * K, dvp + bh * T * V,
                                 dgp ? dgp + bh * gstride : nullptr, work.data());
    });
    return {dq, dk, dv, dg, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor decay_scan_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& g, cpu::Decay decay) {
  RB_CHECK_INPUT(q.is_cpu(), "fused kernels: got a tensor on " + q.device().str() + ", expected the CPU");
  // LibTorch 1.13's Function::apply rejects undefined inputs: an empty placeholder stands for "no g".
  return DecayScanFunction::apply(q, k, v, g.defined() ? g : torch::empty({0}, q.options()),
                                  static_cast<int64_t>(decay));
}

}  // namespace detail

namespace {

void check_gla(const std::string& kernel, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
               const torch::Tensor& g) {
  const auto d = detail::check_qkv(kernel, q, k, v);
  detail::check_tensor(kernel + ": g", g, {d[0], d[1], d[2], d[3]});
}

}  // namespace

torch::Tensor gla_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                      const torch::Tensor& g) {
  check_gla("gla_ref", q, k, v, g);
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  auto S = torch::zeros({B, H, K, V}, q.options());  // S {B, H, K, V}
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    auto kt = k.select(2, t), vt = v.select(2, t);  // {B, H, K}, {B, H, V}
    S = S * torch::exp(g.select(2, t)).unsqueeze(-1) + kt.unsqueeze(-1) * vt.unsqueeze(-2);
    outs.push_back(torch::matmul(q.select(2, t).unsqueeze(-2), S).squeeze(-2));  // {B, H, V}
  }
  return torch::stack(outs, 2);
}

torch::Tensor gla_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                          const torch::Tensor& g, int64_t chunk) {
  check_gla("gla_chunked", q, k, v, g);
  RB_CHECK_INPUT(chunk >= 1, "gla_chunked: chunk: got " + std::to_string(chunk) + ", expected ≥ 1");
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  const int64_t C = chunk, N = (T + C - 1) / C, P = N * C - T;
  // Zero padding at the end: padded tokens (k = v = 0, g = 0) change neither earlier outputs nor the state.
  auto pad = [&](const torch::Tensor& x) { return P ? torch::constant_pad_nd(x, {0, 0, 0, P}) : x; };
  auto qc = pad(q).view({B, H, N, C, K}), kc = pad(k).view({B, H, N, C, K}), vc = pad(v).view({B, H, N, C, V});
  auto G = pad(g).view({B, H, N, C, K}).cumsum(3);  // chunk-local inclusive cumulative log-decay
  // Intra-chunk scores A_ij = Σ_d q_id k_jd exp(G_id − G_jd), j ≤ i: every exponent ≤ 0, so no overflow
  // however strong the decay (the factorisation (Q e^G)(K e^-G)ᵀ would overflow).
  auto upper = torch::ones({C, C}, q.options().dtype(torch::kBool)).triu(1).view({C, C, 1});
  auto E = torch::exp((G.unsqueeze(4) - G.unsqueeze(3)).masked_fill(upper, -std::numeric_limits<float>::infinity()));
  auto A = (qc.unsqueeze(4) * kc.unsqueeze(3) * E).sum(-1);  // {B, H, N, C, C}
  auto o_intra = torch::matmul(A, vc);                       // {B, H, N, C, V}
  auto S = torch::zeros({B, H, K, V}, q.options());
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    auto Gn = G.select(2, n), GL = Gn.select(2, C - 1);  // {B, H, C, K}, {B, H, K}
    outs.push_back(o_intra.select(2, n) + torch::matmul(qc.select(2, n) * torch::exp(Gn), S));
    auto kd = kc.select(2, n) * torch::exp(GL.unsqueeze(2) - Gn);  // keys decayed to the chunk's end
    S = torch::exp(GL).unsqueeze(-1) * S + torch::matmul(kd.transpose(-1, -2), vc.select(2, n));
  }
  return torch::stack(outs, 2).view({B, H, N * C, V}).narrow(2, 0, T);
}

torch::Tensor gla_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& g) {
  check_gla("gla_fused", q, k, v, g);
  return detail::decay_scan_fused(q, k, v, g, cpu::Decay::kPerKey);
}

torch::Tensor gla(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g,
                  const std::string& impl) {
  return dispatch_impl("gla", impl, {q, k, v, g}, [&] { return gla_ref(q, k, v, g); },
                       [&] { return gla_chunked(q, k, v, g); }, [&] { return gla_fused(q, k, v, g); });
}

namespace {

std::vector<torch::Tensor> make_inputs(const KernelShape& s, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  // k scaled by 1/√(K·T): outputs stay O(1) over long sequences, even without decay.
  auto qkv = random_qkv(s, gen, 1.0 / std::sqrt(static_cast<double>(s.K * s.T)));
  auto &q = qkv[0], &k = qkv[1], &v = qkv[2];
  auto g = torch::log_sigmoid(at::randn({s.B, s.H, s.T, s.K}, gen, opts)) * s.gate_scale;
  return {q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), g.requires_grad_()};
}

double flops(const KernelShape& s) {
  // Per token per head per state entry: decay, update (2), readout (2).
  return 5.0 * s.B * s.H * s.T * s.K * s.V;
}

double bytes(const KernelShape& s) {
  // Minimum traffic: read q, k, g, v once, write o once.
  return 4.0 * s.B * s.H * s.T * (3.0 * s.K + 2.0 * s.V);
}

KernelEntry entry(const std::string& impl, const std::string& description,
                  std::function<torch::Tensor(const std::vector<torch::Tensor>&)> fn) {
  return KernelEntry{"gla_" + impl, "gla", impl, description, make_inputs, std::move(fn), flops, bytes, /*decay=*/true};
}

}  // namespace

RB_REGISTER(KernelRegistry, gla_ref_entry,
            entry("ref", "token-by-token LibTorch ops",
                  [](const std::vector<torch::Tensor>& x) { return gla_ref(x[0], x[1], x[2], x[3]); }));
RB_REGISTER(KernelRegistry, gla_chunked_entry,
            entry("chunked", "chunk 16: exact decayed intra-chunk scores + carried state (LibTorch ops)",
                  [](const std::vector<torch::Tensor>& x) { return gla_chunked(x[0], x[1], x[2], x[3]); }));
RB_REGISTER(KernelRegistry, gla_fused_entry,
            entry("fused", "hand-written CPU forward/backward (no stored states), threads over B×H",
                  [](const std::vector<torch::Tensor>& x) { return gla_fused(x[0], x[1], x[2], x[3]); }));

}  // namespace rb
