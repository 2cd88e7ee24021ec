// recallbench version: the version and the run context.
#include <fmt/format.h>

#include "suite/cli.h"
#include "suite/context.h"
#include "core/errors.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

CommandFn add_version_command(CLI::App&) {
  return []() {
    set_torch_threads(1);
    fmt::print("{}\n", capture_context(1).dump(2));
    return static_cast<int>(kExitOk);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, version,
            CommandEntry{"version", torch_side_help("version"), add_version_command});

}  // namespace rb
