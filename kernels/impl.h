// Choosing an implementation by name: the shared "auto" | "ref" | "chunked" | "fused" | "cuda" selector used by
// every kernel family's dispatcher (e.g. gla(q, k, v, g, "fused")), and by cells through CellConfig::impl.
#pragma once

#include <string>

namespace rb {

enum class KernelImpl { kRef, kChunked, kFused, kCuda };

// Parses an implementation name. "cuda" runs the registered CUDA kernel (forward only; builds with nvcc and
// a GPU present, else a UsageError saying which is missing). "auto" picks the fastest correct implementation on this machine (the
// fused CPU kernels, measured by `recallbench bench`). Anything else: UsageError, exit code 2, e.g.
// "kernel impl: got 'fast', expected auto|ref|chunked|fused|cuda".
KernelImpl parse_kernel_impl(const std::string& impl);

}  // namespace rb
