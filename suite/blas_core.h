// OpenBLAS core selection.
//
// Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) does not recognise some virtualised CPUs and falls back to its
// slowest kernels ("Prescott", SSE3). Measured on the 2-core development VM (AVX-512 capable):
// sgemm 4096×64×256 at 29 GFLOP/s with Prescott versus 123 GFLOP/s with SkylakeX (4.3×), and a
// diag+conv MQAR training run 1.6× faster end to end. OpenBLAS reads OPENBLAS_CORETYPE only when it is
// loaded, i.e. before main(), so the fix is to set it and re-execute the program once.
#pragma once

namespace rb {

// When OpenBLAS is loaded with the generic "Prescott" core on a CPU whose /proc/cpuinfo flags show AVX-512
// (→ SkylakeX) or AVX2 (→ Haswell), and the user has not set OPENBLAS_CORETYPE, sets it and re-executes
// /proc/self/exe with the same arguments. Returns normally in every other case (including when the
// re-exec fails). Set RECALLBENCH_KEEP_BLAS_CORE=1 to disable.
void maybe_reexec_with_better_blas_core(char** argv);

}  // namespace rb
