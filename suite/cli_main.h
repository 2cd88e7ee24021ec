// The command line's shared driver: builds the CLI11 app from the command registry (suite/cli.h), parses,
// dispatches and maps exceptions to exit codes. Both executables call it:
//   recallbench        the front end (main.cpp): torch-free commands, linked without LibTorch, so they start
//                      in milliseconds; every other command is handed to recallbench-torch by exec
//   recallbench-torch  every command (main_torch.cpp): LibTorch, the cells, the trainer, plugins, workers
#pragma once

namespace rb {

// Runs the command line over the commands registered in this executable. Returns the exit code.
int run_cli(int argc, char** argv);

}  // namespace rb
