// recallbench: the command line. Exit codes (every command): 0 success, 1 significant regression,
// 2 bad input or usage, 3 inconclusive (only when asked to fail on it), 4 internal error.
//
// This executable is the front end, linked without LibTorch: the commands that only read and write JSON
// (stats, report, compare, verify, leaderboard, baseline, sample, history, bisect), those that plan
// batteries (plan, merge, slurm, list batteries: in-tree cells sized by cells/sizing.h) and the global --help
// and --version run here and start in 2-20 ms instead of the ~0.36 s that loading LibTorch's shared libraries
// takes (docs/speed.md). Every other command (`version` too: it reports LibTorch's BLAS as loaded), any
// invocation with plugins, and a planning command that meets
// a cell only LibTorch can size (NeedsLibTorch: a TorchScript cell) are handed to recallbench-torch
// (beside this executable) by exec, with the same arguments.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/errors.h"
#include "suite/needs_libtorch.h"
#include "suite/allocator.h"
#include "suite/cli.h"
#include "suite/cli_main.h"

namespace {

// True when this front end can run the command itself: it is registered here and no plugin is asked for
// (plugins register cells, which live in recallbench-torch).
bool runs_here(int argc, char** argv) {
  if (const char* p = std::getenv("RECALLBENCH_PLUGINS"); p && *p) return false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--plugin") == 0 || std::strncmp(argv[i], "--plugin=", 9) == 0) return false;
  // The global --help and --version alone: answered here (the torch side's commands are listed from
  // suite/cli.h's table, the version line is made of build constants).
  if (argc == 2)
    for (const char* global : {"--help", "-h", "--version"})
      if (std::strcmp(argv[1], global) == 0) return true;
  return argc > 1 && argv[1][0] != '-' && rb::CommandRegistry::instance().find(argv[1]) != nullptr;
}

[[noreturn]] void exec_torch_side(char** argv) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string torch_side = (ec ? std::filesystem::path(argv[0]) : self).parent_path() / "recallbench-torch";
  ::execv(torch_side.c_str(), argv);
  std::fprintf(stderr, "recallbench: internal error: cannot start %s (%s); it is built and installed beside "
                       "recallbench\n", torch_side.c_str(), std::strerror(errno));
  std::exit(rb::kExitInternal);
}

}  // namespace

int main(int argc, char** argv) {
  if (!runs_here(argc, argv)) exec_torch_side(argv);
  rb::tune_allocator();
  try {
    return rb::run_cli(argc, argv);
  } catch (const rb::NeedsLibTorch&) {
    std::fflush(stdout);
    exec_torch_side(argv);  // a plugin or TorchScript cell in a battery: only LibTorch can size it
  }
}
