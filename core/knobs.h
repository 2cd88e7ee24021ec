// Contrasts from knobs: two cells that differ in exactly one knob of their registered knobs
// (CellEntry::knobs, e.g. {"family": "fixed_state", "transition": "diag", "decay": false, "conv": true})
// form a contrast on that knob. "family" is a knob like the others, so cells of different families
// (attention vs diag) differ in two and never form one. The one function the planner (a battery's declared contrasts) and the reports (contrasts inferred
// from results) both use, so neither parses cell names.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rb {

struct KnobContrast {
  std::string knob;           // e.g. "conv", "decay", "transition"
  bool first_carries = true;  // the first cell is the arm that carries the knob
};

// The knob in which `a` and `b` (knob objects) differ when they differ in exactly one and agree on the
// rest; nullopt otherwise (not objects, other keys, no difference, several). The arm that carries the knob
// is the one where a boolean knob is true, or where any other knob's value sorts later ("rank1" over
// "diag").
//   knob_contrast({{"transition","rank1"},{"conv",false}}, {{"transition","diag"},{"conv",false}})
//     == KnobContrast{"transition", true}
std::optional<KnobContrast> knob_contrast(const nlohmann::json& a, const nlohmann::json& b);

// Whether a cell's knobs declare that it reads the whole sequence ({"direction": "bidirectional"}, the
// denoiser cells): such a cell runs only where the model may read the whole sequence (ModelSpec::bidirectional).
bool reads_whole_sequence(const nlohmann::json& knobs);

}  // namespace rb
