// The command line: each subcommand lives in its own suite/cmd_*.cpp and registers itself with one line:
//
//   RB_REGISTER(CommandRegistry, stats, CommandEntry{"stats", "Exact tests ...", &add_stats_command});
//
// `add` declares the subcommand's options on `sub` and returns the function that runs it (returning the
// process exit code). main.cpp builds the app from the registry, dispatches, and maps exceptions to exit
// codes: UsageError → 2 (message and hint on stderr), anything else → 4.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/registry.h"

namespace rb {

using CommandFn = std::function<int()>;

struct CommandEntry {
  std::string name;
  std::string help;
  std::function<CommandFn(CLI::App& sub)> add;
};

using CommandRegistry = Registry<CommandEntry>;

}  // namespace rb
