// The bidirectional denoiser (issue 45; the preprint's "bidirectional denoiser cells, reading the query before
// the haystack"): y = f(x) + flip(g(flip(x))), f and g two copies of an in-tree fixed-state cell, each sized to
// half the state budget (cells/denoiser/sizing.cpp). Every output reads the whole sequence, so the cell has no
// token-by-token state, fails the causality check by design, and runs only in batteries whose model sets
// "bidirectional" (suite/spec.h ModelSpec::bidirectional); every causal battery refuses it.
#include "cells/cell.h"
#include "core/errors.h"

namespace rb {
namespace {

class BidirectionalCell final : public Cell {
 public:
  BidirectionalCell(const std::string& inner, const CellConfig& cfg) {
    CellConfig half = cfg;
    half.state_budget = cfg.state_budget / 2;
    forwards_ = register_module("forwards", make_cell(inner, half));
    backwards_ = register_module("backwards", make_cell(inner, half));
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    return forwards_->forward(x) + backwards_->forward(x.flip({1})).flip({1});
  }
  int64_t state_size() const override { return forwards_->state_size() + backwards_->state_size(); }
  nlohmann::json resolved_options() const override { return forwards_->resolved_options(); }
  CellState initial_state(int64_t) const override { throw no_step(); }
  torch::Tensor step(const torch::Tensor&, CellState&) override { throw no_step(); }

 private:
  static UsageError no_step() {
    return UsageError("a bidirectional cell reads the whole sequence: it has no token-by-token state or step");
  }
  std::shared_ptr<Cell> forwards_, backwards_;
};

}  // namespace

RB_REGISTER(CellRegistry, bidir_rank1_decay_conv,
            cell_entry("bidir-rank1+decay+conv", [](const CellConfig& cfg) {
              return std::make_shared<BidirectionalCell>("rank1+decay+conv", cfg);
            }));

}  // namespace rb
