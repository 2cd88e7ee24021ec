// Contrasts from knobs (see knobs.h).
#include "core/knobs.h"

namespace rb {

std::optional<KnobContrast> knob_contrast(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size() || a.empty()) return std::nullopt;
  std::optional<KnobContrast> out;
  for (const auto& [name, va] : a.items()) {
    const auto it = b.find(name);
    if (it == b.end()) return std::nullopt;
    if (va == *it) continue;
    if (out) return std::nullopt;  // a second difference
    if (va.type() != it->type()) return std::nullopt;
    out = KnobContrast{name, va.is_boolean() ? va.get<bool>() : *it < va};
  }
  return out;
}

bool reads_whole_sequence(const nlohmann::json& knobs) {
  return knobs.is_object() && knobs.value("direction", "") == "bidirectional";
}

}  // namespace rb
