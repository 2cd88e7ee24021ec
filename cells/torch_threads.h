// The intra-op thread count of LibTorch and of the BLAS under it, for the process: set by the trainer (one
// thread a worker), the microbenchmarks, and held at one for the length of a causality check. Torch-free, so the
// command line can name it.
#pragma once

namespace rb {

// Sets LibTorch's intra-op thread count for this process, and OpenBLAS's where it is loaded.
void set_torch_threads(int threads);

// Runs a scope at `threads` threads and puts the count it found back when the scope ends.
class TorchThreadScope {
 public:
  explicit TorchThreadScope(int threads);
  ~TorchThreadScope();
  TorchThreadScope(const TorchThreadScope&) = delete;
  TorchThreadScope& operator=(const TorchThreadScope&) = delete;

 private:
  int previous_;
};

}  // namespace rb
