// The delta rule and gated delta rule (`rank1` transition): reference, chunked (WY/UT transform) and fused
// forms, the fused autograd function, and their registration as two recurrences, `delta_rule` (no decay)
// and `gated_delta_rule`.
//
// Dimension letters: B batch, H heads, T time, K key dim, V value dim, N chunks, C chunk length.
#include "kernels/delta_rule/delta_rule.h"

#include <limits>

#include "kernels/check.h"
#include "kernels/cpu/recurrence_cpu.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

void check_delta(const std::string& kernel, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                 const torch::Tensor& beta, const torch::Tensor& g) {
  const auto d = detail::check_qkv(kernel, q, k, v);
  detail::check_tensor(kernel + ": beta", beta, {d[0], d[1], d[2]});
  if (g.defined()) detail::check_tensor(kernel + ": g", g, {d[0], d[1], d[2]});
}

// Autograd wrapper of cpu::delta_scan_{forward,backward}; g may be undefined (no decay).
class DeltaScanFunction : public torch::autograd::Function<DeltaScanFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q_in, const torch::Tensor& k_in,
                               const torch::Tensor& v_in, const torch::Tensor& beta_in, const torch::Tensor& g_in) {
    auto q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous(), beta = beta_in.contiguous();
    auto g = g_in.numel() ? g_in.contiguous() : torch::Tensor();  // empty placeholder: no decay
    const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
    const int64_t N = cpu::num_checkpoints(T);
    auto o = torch::empty({B, H, T, V}, q.options());
    auto ck = torch::empty({B, H, N, K, V}, q.options());
    const float *qp = q.data_ptr<float>(), *kp = k.data_ptr<float>(), *vp = v.data_ptr<float>();
    const float *bp = beta.data_ptr<float>(), *gp = g.defined() ? g.data_ptr<float>() : nullptr;
    float *op = o.data_ptr<float>(), *cp = ck.data_ptr<float>();
    at::parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
      for (int64_t bh = begin; bh < end; ++bh)
        cpu::delta_scan_forward(T, K, V, qp + bh * T * K, kp + bh * T * K, vp + bh * T * V, bp + bh * T,
                                gp ? gp + bh * T : nullptr, op + bh * T * V, cp + bh * N * K * V);
    });
    ctx->save_for_backward({q, k, v, beta, g, ck});
    return o;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &beta = saved[3], &g = saved[4], &ck = saved[5];
    if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    auto dout = grads[0].contiguous();
    const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
    const int64_t N = cpu::num_checkpoints(T);
    auto dq = torch::empty_like(q), dk = torch::empty_like(k), dv = torch::empty_like(v);
    auto dbeta = torch::empty_like(beta);
    auto dg = g.defined() ? torch::empty_like(g) : torch::Tensor();
    const float *qp = q.data_ptr<float>(), *kp = k.data_ptr<float>(), *vp = v.data_ptr<float>();
    const float *bp = beta.data_ptr<float>(), *gp = g.defined() ? g.data_ptr<float>() : nullptr;
    const float *cp = ck.data_ptr<float>(), *dop = dout.data_ptr<float>();
    float *dqp = dq.data_ptr<float>(), *dkp = dk.data_ptr<float>(), *dvp = dv.data_ptr<float>();
    float *dbp = dbeta.data_ptr<float>(), *dgp = dg.defined() ? dg.data_ptr<float>() : nullptr;
    at::parallel_for(0, B * H, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> work(static_cast<size_t>(cpu::delta_scan_workspace(K, V)));
      for (int64_t bh = begin; bh < end; ++bh)
        cpu::delta_scan_backward(T, K, V, qp + bh * T * K, kp + bh * T * K, vp + bh * T * V, bp + bh * T,
                                 gp ? gp + bh * T : nullptr, cp + bh * N * K * V, dop + bh * T * V, dqp + bh * T * K,
                                 dkp + bh * T * K, dvp + bh * T * V, dbp + bh * T, dgp ? dgp + bh * T : nullptr,
                                 work.data());
    });
    return {dq, dk, dv, dbeta, dg};
  }
};

}  // namespace

