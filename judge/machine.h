// What differs between the machines two result sets were recorded on (their run contexts), for the gates:
// the speed gate refuses to read times across machines, the recall gate says when its pairs may not be
// bit-identical (judge/recall_gate.h Comparison::machine_difference).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::judge {

struct ContextDifference {
  std::string key;                   // e.g. "recallbench.cpu_model"
  nlohmann::json baseline, current;  // both present and not null
};

// The `keys` whose values differ between two context objects; a key missing or null on either side (an older
// file) is not a difference.
std::vector<ContextDifference> context_difference(const nlohmann::json& baseline, const nlohmann::json& current,
                                                  std::initializer_list<const char*> keys);

}  // namespace rb::judge
