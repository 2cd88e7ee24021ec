#include "cells/sizing.h"

#include "cells/catalog.h"

#include <algorithm>

#include "core/errors.h"

namespace rb {

const std::vector<CellSizing>& cell_sizings() {
  static const std::vector<CellSizing> all = [] {
    std::vector<CellSizing> v = in_tree_cell_sizings();  // every cells/<folder>/sizing.cpp (the generated index)
    std::sort(v.begin(), v.end(), [](const CellSizing& a, const CellSizing& b) { return a.name < b.name; });
    for (size_t i = 1; i < v.size(); ++i)
      RB_ASSERT(v[i].name != v[i - 1].name, "two in-tree cells are named '" + v[i].name + "'");
    return v;
  }();
  return all;
}

std::vector<CellInfo> sized_cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length) {
  std::vector<CellInfo> out;
  for (const auto& s : cell_sizings()) {
    const CellShape shape = s.size({d_model, state_budget, max_length, nlohmann::json::object()});
    out.push_back({s.name, s.description, s.knobs, shape.options, shape.state_size, -1});
  }
  return out;
}

const CellSizing* find_cell_sizing(const std::string& name) {
  for (const auto& s : cell_sizings())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace rb
