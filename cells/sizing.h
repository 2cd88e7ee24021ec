// The in-tree cells' options and sizing without LibTorch: each cell's defaults, the checks of its options and
// the rule that sizes it to a state budget live here, once. The cells' modules (cells/*.cpp) take their
// dimensions from these functions, and the command line's front end, which has no LibTorch, resolves and
// plans batteries with them (`plan`, `merge`, `slurm`: suite/train/resolve_sizing.cpp).
//
// Plugin and TorchScript cells have no entry here: only their module knows its sizing, so commands that
// need one run on the LibTorch side (suite/main.cpp hands them over on NeedsLibTorch).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb {

// What a cell is sized from (the torch-free part of CellConfig).
struct SizingInput {
  int64_t d_model = 64;
  int64_t state_budget = 0;  // 0 = the cell's default sizing
  int64_t max_length = 0;    // attention's KV cache grows with it
  nlohmann::json options = nlohmann::json::object();
};

// A cell's shape: its resolved options (what runs record and hash; Cell::resolved_options()), the state it
// carries per layer per sequence (Cell::state_size()), and the integers its module is built from.
struct CellShape {
  nlohmann::json options;
  int64_t state_size = 0;
  std::map<std::string, int64_t> dims;

  int64_t dim(const std::string& name) const { return dims.at(name); }
};

struct CellSizing {
  std::string name;          // as registered, e.g. "diag+conv"
  std::string description;
  nlohmann::json knobs;      // {"family", "transition", "decay", "conv"}
  nlohmann::json defaults;   // every option with its default
  std::function<CellShape(const SizingInput&)> size;  // UsageError for bad options
};

// The in-tree cells, in registration order of their names (sorted).
const std::vector<CellSizing>& cell_sizings();
// The entry of `name`; nullptr for names that only a module knows (plugins, "script:" cells).
const CellSizing* find_cell_sizing(const std::string& name);

}  // namespace rb
