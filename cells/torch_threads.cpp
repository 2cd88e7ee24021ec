#include "cells/torch_threads.h"

#include <dlfcn.h>

#include <torch/torch.h>

namespace rb {

void set_torch_threads(int threads) {
  torch::set_num_threads(threads);
  // Debian's LibTorch does not pass the thread count on to OpenBLAS, whose own pool would otherwise
  // spin on every core (measured: 2 cores busy, 40% system time, at "one thread").
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) fn(threads);
}

TorchThreadScope::TorchThreadScope(int threads) : previous_(torch::get_num_threads()) { set_torch_threads(threads); }

TorchThreadScope::~TorchThreadScope() { set_torch_threads(previous_); }

}  // namespace rb
