// The fused diagonal-transition kernel shared by linear_attn (no decay), ssd (one decay per token) and
// gla (one decay per key per token): a LibTorch autograd function around kernels/cpu/recurrence_cpu.h.
#pragma once

#include <torch/torch.h>

#include "kernels/cpu/recurrence_cpu.h"

namespace rb::detail {

// q, k {B, H, T, K}; v {B, H, T, V}; g {B, H, T, K} (kPerKey), {B, H, T} (kScalar) or undefined (kNone)
// → o {B, H, T, V}. Inputs must already be checked.
torch::Tensor decay_scan_fused(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                               const torch::Tensor& g, cpu::Decay decay);

}  // namespace rb::detail
