// Short causal depthwise convolution: reference and fused forms, the fused autograd function, and their
// registration. Dimension letters: B batch, T time, C channels, W taps.
#include "kernels/short_conv/short_conv.h"

#include "kernels/check.h"
#include "kernels/cpu/recurrence_cpu.h"
#include "core/errors.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Channels per task: each thread owns whole channels, so dweight/dbias sums run in a fixed order and
// results do not depend on the thread count.
constexpr int64_t kChannelBlock = 32;

void check_conv(const std::string& kernel, const torch::Tensor& x, const torch::Tensor& weight,
                const torch::Tensor& bias) {
  RB_CHECK_INPUT(x.defined() && x.dim() == 3, kernel + ": x: got shape " + detail::shape_str(x) + ", expected {B, T, C}");
  RB_CHECK_INPUT(weight.defined() && weight.dim() == 2,
                 kernel + ": weight: got shape " + detail::shape_str(weight) + ", expected {C, W}");
  detail::check_tensor(kernel + ": x", x, {x.size(0), x.size(1), x.size(2)});
  detail::check_tensor(kernel + ": weight", weight, {x.size(2), weight.size(1)});
  if (bias.defined()) detail::check_tensor(kernel + ": bias", bias, {x.size(2)});
}

class ShortConvFunction : public torch::autograd::Function<ShortConvFunction> {
 public:
  // The convolution without activation: short_conv_fused applies SiLU with LibTorch's vectorised op.
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x_in, const torch::Tensor& w_in,
                               const torch::Tensor& b_in) {
    auto x = x_in.contiguous(), w = w_in.contiguous();
    auto b = b_in.defined() ? b_in.contiguous() : torch::Tensor();
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), W = w.size(1);
    auto y = torch::empty_like(x);
    const float *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>(), *bp = b.defined() ? b.data_ptr<float>() : nullptr;
    float* yp = y.data_ptr<float>();
    at::parallel_for(0, (C + kChannelBlock - 1) / kChannelBlock, 1, [&](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk)
        cpu::short_conv_forward(B, T, C, W, blk * kChannelBlock, std::min(C, (blk + 1) * kChannelBlock), xp, wp, bp,
                                yp);
    });
    ctx->save_for_backward({x, w, b});
    return y;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &w = saved[1], &b = saved[2];
    if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor()};
    auto dy = grads[0].contiguous();
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), W = w.size(1);
    auto dx = torch::empty_like(x), dw = torch::empty_like(w);
    auto db = b.defined() ? torch::empty_like(b) : torch::Tensor();
    const float *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>();
    const float* dyp = dy.data_ptr<float>();
    float *dxp = dx.data_ptr<float>(), *dwp = dw.data_ptr<float>(), *dbp = db.defined() ? db.data_ptr<float>() : nullptr;
    at::parallel_for(0, (C + kChannelBlock - 1) / kChannelBlock, 1, [&](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk)
        cpu::short_conv_backward(B, T, C, W, blk * kChannelBlock, std::min(C, (blk + 1) * kChannelBlock), xp, wp, dyp,
                                 dxp, dwp, dbp);
    });
    return {dx, dw, db};
  }
};

}  // namespace

torch::Tensor short_conv_ref(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                             bool silu) {
  check_conv("short_conv_ref", x, weight, bias);
  const int64_t T = x.size(1), W = weight.size(1);
  auto y = bias.defined() ? bias.expand_as(x) : torch::zeros_like(x);  // {B, T, C}
  for (int64_t w = 0; w < W; ++w) {
    const int64_t shift = W - 1 - w;  // tap w sees x_{t − shift}
    if (shift >= T) continue;
    auto shifted = shift ? torch::constant_pad_nd(x.narrow(1, 0, T - shift), {0, 0, shift, 0}) : x;
    y = y + shifted * weight.select(1, w);
  }
  return silu ? torch::silu(y) : y;
}

torch::Tensor short_conv_fused(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                               bool silu) {
  check_conv("short_conv_fused", x, weight, bias);
  RB_CHECK_INPUT(x.is_cpu(), "short_conv_fused: got a tensor on " + x.device().str() + ", expected the CPU");
  // SiLU through LibTorch's vectorised op: the loops' scalar expf made the activation cost more than the
  // convolution itself (cell_bench, diag+conv at L = 256).
  auto y = ShortConvFunction::apply(x, weight, bias);
  return silu ? torch::silu(y) : y;
}

torch::Tensor short_conv(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias, bool silu,
                         const std::string& impl) {
  const KernelImpl which = parse_kernel_impl(impl);
  if (which == KernelImpl::kCuda) {
    RB_CHECK_INPUT(silu, "short_conv impl cuda: the registered CUDA entry applies SiLU; use auto/ref/fused without it");
    return forward_registered("short_conv", "cuda", {x, weight, bias});
  }
  if (which == KernelImpl::kRef || !x.is_cpu()) return short_conv_ref(x, weight, bias, silu);
  return short_conv_fused(x, weight, bias, silu);
}

namespace {

// The shape's B and T; channels C = H·K (the q or k projection width); width 4; bias; SiLU.
constexpr int64_t kWidth = 4;

std::vector<torch::Tensor> make_inputs(const KernelShape& s, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  const int64_t C = s.H * s.K;
  auto x = at::randn({s.B, s.T, C}, gen, opts);
  auto w = at::randn({C, kWidth}, gen, opts) * 0.5;
  auto b = at::randn({C}, gen, opts) * 0.1;
  return {x.requires_grad_(), w.requires_grad_(), b.requires_grad_()};
}

double flops(const KernelShape& s) { return (2.0 * kWidth + 5.0) * s.B * s.T * s.H * s.K; }

double bytes(const KernelShape& s) { return 4.0 * 2.0 * s.B * s.T * s.H * s.K; }

}  // namespace

RB_REGISTER(KernelRegistry, short_conv_ref_entry,
            KernelEntry{"short_conv_ref", "short_conv", "ref", "width 4 + bias + SiLU, tap by tap in LibTorch ops",
                        make_inputs,
                        [](const std::vector<torch::Tensor>& x) { return short_conv_ref(x[0], x[1], x[2], true); },
                        flops, bytes});
RB_REGISTER(KernelRegistry, short_conv_fused_entry,
            KernelEntry{"short_conv_fused", "short_conv", "fused",
                        "width 4 + bias + SiLU, hand-written CPU forward/backward, threads over channel blocks",
                        make_inputs,
                        [](const std::vector<torch::Tensor>& x) { return short_conv_fused(x[0], x[1], x[2], true); },
                        flops, bytes});

}  // namespace rb
