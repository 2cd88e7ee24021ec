// The command line: each subcommand lives in its own cmd_*.cpp and adds itself to the app through one
// of these functions; main.cpp dispatches and maps errors to exit codes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rb {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // returns the process exit code
};
using Commands = std::vector<Command>;

void add_list_command(CLI::App& app, Commands& commands);
void add_run_command(CLI::App& app, Commands& commands);
void add_version_command(CLI::App& app, Commands& commands);
// Subcommands whose issues have not landed yet: each says so and exits 2.
void add_unbuilt_commands(CLI::App& app, Commands& commands);

}  // namespace rb
