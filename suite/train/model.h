// The model wrapper every cell is trained in:
//   embedding (+ learned positions when the cell needs them)
//   → layers × (RMS-free LayerNorm → cell → residual → LayerNorm → MLP → residual)
//   → LayerNorm → head tied to the embedding.
#pragma once

#include <torch/torch.h>

#include "cells/cell.h"
#include "suite/spec.h"

namespace rb {

class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(std::shared_ptr<Cell> cell, int64_t d_model, bool mlp);
  torch::Tensor forward(const torch::Tensor& x);  // {B, T, D} → {B, T, D}
  const Cell& cell() const { return *cell_; }

 private:
  std::shared_ptr<Cell> cell_;
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(Block);

class RecallModelImpl : public torch::nn::Module {
 public:
  RecallModelImpl(const RunSpec& spec, int64_t vocab, int64_t max_length);
  // tokens {B, T} (int64) → final hidden states {B, T, D}.
  torch::Tensor hidden(const torch::Tensor& tokens);
  // h {N, D} → logits {N, vocab}.
  torch::Tensor logits(const torch::Tensor& h);
  // Recurrent state per layer (the first layer's cell; all layers are equal).
  int64_t state_size() const { return blocks_.front()->cell().state_size(); }
  nlohmann::json cell_options() const { return blocks_.front()->cell().resolved_options(); }

 private:
  torch::nn::Embedding embed_{nullptr}, pos_{nullptr};
  std::vector<Block> blocks_;
  torch::nn::LayerNorm norm_f_{nullptr};
};
TORCH_MODULE(RecallModel);

}  // namespace rb
