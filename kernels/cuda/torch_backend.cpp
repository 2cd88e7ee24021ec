// The CUDA backend in the kernel registry: <recurrence>_cuda entries over the torch-free launchers of
// recurrent_cuda.h and short_conv_cuda.h, for gla, linear_attn (gla with no decay), ssd (gla with the
// head's decay on every key), delta_rule, gated_delta_rule and short_conv. Forward only. Compiled into
// builds that found nvcc; each entry reports itself unavailable where no CUDA device is present, so the
// kernel harness (tests/kernels/kernel_test.cpp) skips it there and runs it against `_ref` on a GPU.
//
// Tensors: Debian's LibTorch is CPU-only, so CPU inputs are staged through device buffers (copy in, launch,
// synchronise, copy out): correct, not fast (the GPU's own timings are rb_cuda_bench's). With a CUDA build
// of LibTorch, inputs already on the GPU are passed by pointer and the output is allocated on the GPU, with
// no copies; the launch is on the default stream and synchronised before returning.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/errors.h"
#include "kernels/check.h"
#include "kernels/cuda/recurrent_cuda.h"
#include "kernels/cuda/short_conv_cuda.h"
#include "kernels/kernel.h"

namespace rb {
namespace {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("cuda backend: ") + what + ": " + cudaGetErrorString(err));
}

std::string no_device() {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error
    return std::string("no CUDA device (") + cudaGetErrorString(err) + ")";
  }
  return devices > 0 ? "" : "no CUDA device";
}

// Device memory freed on every path out of a launch.
struct DeviceBuffers {
  std::vector<void*> owned;
  float* alloc(size_t numel) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, std::max<size_t>(numel, 1) * sizeof(float)), "cudaMalloc");
    owned.push_back(p);
    return static_cast<float*>(p);
  }
  ~DeviceBuffers() {
    for (void* p : owned) (void)cudaFree(p);
  }
};

using Launch = std::function<void(const std::vector<const float*>& in, float* out)>;

