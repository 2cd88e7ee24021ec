// The in-tree cells' options and sizing without LibTorch. Each cell lives in one folder, cells/<folder>/:
// sizing.cpp (this side: its defaults, the checks of its options and the rule that sizes it to a state
// budget, written once) and cell.cpp (its LibTorch module, built from those dimensions). The build lists the
// folders (cells/CMakeLists.txt), so a new folder is a new cell with no other edit. The command line's front
// end, which has no LibTorch, resolves and plans batteries with these rules (suite/train/resolve_sizing.cpp).
//
// Plugin and TorchScript cells have no entry here: only their module knows its sizing, so commands that
// need one run on the LibTorch side (suite/main.cpp hands them over on NeedsLibTorch).
#pragma once

#include <cstdint>
#include <cstdlib>
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

// A cell folder's sizing.cpp defines its entries as `RB_CELL_SIZINGS(<folder>) { return {...}; }` (the folder's
// name, a C++ identifier); the generated index (cells/CMakeLists.txt) calls every folder's.
#define RB_CELL_SIZINGS(folder) std::vector<CellSizing> cell_sizings_##folder()

// Every folder's entries, as the generated index collects them (unsorted).
std::vector<CellSizing> in_tree_cell_sizings();

// The d in [1, 4096] whose state(d) is closest to `budget` (the smallest such d on a tie): the sizing rule
// of a cell whose state grows with one integer dimension.
template <typename StateAt>
int64_t closest_to_budget(int64_t budget, StateAt state_at) {
  int64_t best = 1;
  for (int64_t d = 1; d <= 4096; ++d)
    if (std::llabs(state_at(d) - budget) < std::llabs(state_at(best) - budget)) best = d;
  return best;
}

// The in-tree cells, sorted by name.
const std::vector<CellSizing>& cell_sizings();
// The entry of `name`; nullptr for names that only a module knows (plugins, "script:" cells).
const CellSizing* find_cell_sizing(const std::string& name);

}  // namespace rb
