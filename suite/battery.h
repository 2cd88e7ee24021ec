// Batteries: named lists of runs. A battery is data (a preset here, or later a JSON file), expanded by
// the planner into RunSpecs with stable keys.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "suite/core/registry.h"
#include "suite/core/spec.h"

namespace rb {

struct BatteryEntry {
  std::string name;
  std::string description;
  std::function<std::vector<RunSpec>()> plan;  // unresolved specs; the runner resolves them
};

using BatteryRegistry = Registry<BatteryEntry>;

// Parses a seed list: "3", "0-9", "0,2,5-7". Throws UsageError on anything else.
std::vector<int64_t> parse_seeds(const std::string& text);

}  // namespace rb
