// The conformance harness: what makes a cell a fair entrant, checked the same way for in-tree, TorchScript
// and plugin cells. The in-tree tests (tests/cells: EveryCell) and `recallbench check-cell` both call it.
// Torch-free interface (the command line includes it); the checks run LibTorch in conformance.cpp.
//
//   shape        forward(x[2, T, D]) has x's shape
//   finite       and is finite
//   causal       at every split s, changing tokens s.. moves no earlier output (cells/causality.h)
//   gradients    every parameter and the input get a defined, finite gradient
//   state        the numbers carried by the step path equal state_size() before and after a sequence
//                (a TorchScript cell without init_state/step: "declared, not audited", not a failure)
//   step         stepping token by token gives forward's output (figure: the largest difference)
//   determinism  two builds under one seed give bit-identical outputs; another seed, different ones
//   budget       (when asked) state_size() at most 10% over state_budget: a matched-state entrant
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb {

struct ConformanceOptions {
  std::string cell;                                 // registered name or "script:<stem>"
  std::string path;                                 // a TorchScript cell's file
  nlohmann::json options = nlohmann::json::object();  // cell options (a script cell: its content_hash)
  int64_t d_model = 32;
  int64_t state_budget = 0;
  int64_t length = 24;                              // T of the test sequences
  std::string impl = "auto";
  uint64_t seed = 0;
  bool check_budget = false;                        // add "budget": state_size() within 10% of state_budget (> 0)
};

struct ConformanceCheck {
  std::string name;
  bool pass = false;
  std::string figure;  // the measured figure, or why it was skipped
  std::string caveat;  // a pass that checked less than its name says ("state declared, not audited"), else ""
};

// Runs every check. A cell that cannot be built throws (UsageError for bad input).
std::vector<ConformanceCheck> check_cell(const ConformanceOptions& options);

// Prints one line per check ("  causal       pass  figure") to stdout and returns the failed checks' names,
// comma-separated ("" when every check passed): check-cell's and score's table.
std::string print_checks(const std::vector<ConformanceCheck>& checks);
// The caveats of the passing checks, "; "-joined ("" when every check checked all it says).
std::string check_caveats(const std::vector<ConformanceCheck>& checks);

}  // namespace rb
