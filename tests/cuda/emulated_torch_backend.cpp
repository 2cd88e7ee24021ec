// kernels/cuda/torch_backend.cpp (the CUDA backend's kernel-registry entries) compiled as C++ against the CPU
// emulation (cuda_emulation.h), for kernel_backends_emulated_test.
#include "tests/cuda/cuda_emulation.h"

#include "kernels/cuda/torch_backend.cpp"
