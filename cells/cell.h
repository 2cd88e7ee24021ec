// Recurrent cells: the interface, and the cell registry.
//
// A cell is the sequence mixer of one block: x {B, T, D} → y {B, T, D}, causal. Every cell reports its
// recurrent state size: the numbers it carries from one token to the next, per layer per sequence,
// convolution buffer included. That number is what batteries match across cells.
//
// Every cell has two paths that compute the same function: `forward` over a whole sequence (training; it
// calls the kernels' promoted implementation via CellConfig::impl), and `step`, one token at a time with
// an explicit carried state (inference). The tests check that they agree and that the carried state holds
// exactly state_size() numbers per sequence, so the reported number is the one the cell really carries.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/registry.h"

namespace rb {

struct CellConfig {
  int64_t d_model = 64;          // residual width D
  int64_t state_budget = 0;      // target state per layer in numbers; 0 = the cell's default sizing
  int64_t max_length = 0;        // longest sequence the cell will see (attention's state grows with it)
  std::string impl = "auto";     // kernel implementation: auto|ref|chunked|fused, or cuda (forward only)
  nlohmann::json options = nlohmann::json::object();  // cell-specific options (see each cell's defaults)
  std::string path;              // a TorchScript cell's file ("script:" names; suite/spec.h prepares it)
  bool preflight = true;         // a TorchScript cell refuses to build when it fails the shape, finiteness or
                                 // causality pre-flight (false: the conformance harness reports it instead)
};

// What a cell carries from one token to the next for a batch of B sequences. `tensors` hold the numbers
// (each with leading dimension B); `position` counts the tokens consumed so far (bookkeeping, not state).
struct CellState {
  std::vector<torch::Tensor> tensors;
  int64_t position = 0;
  // Numbers per sequence: Σ numel / B.
  int64_t numbers_per_sequence() const;
};

class Cell : public torch::nn::Module {
 public:
  // x {B, T, D} → {B, T, D}.
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // Numbers carried from token to token, per layer per sequence (convolution buffer included).
  virtual int64_t state_size() const = 0;
  // The options after defaults and budget sizing were resolved (heads, dims, ...).
  virtual nlohmann::json resolved_options() const = 0;
  // True for cells without any sense of order (softmax attention): the model adds learned positions.
  virtual bool needs_positions() const { return false; }
  // The state before the first token, for `batch` sequences (zeros; attention: an empty KV cache of
  // max_length slots).
  virtual CellState initial_state(int64_t batch) const = 0;
  // One token: x_t {B, D} → y_t {B, D}, advancing `state`. Stepping through a sequence gives what
  // forward() gives (up to rounding).
  virtual torch::Tensor step(const torch::Tensor& x_t, CellState& state) = 0;
};

struct CellEntry {
  std::string name;          // knobs joined by '+', e.g. "diag+conv"
  std::string description;
  nlohmann::json knobs;      // e.g. {"family": "fixed_state", "transition": "diag", "decay": false, "conv": true}:
                             // two cells of one family one knob apart form a contrast (core/knobs.h)
  nlohmann::json defaults;   // every option with its default
  std::function<std::shared_ptr<Cell>(const CellConfig&)> make;
};

using CellRegistry = Registry<CellEntry>;

struct SizingInput;
// The sizing input of a cell's config (cells/sizing.h).
SizingInput sizing_input(const CellConfig& config);
// The registry entry of an in-tree cell whose options and sizing are in its folder's sizing.cpp: its description,
// knobs and defaults from there, `make` from the module's file.
CellEntry cell_entry(const std::string& name, std::function<std::shared_ptr<Cell>(const CellConfig&)> make);

// Builds a cell by name; unknown names or options are UsageErrors that list the valid ones. Names starting
// with "script:" are TorchScript cells loaded from config.path (cells/script_cell.cpp).
std::shared_ptr<Cell> make_cell(const std::string& name, const CellConfig& config);
std::shared_ptr<Cell> make_script_cell(const CellConfig& config);

// Depthwise causal convolution of width W over time on x {B, T, C}, followed by SiLU (as fla's
// ShortConvolution and Mamba's conv1d; `silu` false: no activation, as Zoology's BaseConv). Carries W-1
// inputs per channel as state.
class ShortConvImpl : public torch::nn::Module {
 public:
  // `impl` selects the short_conv kernel implementation (auto|ref|chunked|fused).
  ShortConvImpl(int64_t channels, int64_t width = 4, bool silu = true, std::string impl = "auto");
  torch::Tensor forward(const torch::Tensor& x);
  int64_t state_size() const { return channels_ * (width_ - 1); }
  // The carried buffer: the last W-1 inputs, {B, C, W-1}, zeros before the first token.
  torch::Tensor initial_state(int64_t batch) const;
  // x_t {B, C} → y_t {B, C}; shifts `buffer` {B, C, W-1} by one token.
  torch::Tensor step(const torch::Tensor& x_t, torch::Tensor& buffer);

 private:
  int64_t channels_, width_;
  bool silu_;
  std::string impl_;
  torch::nn::Conv1d conv_{nullptr};
};
TORCH_MODULE(ShortConv);

}  // namespace rb
