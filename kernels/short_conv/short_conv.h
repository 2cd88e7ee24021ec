// Short causal depthwise convolution (the `+conv` knob; Mamba's d_conv, fla's ShortConvolution):
//   y[b, t, c] = act( bias[c] + Σ_{w<W} weight[c, w] · x[b, t − (W−1) + w, c] )      (x before t = 0 is 0)
// x {B, T, C}; weight {C, W}; bias {C} or an undefined tensor; act = SiLU when `silu`, else identity.
// → y {B, T, C}, fp32. Tap W−1 multiplies x_t (causal-conv1d's convention). Gradients flow to x, weight, bias.
#pragma once

#include <string>

#include <torch/torch.h>

namespace rb {

// Tap by tap in LibTorch ops: the definition.
torch::Tensor short_conv_ref(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                             bool silu);

// Fused CPU kernel: forward and backward in one loop each, threaded over B×C blocks.
torch::Tensor short_conv_fused(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                               bool silu);

// Dispatcher: impl "auto" | "ref" | "chunked" | "fused". The convolution has no chunked form:
// "chunked" (a cell-wide choice) runs the fused kernel.
torch::Tensor short_conv(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias, bool silu,
                         const std::string& impl = "auto");

}  // namespace rb
