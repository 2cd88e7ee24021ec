// kernels/cuda/short_conv_cuda.cu compiled as C++ against the CPU emulation (cuda_emulation.h), for
// kernels_cuda_emulated_test.
#include "tests/cuda/cuda_emulation.h"

#include "kernels/cuda/short_conv_cuda.cu"
