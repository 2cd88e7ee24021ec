#include "cells/cell.h"

#include "cells/catalog.h"

namespace rb {

std::shared_ptr<Cell> make_cell(const std::string& name, const CellConfig& config) {
  return CellRegistry::instance().get(name, "cell").make(config);
}

ShortConvImpl::ShortConvImpl(int64_t channels, int64_t width) : channels_(channels), width_(width) {
  conv_ = register_module(
      "conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(channels, channels, width).groups(channels).padding(width - 1)));
}

torch::Tensor ShortConvImpl::forward(const torch::Tensor& x) {
  const int64_t T = x.size(1);
  auto y = conv_->forward(x.transpose(1, 2)).narrow(2, 0, T);  // {B, C, T}: causal (left padding only)
  return torch::silu(y).transpose(1, 2);
}

std::vector<CellInfo> cell_catalog(int64_t d_model, int64_t state_budget, int64_t max_length) {
  std::vector<CellInfo> out;
  for (const auto& e : CellRegistry::instance().entries()) {
    CellConfig cfg;
    cfg.d_model = d_model;
    cfg.state_budget = state_budget;
    cfg.max_length = max_length;
    auto cell = e.make(cfg);
    int64_t params = 0;
    for (const auto& p : cell->parameters()) params += p.numel();
    out.push_back({e.name, e.description, e.knobs, cell->resolved_options(), cell->state_size(), params});
  }
  return out;
}

}  // namespace rb
