#include "suite/blas_core.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace rb {
namespace {

std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return line + " ";
  return "";
}

}  // namespace

void maybe_reexec_with_better_blas_core(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("RECALLBENCH_KEEP_BLAS_CORE")) return;
  using CoreName = char* (*)();
  auto corename = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!corename) return;
  const char* core = corename();
  if (!core || std::strcmp(core, "Prescott") != 0) return;
  const std::string flags = cpu_flags();
  const char* better = nullptr;
  if (flags.find(" avx512f ") != std::string::npos && flags.find(" avx512bw ") != std::string::npos &&
      flags.find(" avx512vl ") != std::string::npos)
    better = "SkylakeX";
  else if (flags.find(" avx2 ") != std::string::npos && flags.find(" fma ") != std::string::npos)
    better = "Haswell";
  if (!better) return;
  ::setenv("OPENBLAS_CORETYPE", better, 1);
  ::execv("/proc/self/exe", argv);  // only returns on failure: carry on with the slow core
}

}  // namespace rb
