// The dispatchers' way to a registered implementation on another backend (kernel.h: forward_registered).
#include <torch/torch.h>

#include "core/errors.h"
#include "kernels/impl.h"
#include "kernels/kernel.h"

namespace rb {

torch::Tensor forward_registered(const std::string& recurrence, const std::string& impl,
                                 const std::vector<torch::Tensor>& inputs) {
  const std::string name = recurrence + "_" + impl;
  const KernelEntry* e = KernelRegistry::instance().find(name);
  if (e == nullptr)
    throw UsageError("kernel impl '" + impl + "': this build has no " + name,
                     impl == "cuda" ? "the CUDA kernels are built when nvcc is found (cmake -DRECALLBENCH_CUDA=ON); "
                                      "Debian's libtorch-dev is CPU-only, so they stage tensors through host memory"
                                    : "recallbench list kernels shows what is registered");
  if (e->unavailable) {
    const std::string why = e->unavailable();
    if (!why.empty()) throw UsageError("kernel impl '" + impl + "': " + name + " cannot run here: " + why);
  }
  if (!e->differentiable && torch::GradMode::is_enabled()) {
    for (const auto& t : inputs)
      if (t.defined() && t.requires_grad())
        throw UsageError("kernel impl '" + impl + "': " + name + " is forward only and gradients were asked for",
                         "train with impl auto|ref|chunked|fused; use '" + impl + "' for evaluation (no grad)");
  }
  return e->forward(inputs);
}

torch::Tensor dispatch_impl(const std::string& recurrence, const std::string& impl,
                            const std::vector<torch::Tensor>& inputs, const KernelFn& ref, const KernelFn& chunked,
                            const KernelFn& fused) {
  switch (parse_kernel_impl(impl)) {
    case KernelImpl::kRef:
      return ref();
    case KernelImpl::kChunked:
      return chunked();
    case KernelImpl::kCuda:
      return forward_registered(recurrence, "cuda", inputs);
    case KernelImpl::kFused:
      break;
  }
  return inputs.at(0).is_cpu() ? fused() : chunked();
}

std::vector<torch::Tensor> random_qkv(const KernelShape& s, at::Generator& gen, double k_scale) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  auto q = at::randn({s.B, s.H, s.T, s.K}, gen, opts);
  auto k = at::randn({s.B, s.H, s.T, s.K}, gen, opts) * k_scale;
  auto v = at::randn({s.B, s.H, s.T, s.V}, gen, opts);
  return {q, k, v};
}

}  // namespace rb