// Runs `launch` on device copies of `inputs` (undefined tensors become nullptr) and returns the output of
// `out_sizes`, on the inputs' device.
torch::Tensor run_on_device(const std::vector<torch::Tensor>& inputs, std::vector<int64_t> out_sizes,
                            const Launch& launch) {
  const bool on_gpu = inputs.at(0).is_cuda();
  DeviceBuffers buffers;
  std::vector<torch::Tensor> keep;  // contiguous inputs, alive until the launch has finished
  std::vector<const float*> in;
  for (const auto& t : inputs) {
    if (!t.defined()) {
      in.push_back(nullptr);
      continue;
    }
    RB_CHECK_INPUT(t.scalar_type() == torch::kFloat32, "cuda backend: inputs must be float32, got " +
                                                           std::string(c10::toString(t.scalar_type())));
    auto c = t.detach().contiguous();
    keep.push_back(c);
    if (on_gpu) {
      in.push_back(c.data_ptr<float>());
      continue;
    }
    float* d = buffers.alloc(static_cast<size_t>(c.numel()));
    check_cuda(cudaMemcpy(d, c.data_ptr<float>(), c.numel() * sizeof(float), cudaMemcpyHostToDevice), "copy in");
    in.push_back(d);
  }
  auto out = torch::empty(out_sizes, inputs[0].options().requires_grad(false));
  float* o = on_gpu ? out.data_ptr<float>() : buffers.alloc(static_cast<size_t>(out.numel()));
  launch(in, o);
  check_cuda(cudaDeviceSynchronize(), "kernel");
  if (!on_gpu) check_cuda(cudaMemcpy(out.data_ptr<float>(), o, out.numel() * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  return out;
}

int as_int(int64_t x) { return static_cast<int>(x); }

// q, k {B, H, T, K}; v {B, H, T, V}; g {B, H, T, K} log-decays (already broadcast).
torch::Tensor gla_like(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, const torch::Tensor& g) {
  const auto [B, H, T, K, V] = detail::check_qkv("gla_cuda", q, k, v);
  detail::check_tensor("gla_cuda: g", g, {B, H, T, K});
  return run_on_device({q, k, v, g}, {B, H, T, V}, [&, B = B, H = H, T = T, K = K, V = V](const auto& in, float* o) {
    gla_fwd_cuda(in[0], in[1], in[2], in[3], o, nullptr, nullptr, as_int(B), as_int(H), as_int(T), as_int(K), as_int(V));
  });
}

torch::Tensor delta_rule_cuda(const std::vector<torch::Tensor>& x) {
  const auto& q = x.at(0);
  const auto [B, H, T, K, V] = detail::check_qkv("delta_rule_cuda", q, x.at(1), x.at(2));
  detail::check_tensor("delta_rule_cuda: beta", x.at(3), {B, H, T});
  std::vector<torch::Tensor> in = {q, x[1], x[2], x[3], x.size() > 4 ? x[4] : torch::Tensor()};
  if (in[4].defined()) detail::check_tensor("delta_rule_cuda: g", in[4], {B, H, T});
  return run_on_device(in, {B, H, T, V}, [&, B = B, H = H, T = T, K = K, V = V](const auto& p, float* o) {
    delta_rule_fwd_cuda(p[0], p[1], p[2], p[3], p[4], o, nullptr, nullptr, as_int(B), as_int(H), as_int(T), as_int(K),
                        as_int(V));
  });
}

// x {B, T, C}; weight {C, W}; bias {C}; SiLU (the registered short_conv entries' configuration).
torch::Tensor short_conv_cuda(const std::vector<torch::Tensor>& x) {
  const auto& in = x.at(0);
  RB_CHECK_INPUT(in.dim() == 3, "short_conv_cuda: x: got shape " + detail::shape_str(in) + ", expected {B, T, C}");
  const int64_t B = in.size(0), T = in.size(1), C = in.size(2);
  RB_CHECK_INPUT(x.at(1).dim() == 2, "short_conv_cuda: weight: got shape " + detail::shape_str(x[1]) + ", expected {C, W}");
  const int64_t W = x[1].size(1);
  detail::check_tensor("short_conv_cuda: weight", x[1], {C, W});
  if (x.size() > 2 && x[2].defined()) detail::check_tensor("short_conv_cuda: bias", x[2], {C});
  return run_on_device({in, x[1], x.size() > 2 ? x[2] : torch::Tensor()}, {B, T, C}, [&](const auto& p, float* o) {
    short_conv_fwd_cuda(p[0], p[1], p[2], o, as_int(B), as_int(T), as_int(C), as_int(W), /*silu=*/true);
  });
}

// Inputs, FLOPs and bytes are the recurrence's own (its `_ref` entry's), so the harness feeds every backend
// the same tensors.
KernelEntry cuda_entry(const std::string& recurrence, const std::string& description,
                       std::function<torch::Tensor(const std::vector<torch::Tensor>&)> forward, bool decay) {
  const auto ref = [recurrence]() -> const KernelEntry& {
    return KernelRegistry::instance().get(recurrence + "_ref", "kernel");
  };
  KernelEntry e{recurrence + "_cuda",
                recurrence,
                "cuda",
                description,
                [ref](const KernelShape& s, uint64_t seed) { return ref().make_inputs(s, seed); },
                std::move(forward),
                [ref](const KernelShape& s) { return ref().flops(s); },
                [ref](const KernelShape& s) { return ref().bytes ? ref().bytes(s) : 0.0; },
                decay};
  e.backend = "cuda";
  e.differentiable = false;
  e.unavailable = no_device;
  return e;
}

constexpr const char* kStaged = " (CPU tensors staged through device memory)";

}  // namespace

RB_REGISTER(KernelRegistry, gla_cuda_entry,
            cuda_entry("gla", std::string("fused recurrent CUDA forward, a warp per state column") + kStaged,
                       [](const std::vector<torch::Tensor>& x) { return gla_like(x.at(0), x.at(1), x.at(2), x.at(3)); },
                       true));
RB_REGISTER(KernelRegistry, linear_attn_cuda_entry,
            cuda_entry("linear_attn", std::string("the gla CUDA forward with zero log-decay") + kStaged,
                       [](const std::vector<torch::Tensor>& x) {
                         return gla_like(x.at(0), x.at(1), x.at(2), torch::zeros_like(x.at(0)));
                       },
                       false));
RB_REGISTER(KernelRegistry, ssd_cuda_entry,
            cuda_entry("ssd", std::string("the gla CUDA forward with the head's decay on every key") + kStaged,
                       [](const std::vector<torch::Tensor>& x) {
                         const auto& q = x.at(0);
                         const auto [B, H, T, K, V] = detail::check_qkv("ssd_cuda", q, x.at(1), x.at(2));
                         detail::check_tensor("ssd_cuda: g", x.at(3), {B, H, T});
                         return gla_like(q, x.at(1), x.at(2), x[3].detach().unsqueeze(-1).expand(q.sizes()));
                       },
                       true));
RB_REGISTER(KernelRegistry, delta_rule_cuda_entry,
            cuda_entry("delta_rule", std::string("fused recurrent CUDA forward, a warp per state column") + kStaged,
                       delta_rule_cuda, false));
RB_REGISTER(KernelRegistry, gated_delta_rule_cuda_entry,
            cuda_entry("gated_delta_rule", std::string("fused recurrent CUDA forward, a warp per state column") + kStaged,
                       delta_rule_cuda, true));
RB_REGISTER(KernelRegistry, short_conv_cuda_entry,
            cuda_entry("short_conv", std::string("width 4 + bias + SiLU, a thread per channel") + kStaged,
                       short_conv_cuda, false));

}  // namespace rb
