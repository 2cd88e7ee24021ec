// Torch-free view of the kernel registry, for the command line (`recallbench list kernels`).
#pragma once

#include <string>
#include <vector>

namespace rb {

struct KernelInfo {
  std::string name, recurrence, impl, backend, description;
  std::string unavailable;  // why it cannot run here, or ""
};

std::vector<KernelInfo> kernel_catalog();

}  // namespace rb
