// `baseconv`: Zoology's BaseConv gated convolution, y = conv(u) ⊙ Linear(u) + u, with the convolution
// an explicit depthwise causal filter of width W (with bias, no activation) over the D channels.
//
// Zoology pairs a short filter (W = 3) with an implicit long one (W = L, state D·L). Here the one
// filter's width is what the state budget sizes: the cell carries the last W−1 inputs of every channel,
// D·(W−1) numbers per layer per sequence, so a budget of 4096 at D = 64 gives W = 65. Without a budget
// W = 3, Zoology's short filter.
//
// Shapes: u {B, T, D} → y {B, T, D}; convolution buffer {B, D, W−1}.
#include "cells/cell.h"
#include "cells/sizing.h"
#include "kernels/impl.h"
#include "core/errors.h"

namespace rb {
namespace {

class BaseConvCell final : public Cell {
 public:
  explicit BaseConvCell(const CellConfig& cfg) {
    // Options, their checks and the sizing to the budget: sizing.cpp beside this file.
    W_ = find_cell_sizing("baseconv")->size(sizing_input(cfg)).dim("kernel_size");
    parse_kernel_impl(cfg.impl);  // UsageError for anything but auto|ref|chunked|fused
    const int64_t D = cfg.d_model;
    proj_ = register_module("proj", torch::nn::Linear(D, D));
    conv_ = register_module("conv", ShortConv(D, W_, /*silu=*/false, cfg.impl));
  }

  torch::Tensor forward(const torch::Tensor& u) override { return conv_->forward(u) * proj_->forward(u) + u; }

  int64_t state_size() const override { return conv_->state_size(); }

  nlohmann::json resolved_options() const override { return {{"kernel_size", W_}}; }

  CellState initial_state(int64_t batch) const override {
    CellState s;
    s.tensors.push_back(conv_->initial_state(batch));
    return s;
  }

  torch::Tensor step(const torch::Tensor& u_t, CellState& state) override {
    ++state.position;
    return conv_->step(u_t, state.tensors[0]) * proj_->forward(u_t) + u_t;
  }

 private:
  int64_t W_ = 0;
  torch::nn::Linear proj_{nullptr};
  ShortConv conv_{nullptr};
};

}  // namespace

RB_REGISTER(CellRegistry, baseconv,
            cell_entry("baseconv", [](const CellConfig& cfg) { return std::make_shared<BaseConvCell>(cfg); }));

}  // namespace rb
