// An out-of-tree cell: a per-channel exponential moving average of a projection of the input, read out by
// a gated projection. h_t = a ⊙ h_{t-1} + (1 − a) ⊙ W_in x_t, y_t = W_out (h_t ⊙ σ(W_g x_t)), with a learned
// a = σ(λ) per channel. Its state is the D numbers of h. Registered as "ema" with one line, like the cells
// in recallbench's own cells/ folder; loaded with `recallbench --plugin librb_ema_cell.so ...`.
#include <cells/cell.h>
#include <core/errors.h>
#include <core/options.h>

namespace {

class EmaCell : public rb::Cell {
 public:
  explicit EmaCell(const rb::CellConfig& cfg) : d_(cfg.d_model) {
    rb::OptionReader r("cell ema", cfg.options, nlohmann::json::object());  // no options: unknown ones are errors
    in_ = register_module("in", torch::nn::Linear(torch::nn::LinearOptions(d_, d_).bias(false)));
    gate_ = register_module("gate", torch::nn::Linear(d_, d_));
    out_ = register_module("out", torch::nn::Linear(torch::nn::LinearOptions(d_, d_).bias(false)));
    lambda_ = register_parameter("lambda", torch::linspace(-2.0, 4.0, d_));  // decays from fast to slow
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const auto a = torch::sigmoid(lambda_);
    const auto u = (1 - a) * in_->forward(x);
    std::vector<torch::Tensor> hs;
    auto h = torch::zeros({x.size(0), d_}, x.options());
    for (int64_t t = 0; t < x.size(1); ++t) {
      h = a * h + u.select(1, t);
      hs.push_back(h);
    }
    return out_->forward(torch::stack(hs, 1) * torch::sigmoid(gate_->forward(x)));
  }
  int64_t state_size() const override { return d_; }
  nlohmann::json resolved_options() const override { return nlohmann::json::object(); }
  rb::CellState initial_state(int64_t batch) const override {
    rb::CellState s;
    s.tensors.push_back(torch::zeros({batch, d_}));
    return s;
  }
  torch::Tensor step(const torch::Tensor& x_t, rb::CellState& state) override {
    const auto a = torch::sigmoid(lambda_);
    state.tensors[0] = a * state.tensors[0] + (1 - a) * in_->forward(x_t);
    ++state.position;
    return out_->forward(state.tensors[0] * torch::sigmoid(gate_->forward(x_t)));
  }

 private:
  int64_t d_;
  torch::nn::Linear in_{nullptr}, gate_{nullptr}, out_{nullptr};
  torch::Tensor lambda_;
};

}  // namespace

RB_REGISTER(rb::CellRegistry, ema,
            rb::CellEntry{"ema", "plugin example: gated per-channel exponential moving average (state D)",
                      {{"family", "ema"}}, nlohmann::json::object(),
                      [](const rb::CellConfig& cfg) { return std::make_shared<EmaCell>(cfg); }});
