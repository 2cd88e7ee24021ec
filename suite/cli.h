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
#include <vector>

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

// The commands only recallbench-torch runs (they train, benchmark or build cells), with their one-line help,
// written once here (suite/cli_main.cpp): each registers with torch_side_help(name), and the front end, which
// does not link them, lists them in its global --help without loading LibTorch.
struct TorchSideCommand {
  const char* name;
  const char* help;
  bool hidden = false;  // left out of the global --help (the runner's `worker`)
};
const std::vector<TorchSideCommand>& torch_side_commands();
std::string torch_side_help(const std::string& name);  // RB_ASSERT: a name of the table

}  // namespace rb
