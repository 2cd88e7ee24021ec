// Torch-free view of the cell registry, for the command line (`recallbench list cells`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb {

struct CellInfo {
  std::string name, description;
  nlohmann::json knobs;     // {"transition": ..., "decay": ..., "conv": ...} where meaningful
  nlohmann::json options;   // resolved sizing at the given width and budget
  int64_t state_size = 0;   // numbers per layer per sequence
  int64_t parameters = -1;  // parameters of one cell (one layer); -1 when not counted (with_parameters false)
};

// The registered knobs of a cell (CellEntry::knobs), without building it; null for an unknown name.
nlohmann::json cell_knobs(const std::string& name);

// The registered cell names (in-tree and loaded plugins), sorted.
std::vector<std::string> registered_cell_names();

// Every registered cell at width `d_model` and `state_budget` (0 = default sizing). Without parameters, the
// in-tree cells come from their torch-free sizing rules (cells/sizing.h): the front end answers it without
// LibTorch. Counting parameters builds every module, and so do loaded plugins (NeedsLibTorch in the front end).
std::vector<CellInfo> cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length, bool with_parameters);
// The in-tree cells only, from their sizing rules (no parameters): what cell_catalog gives without parameters
// where no plugin is loaded.
std::vector<CellInfo> sized_cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length);

}  // namespace rb