torch::Tensor delta_rule_ref(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                             const torch::Tensor& beta, const torch::Tensor& g) {
  check_delta("delta_rule_ref", q, k, v, beta, g);
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  auto S = torch::zeros({B, H, K, V}, q.options());  // S {B, H, K, V}
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    auto kt = k.select(2, t).unsqueeze(-1);             // {B, H, K, 1}
    auto vt = v.select(2, t).unsqueeze(-2);             // {B, H, 1, V}
    auto bt = beta.select(2, t).view({B, H, 1, 1});
    auto kS = torch::matmul(kt.transpose(-1, -2), S);  // kᵀS {B, H, 1, V}
    S = S - bt * kt * kS;                              // (I − β k kᵀ) S
    if (g.defined()) S = torch::exp(g.select(2, t)).view({B, H, 1, 1}) * S;
    S = S + bt * kt * vt;
    outs.push_back(torch::matmul(q.select(2, t).unsqueeze(-2), S).squeeze(-2));  // {B, H, V}
  }
  return torch::stack(outs, 2);
}

torch::Tensor delta_rule_chunked(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& beta, const torch::Tensor& g, int64_t chunk) {
  check_delta("delta_rule_chunked", q, k, v, beta, g);
  RB_CHECK_INPUT(chunk >= 1, "delta_rule_chunked: chunk: got " + std::to_string(chunk) + ", expected ≥ 1");
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  const int64_t C = chunk, N = (T + C - 1) / C, P = N * C - T;
  // Zero padding at the end: β = 0 and k = 0 make padded tokens leave the state alone.
  auto pad = [&](const torch::Tensor& x) { return P ? torch::constant_pad_nd(x, {0, 0, 0, P}) : x; };
  auto pad_t = [&](const torch::Tensor& x) { return P ? torch::constant_pad_nd(x, {0, P}) : x; };
  auto qc = pad(q).view({B, H, N, C, K}), kc = pad(k).view({B, H, N, C, K}), vc = pad(v).view({B, H, N, C, V});
  auto bc = pad_t(beta).view({B, H, N, C});
  auto G = g.defined() ? pad_t(g).view({B, H, N, C}).cumsum(3) : torch::zeros({B, H, N, C}, q.options());
  // Γ_ij = exp(G_i − G_j) for j ≤ i (≤ 1), zero above the diagonal.
  auto upper = torch::ones({C, C}, q.options().dtype(torch::kBool)).triu(1);
  auto Gam = torch::exp((G.unsqueeze(4) - G.unsqueeze(3)).masked_fill(upper, -std::numeric_limits<float>::infinity()));
  auto not_strict = torch::ones({C, C}, q.options().dtype(torch::kBool)).triu(0);
  auto kkt = torch::matmul(kc, kc.transpose(-1, -2));  // {B, H, N, C, C}
  // UT transform (kernels.md §2(b)): A_ij = β_i (k_i·k_j) Γ_ij for j < i; (I + A) W = diag(β)(K ⊙ e^G),
  // (I + A) U = diag(β) V, solved by forward substitution (unit lower-triangular).
  auto A = (bc.unsqueeze(-1) * kkt * Gam).masked_fill(not_strict, 0.0);
  auto eye = torch::eye(C, q.options());
  auto rhs = torch::cat({kc * (bc * torch::exp(G)).unsqueeze(-1), vc * bc.unsqueeze(-1)}, -1);  // {.., C, K + V}
  auto sol = torch::linalg_solve_triangular(eye + A, rhs, /*upper=*/false, /*left=*/true, /*unitriangular=*/true);
  auto W = sol.narrow(-1, 0, K), U = sol.narrow(-1, K, V);      // {B, H, N, C, K}, {B, H, N, C, V}
  auto QK = torch::matmul(qc, kc.transpose(-1, -2)) * Gam;      // causal decayed scores {B, H, N, C, C}
  auto S = torch::zeros({B, H, K, V}, q.options());
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    auto Gn = G.select(2, n), GL = Gn.select(2, C - 1);  // {B, H, C}, {B, H}
    auto Vn = U.select(2, n) - torch::matmul(W.select(2, n), S);  // new values after the state's prediction
    outs.push_back(torch::exp(Gn).unsqueeze(-1) * torch::matmul(qc.select(2, n), S) +
                   torch::matmul(QK.select(2, n), Vn));
    auto kd = kc.select(2, n) * torch::exp(GL.unsqueeze(-1) - Gn).unsqueeze(-1);
    S = torch::exp(GL).view({B, H, 1, 1}) * S + torch::matmul(kd.transpose(-1, -2), Vn);
  }
  return torch::stack(outs, 2).view({B, H, N * C, V}).narrow(2, 0, T);
}

