// Context differences between two recordings (see machine.h).
#include "judge/machine.h"

namespace rb::judge {

std::vector<ContextDifference> context_difference(const nlohmann::json& baseline, const nlohmann::json& current,
                                                  std::initializer_list<const char*> keys) {
  const auto value = [](const nlohmann::json& context, const char* key) {
    return context.is_object() && context.contains(key) ? context.at(key) : nlohmann::json(nullptr);
  };
  std::vector<ContextDifference> out;
  for (const char* key : keys) {
    const nlohmann::json a = value(baseline, key), b = value(current, key);
    if (!a.is_null() && !b.is_null() && a != b) out.push_back({key, a, b});
  }
  return out;
}

}  // namespace rb::judge
