// The memory allocator's settings, applied once at the start of every recallbench process (the CLI, its
// workers, and so script and plugin cells, which run inside the workers).
//
// Why: glibc's malloc serves blocks above its mmap threshold (dynamic, starting at 128 KiB) with fresh
// mmap/munmap pairs and trims the top of the heap when more than 128 KiB is free. A training step allocates
// and frees the same few activation and gradient buffers every step, so with the defaults every step
// returned them to the kernel and faulted them back in. Raising both thresholds keeps the buffers in the
// heap: 6-11x fewer page faults and 5-11% less CPU per run on the development VM, x0.94 CPU for the whole
// smoke battery (docs/speed.md; how much a fault costs depends on the host). The numbers computed are the
// same: only where the bytes live changes.
#pragma once

#include <string>

namespace rb {

// Raises glibc's mmap threshold (to its 32 MiB maximum: larger blocks still come from mmap) and its trim
// and top-pad thresholds (freed memory stays in the heap up to 512 MiB), unless the user has chosen
// for themselves: GLIBC_TUNABLES naming a glibc.malloc tunable, RECALLBENCH_KEEP_MALLOC=1, or another
// allocator preloaded (jemalloc, tcmalloc). Call first thing in main(); idempotent.
void tune_allocator();

// What the process allocates with, for the run context: "glibc (mmap_threshold 32 MiB, trim_threshold
// 512 MiB)", "glibc (defaults: RECALLBENCH_KEEP_MALLOC)", "glibc (GLIBC_TUNABLES=...)", "jemalloc",
// "tcmalloc".
std::string allocator_description();

}  // namespace rb
