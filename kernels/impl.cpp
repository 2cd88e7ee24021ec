// Parsing the implementation selector shared by every kernel family's dispatcher.
#include "kernels/impl.h"

#include "core/errors.h"

namespace rb {

KernelImpl parse_kernel_impl(const std::string& impl) {
  if (impl == "auto" || impl == "fused") return KernelImpl::kFused;  // fastest on CPU at every measured shape
  if (impl == "ref") return KernelImpl::kRef;
  if (impl == "chunked") return KernelImpl::kChunked;
  if (impl == "cuda") return KernelImpl::kCuda;
  throw UsageError("kernel impl: got '" + impl + "', expected auto|ref|chunked|fused|cuda");
}

}  // namespace rb
