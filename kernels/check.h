// Input checks shared by the kernel families: shapes and dtypes in "got X, expected Y" form (UsageError).
#pragma once

#include <sstream>
#include <string>

#include <torch/torch.h>

#include "core/errors.h"

namespace rb::detail {

inline std::string shape_str(const torch::Tensor& t) {
  if (!t.defined()) return "undefined";
  std::ostringstream os;
  os << t.sizes();
  return os.str();
}

// Requires `t` to be an fp32 tensor of exactly `sizes`.
inline void check_tensor(const std::string& what, const torch::Tensor& t, torch::IntArrayRef sizes) {
  RB_CHECK_INPUT(t.defined(), what + ": got an undefined tensor, expected shape " + [&] {
    std::ostringstream os;
    os << sizes;
    return os.str();
  }());
  RB_CHECK_INPUT(t.sizes() == sizes, [&] {
    std::ostringstream os;
    os << what << ": got shape " << t.sizes() << ", expected " << sizes;
    return os.str();
  }());
  RB_CHECK_INPUT(t.scalar_type() == torch::kFloat32,
                 what + ": got dtype " + std::string(c10::toString(t.scalar_type())) + ", expected float32");
}

// q, k {B, H, T, K}; v {B, H, T, V}. Returns {B, H, T, K, V}.
inline std::array<int64_t, 5> check_qkv(const std::string& kernel, const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v) {
  RB_CHECK_INPUT(q.defined() && q.dim() == 4, kernel + ": q: got shape " + shape_str(q) + ", expected {B, H, T, K}");
  RB_CHECK_INPUT(v.defined() && v.dim() == 4, kernel + ": v: got shape " + shape_str(v) + ", expected {B, H, T, V}");
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2), K = q.size(3), V = v.size(3);
  check_tensor(kernel + ": q", q, {B, H, T, K});
  check_tensor(kernel + ": k", k, {B, H, T, K});
  check_tensor(kernel + ": v", v, {B, H, T, V});
  return {B, H, T, K, V};
}

}  // namespace rb::detail
