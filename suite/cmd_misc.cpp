// recallbench version, and the subcommands whose issues have not landed yet.
#include <fmt/format.h>

#include "suite/cli.h"
#include "suite/core/context.h"
#include "suite/core/errors.h"
#include "suite/train/train_api.h"

namespace rb {

void add_version_command(CLI::App& app, Commands& commands) {
  auto* sub = app.add_subcommand("version", "Print the version and the run context (commit, compiler, LibTorch, BLAS)");
  commands.push_back({sub, []() {
                        set_torch_threads(1);  // loads LibTorch (and its BLAS) so the context can name it
                        fmt::print("{}\n", capture_context(1).dump(2));
                        return kExitOk;
                      }});
}

void add_unbuilt_commands(CLI::App& app, Commands& commands) {
  const std::pair<const char*, const char*> unbuilt[] = {
      {"report", "Write JSON/HTML/Markdown reports from a results directory (not built yet)"},
      {"compare", "Compare results against a baseline; exit 1 on a significant regression (not built yet)"},
      {"stats", "Exact tests, intervals, corrections and seed planning (not built yet)"},
      {"bench", "Kernel microbenchmarks (not built yet)"},
  };
  for (const auto& [name, help] : unbuilt) {
    auto* sub = app.add_subcommand(name, help);
    sub->allow_extras();
    const std::string n = name;
    commands.push_back({sub, [n]() {
                          fmt::print(stderr, "recallbench {}: not built yet in this version\n", n);
                          return kExitUsage;
                        }});
  }
}

}  // namespace rb
