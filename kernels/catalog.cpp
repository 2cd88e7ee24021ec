#include "kernels/catalog.h"

#include "kernels/kernel.h"

namespace rb {

std::vector<KernelInfo> kernel_catalog() {
  std::vector<KernelInfo> out;
  for (const auto& e : KernelRegistry::instance().entries())
    out.push_back({e.name, e.recurrence, e.impl, e.backend, e.description, e.unavailable ? e.unavailable() : ""});
  return out;
}

}  // namespace rb
