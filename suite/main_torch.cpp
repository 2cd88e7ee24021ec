// recallbench-torch: every command, with LibTorch, the cells, the trainer and plugins; the worker processes
// of `run` are this executable too. Users call `recallbench`, which hands the commands that need LibTorch
// to this one (suite/cli_main.h). Exit codes as in suite/main.cpp.
#include <cstdio>
#include <string>
#include <vector>

#include "core/errors.h"
#include "suite/allocator.h"
#include "suite/blas_core.h"
#include "suite/cli_main.h"
#include "suite/plugins.h"

int main(int argc, char** argv) {
  rb::tune_allocator();  // before anything allocates much: every step's buffers stay in the heap
  rb::maybe_reexec_with_better_blas_core(argv);
  // Plugins register cells before any command is built or run (suite/plugins.h).
  try {
    rb::load_plugins(rb::plugin_arguments(argc, argv));
  } catch (const rb::UsageError& e) {
    std::fprintf(stderr, "recallbench: error: %s\n", e.what());
    if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
    return rb::kExitUsage;
  }
  return rb::run_cli(argc, argv);
}
