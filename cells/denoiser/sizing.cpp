// The bidirectional denoiser's options and sizing (torch-free; cells/sizing.h): two copies of an in-tree
// fixed-state cell, one reading the sequence forwards and one backwards, each sized to half the state budget,
// so the pair carries what one causal cell of the budget carries. Its module: cells/denoiser/cell.cpp.
#include "cells/sizing.h"
#include "core/errors.h"

namespace rb {
namespace {

// "bidir-<inner>": `inner` is an in-tree fixed-state cell, `knobs` its knobs with the family and direction of a
// denoiser (so it forms no contrast with the causal cells), `defaults` its options.
CellSizing bidirectional(const std::string& inner, nlohmann::json knobs, nlohmann::json defaults,
                         const std::string& description) {
  knobs["family"] = "denoiser";
  knobs["direction"] = "bidirectional";
  auto size = [inner](const SizingInput& in) {
    const CellSizing* s = find_cell_sizing(inner);
    RB_ASSERT(s != nullptr, "the denoiser's inner cell " + inner + " has no sizing entry");
    SizingInput half = in;
    half.state_budget = in.state_budget / 2;  // 0 stays 0: each direction at its default sizing
    CellShape shape = s->size(half);
    shape.state_size *= 2;
    return shape;
  };
  return {"bidir-" + inner, description, std::move(knobs), std::move(defaults), size};
}

}  // namespace

RB_CELL_SIZINGS(denoiser) {
  return {bidirectional("rank1+decay+conv",
                        {{"transition", "rank1"}, {"decay", true}, {"conv", true}},
                        {{"heads", 1}, {"key_dim", 0}, {"value_dim", 0}},
                        "bidirectional denoiser: the gated delta rule with conv read forwards and backwards (half the "
                        "state each); reads the whole sequence, so only batteries with model.bidirectional run it")};
}

}  // namespace rb
