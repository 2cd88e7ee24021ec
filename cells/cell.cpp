#include "cells/cell.h"

#include "cells/catalog.h"
#include "cells/sizing.h"
#include "kernels/short_conv/short_conv.h"
#include "core/errors.h"

namespace rb {

std::shared_ptr<Cell> make_cell(const std::string& name, const CellConfig& config) {
  if (name.rfind("script:", 0) == 0) return make_script_cell(config);
  if (const auto* entry = CellRegistry::instance().find(name)) return entry->make(config);
  throw UsageError("unknown cell '" + name + "'",
                   "in-tree cells: " + CellRegistry::instance().joined_names() +
                       "; a TorchScript cell is script:FILE.pt; a C++ plugin cell needs its library loaded first: "
                       "recallbench --plugin lib.so COMMAND (or RECALLBENCH_PLUGINS=lib.so); see examples/README.md");
}

std::vector<std::string> registered_cell_names() { return CellRegistry::instance().names(); }

SizingInput sizing_input(const CellConfig& config) {
  return {config.d_model, config.state_budget, config.max_length, config.options};
}

CellEntry cell_entry(const std::string& name, std::function<std::shared_ptr<Cell>(const CellConfig&)> make) {
  const CellSizing* s = find_cell_sizing(name);
  RB_ASSERT(s != nullptr, "cell " + name + " has no sizing entry (RB_CELL_SIZINGS in its folder's sizing.cpp)");
  return CellEntry{name, s->description, s->knobs, s->defaults, std::move(make)};
}

int64_t CellState::numbers_per_sequence() const {
  int64_t n = 0, batch = 0;
  for (const auto& t : tensors) {
    RB_ASSERT(t.dim() >= 1, "a carried state tensor has no batch dimension");
    RB_ASSERT(batch == 0 || t.size(0) == batch, "carried state tensors disagree on the batch size");
    batch = t.size(0);
    n += t.numel();
  }
  return batch == 0 ? 0 : n / batch;
}

ShortConvImpl::ShortConvImpl(int64_t channels, int64_t width, bool silu, std::string impl)
    : channels_(channels), width_(width), silu_(silu), impl_(std::move(impl)) {
  conv_ = register_module(
      "conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(channels, channels, width).groups(channels).padding(width - 1)));
}

torch::Tensor ShortConvImpl::forward(const torch::Tensor& x) {
  // The Conv1d module only holds the parameters (weight {C, 1, W}, bias {C}); the kernel computes.
  return short_conv(x.contiguous(), conv_->weight.squeeze(1), conv_->bias, silu_, impl_);
}

torch::Tensor ShortConvImpl::initial_state(int64_t batch) const {
  return torch::zeros({batch, channels_, width_ - 1}, conv_->weight.options());
}

torch::Tensor ShortConvImpl::step(const torch::Tensor& x_t, torch::Tensor& buffer) {
  auto window = torch::cat({buffer, x_t.unsqueeze(-1)}, -1);                     // {B, C, W}, oldest first
  auto y = (window * conv_->weight.squeeze(1)).sum(-1) + conv_->bias;            // weight {C, 1, W}
  buffer = window.narrow(-1, 1, width_ - 1);
  return silu_ ? torch::silu(y) : y;
}

nlohmann::json cell_knobs(const std::string& name) {
  for (const auto& e : CellRegistry::instance().entries())
    if (e.name == name) return e.knobs;
  return nullptr;
}

std::vector<CellInfo> cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length, bool with_parameters) {
  std::vector<CellInfo> out;
  for (const auto& e : CellRegistry::instance().entries()) {
    CellConfig cfg;
    cfg.d_model = d_model;
    cfg.state_budget = state_budget;
    cfg.max_length = max_length;
    auto cell = e.make(cfg);
    int64_t params = with_parameters ? 0 : -1;
    if (with_parameters)
      for (const auto& p : cell->parameters()) params += p.numel();
    out.push_back({e.name, e.description, e.knobs, cell->resolved_options(), cell->state_size(), params});
  }
  return out;
}

}  // namespace rb