torch::Tensor delta_rule_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& beta, const torch::Tensor& g) {
  check_delta("delta_rule_fused", q, k, v, beta, g);
  RB_CHECK_INPUT(q.is_cpu(), "delta_rule_fused: got a tensor on " + q.device().str() + ", expected the CPU");
  // LibTorch 1.13's Function::apply rejects undefined inputs: an empty placeholder stands for "no g".
  return DeltaScanFunction::apply(q, k, v, beta, g.defined() ? g : torch::empty({0}, q.options()));
}

torch::Tensor delta_rule(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                         const torch::Tensor& beta, const torch::Tensor& g, const std::string& impl) {
  std::vector<torch::Tensor> inputs = {q, k, v, beta};
  if (g.defined()) inputs.push_back(g);
  return dispatch_impl(g.defined() ? "gated_delta_rule" : "delta_rule", impl, inputs,
                       [&] { return delta_rule_ref(q, k, v, beta, g); }, [&] { return delta_rule_chunked(q, k, v, beta, g); },
                       [&] { return delta_rule_fused(q, k, v, beta, g); });
}

namespace {

// q, k L2-normalised as the cells do; β = sigmoid(N(0, 1)); g = gate_scale · logsigmoid(N(0, 1)).
std::vector<torch::Tensor> make_inputs(const KernelShape& s, uint64_t seed, bool decay) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  auto unit = [&](const torch::Tensor& x) { return x / torch::sqrt((x * x).sum(-1, true) + 1e-6); };
  auto q = unit(at::randn({s.B, s.H, s.T, s.K}, gen, opts));
  auto k = unit(at::randn({s.B, s.H, s.T, s.K}, gen, opts));
  auto v = at::randn({s.B, s.H, s.T, s.V}, gen, opts);
  auto beta = torch::sigmoid(at::randn({s.B, s.H, s.T}, gen, opts));
  std::vector<torch::Tensor> x{q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), beta.requires_grad_()};
  if (decay) x.push_back(torch::log_sigmoid(at::randn({s.B, s.H, s.T}, gen, opts)).mul_(s.gate_scale).requires_grad_());
  return x;
}

double flops(const KernelShape& s) {
  // Per token per head per state entry: Sᵀk (2), decay and rank-1 update (3), readout (2) (kernels.md §4).
  return 7.0 * s.B * s.H * s.T * s.K * s.V;
}

double bytes(const KernelShape& s) { return 4.0 * s.B * s.H * s.T * (2.0 * s.K + 2.0 * s.V + 2.0); }

torch::Tensor gate(const std::vector<torch::Tensor>& x) { return x.size() > 4 ? x[4] : torch::Tensor(); }

KernelEntry entry(bool decay, const std::string& impl, const std::string& description,
                  std::function<torch::Tensor(const std::vector<torch::Tensor>&)> fn) {
  const std::string rec = decay ? "gated_delta_rule" : "delta_rule";
  return KernelEntry{rec + "_" + impl,
                     rec,
                     impl,
                     description,
                     [decay](const KernelShape& s, uint64_t seed) { return make_inputs(s, seed, decay); },
                     std::move(fn),
                     flops,
                     bytes,
                     decay};
}

auto ref_fn = [](const std::vector<torch::Tensor>& x) { return delta_rule_ref(x[0], x[1], x[2], x[3], gate(x)); };
auto chunked_fn = [](const std::vector<torch::Tensor>& x) {
  return delta_rule_chunked(x[0], x[1], x[2], x[3], gate(x));
};
auto fused_fn = [](const std::vector<torch::Tensor>& x) { return delta_rule_fused(x[0], x[1], x[2], x[3], gate(x)); };
constexpr const char* kChunkedText = "chunk 64: WY/UT transform (triangular solve) + carried state (LibTorch ops)";
constexpr const char* kFusedText = "hand-written CPU forward/backward, checkpointed states, threads over B×H";

}  // namespace

RB_REGISTER(KernelRegistry, dr_ref, entry(false, "ref", "token-by-token LibTorch ops", ref_fn));
RB_REGISTER(KernelRegistry, dr_chunked, entry(false, "chunked", kChunkedText, chunked_fn));
RB_REGISTER(KernelRegistry, dr_fused, entry(false, "fused", kFusedText, fused_fn));
RB_REGISTER(KernelRegistry, gdr_ref, entry(true, "ref", "token-by-token LibTorch ops", ref_fn));
RB_REGISTER(KernelRegistry, gdr_chunked, entry(true, "chunked", kChunkedText, chunked_fn));
RB_REGISTER(KernelRegistry, gdr_fused, entry(true, "fused", kFusedText, fused_fn));

}  // namespace rb
