#include "suite/train/model.h"

namespace rb {

BlockImpl::BlockImpl(std::shared_ptr<Cell> cell, int64_t d_model, bool mlp) : cell_(std::move(cell)) {
  register_module("cell", cell_);
  norm1_ = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
  if (mlp) {
    norm2_ = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model})));
    fc1_ = register_module("fc1", torch::nn::Linear(d_model, 4 * d_model));
    fc2_ = register_module("fc2", torch::nn::Linear(4 * d_model, d_model));
  }
}

torch::Tensor BlockImpl::forward(const torch::Tensor& x) {
  auto h = x + cell_->forward(norm1_->forward(x));
  if (fc1_) h = h + fc2_->forward(torch::gelu(fc1_->forward(norm2_->forward(h))));
  return h;
}

RecallModelImpl::RecallModelImpl(const RunSpec& spec, int64_t vocab, int64_t max_length) {
  const int64_t D = spec.model.d_model;
  embed_ = register_module("embed", torch::nn::Embedding(vocab, D));
  torch::nn::init::normal_(embed_->weight, 0.0, 0.02);
  CellConfig cfg;
  cfg.d_model = D;
  cfg.state_budget = spec.model.state_budget;
  cfg.max_length = max_length;
  cfg.impl = spec.train.impl;
  cfg.options = spec.cell.options;
  cfg.path = spec.cell.path;
  for (int64_t i = 0; i < spec.model.layers; ++i) {
    auto cell = make_cell(spec.cell.name, cfg);
    blocks_.push_back(register_module("block" + std::to_string(i), Block(cell, D, spec.model.mlp)));
  }
  if (blocks_.front()->cell().needs_positions()) {
    pos_ = register_module("pos", torch::nn::Embedding(max_length, D));
    torch::nn::init::normal_(pos_->weight, 0.0, 0.02);
  }
  norm_f_ = register_module("norm_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({D})));
}

torch::Tensor RecallModelImpl::hidden(const torch::Tensor& tokens) {
  auto h = embed_->forward(tokens);  // {B, T, D}
  if (pos_) h = h + pos_->forward(torch::arange(tokens.size(1), tokens.options())).unsqueeze(0);
  for (auto& block : blocks_) h = block->forward(h);
  return norm_f_->forward(h);
}

torch::Tensor RecallModelImpl::logits(const torch::Tensor& h) {
  return torch::matmul(h, embed_->weight.t());  // tied head
}

}  // namespace rb
