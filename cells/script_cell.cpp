// TorchScript cells: a cell written in PyTorch, saved with torch.jit.script(module).save(PATH), scored as
// `script:PATH` wherever a cell name is accepted. Contract (README "Score your own cell";
// examples/script_cell/linear_attention_conv.py writes one):
//
//   forward(x: Tensor[B, L, D]) -> Tensor[B, L, D]       causal; built for one d_model (attribute `d_model`)
//   state_size(length: int) -> int                        numbers carried per layer per sequence
//   init_state(batch: int) -> List[Tensor]                optional, with step: the state is then audited
//   step(x_t: Tensor[B, D], state: List[Tensor]) -> Tuple[Tensor, List[Tensor]]
//   reset_parameters() -> None                            optional: re-initialise after seeding
//
// Each layer loads its own copy of the file. After loading, the parameters are re-initialised from the run's
// seed: by the module's reset_parameters() when it exports one, otherwise every parameter of rank >= 2 is
// drawn uniform(±1/sqrt(fan_in)) (PyTorch's Linear default) and rank-0/1 parameters (biases, norm scales)
// keep their saved values. Same seed, bit-identical run; different seeds, different weights.
//
// Before a cell is used, a pre-flight check on a private generator (the run's random stream is untouched):
// the output has the input's shape and is finite, and changing future tokens leaves past outputs unchanged.
// A cell that fails is bad input (exit 2): `run` never trains a non-causal entrant.
#include <cmath>
#include <mutex>
#include <sstream>
#include <set>

#include <fmt/format.h>
#include <torch/script.h>
#include <torch/version.h>

#include "cells/causality.h"
#include "cells/cell.h"
#include "core/errors.h"

namespace rb {
namespace {

const char* const kHint = "see README, Score your own cell: the TorchScript contract";

std::string shape_text(const torch::Tensor& t) {
  std::string s;
  for (auto d : t.sizes()) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

// The line of a TorchScript error that says what went wrong: its last non-empty line (the interpreter puts
// the serialized traceback first and "builtins.RuntimeError: ..." last), at most 300 characters.
std::string error_line(const std::string& message) {
  std::string last, line;
  std::istringstream in(message);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t") != std::string::npos) last = line.substr(line.find_first_not_of(" \t"));
  return last.substr(0, 300);
}

class ScriptCell : public Cell {
 public:
  explicit ScriptCell(const CellConfig& cfg) : cfg_(cfg) {
    const std::string where = "TorchScript cell " + cfg.path;
    if (cfg.path.empty()) throw UsageError("a script: cell needs its file (cell spec field 'path')", kHint);
    try {
      module_ = torch::jit::load(cfg.path);
    } catch (const c10::Error& e) {
      throw UsageError(fmt::format("{}: not a TorchScript module this LibTorch ({}.{}) can load: {}", where,
                                   TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                   std::string(e.what_without_backtrace()).substr(0, 300)),
                       kHint);
    }
    for (const auto& [k, v] : cfg.options.items())
      if (k != "content_hash" && k != "state")  // "state" is resolved_options() output, read back by workers
        throw UsageError(where + ": unknown option '" + k + "' (a script cell takes no options)", kHint);
    if (!module_.find_method("forward")) throw UsageError(where + ": no forward(x) method", kHint);
    if (!module_.find_method("state_size"))
      throw UsageError(where + ": no exported state_size(length: int) -> int (mark it @torch.jit.export)", kHint);
    if (module_.hasattr("d_model")) {
      const auto d = module_.attr("d_model");
      if (d.isInt() && d.toInt() != cfg.d_model)
        throw UsageError(fmt::format("{}: built for d_model {}, the run's d_model is {}", where, d.toInt(), cfg.d_model),
                         "write the module for the run's width, or run at its width (--d-model)");
    }
    try {
      const auto s = module_.run_method("state_size", std::max<int64_t>(cfg.max_length, 1));
      if (!s.isInt() || s.toInt() < 0) throw UsageError(where + ": state_size(length) must return a non-negative int", kHint);
      // The planner's bound on a state budget (suite/spec.h, 2^26 numbers a layer): a larger declared state is
      // a mistake, refused here rather than by an assertion after training.
      if (s.toInt() > (int64_t{1} << 26))
        throw UsageError(fmt::format("{}: state_size(length) returned {}, more than 2^26 = 67108864 numbers a layer",
                                     where, s.toInt()),
                         kHint);
      state_size_ = s.toInt();
    } catch (const c10::Error& e) {
      throw UsageError(where + ": state_size(length) failed: " + std::string(e.what_without_backtrace()).substr(0, 300), kHint);
    }
    audited_ = module_.find_method("init_state") && module_.find_method("step");
    int i = 0;
    for (const auto& p : module_.named_parameters(/*recurse=*/true)) {
      std::string name = p.name;
      for (auto& c : name)
        if (c == '.') c = '_';
      register_parameter(fmt::format("p{}_{}", i++, name), p.value);
    }
    reinitialise();
    if (cfg.preflight) preflight(where);
  }

  // A module that raises (its own `raise`, a shape error, a non-tensor result) is the user's cell failing:
  // bad input naming the cell (exit 2), wherever it happens (pre-flight, check-cell, a worker's training).
  torch::Tensor forward(const torch::Tensor& x) override {
    try {
      return module_.forward({x}).toTensor();
    } catch (const c10::Error& e) {  // shape errors, a result that is not a tensor
      throw UsageError(fmt::format("TorchScript cell {}: forward failed on an input of shape {}: {}", cfg_.path,
                                   shape_text(x), error_line(e.what_without_backtrace())),
                       kHint);
    } catch (const std::exception& e) {  // the module's own `raise` (torch::jit::JITException)
      throw UsageError(fmt::format("TorchScript cell {}: forward raised on an input of shape {}: {}", cfg_.path,
                                   shape_text(x), error_line(e.what())),
                       kHint);
    }
  }
  int64_t state_size() const override { return state_size_; }
  nlohmann::json resolved_options() const override {
    return {{"content_hash", cfg_.options.value("content_hash", "")}, {"state", audited_ ? "audited" : "declared"}};
  }
  CellState initial_state(int64_t batch) const override {
    if (!audited_) throw UsageError("TorchScript cell " + cfg_.path + ": no init_state/step, so its state is declared, not audited", kHint);
    CellState st;
    auto& m = const_cast<torch::jit::Module&>(module_);
    for (const auto& t : m.run_method("init_state", batch).toTensorList()) st.tensors.push_back(t);
    return st;
  }
  torch::Tensor step(const torch::Tensor& x_t, CellState& state) override {
    if (!audited_) throw UsageError("TorchScript cell " + cfg_.path + ": no step method", kHint);
    c10::List<torch::Tensor> carried;
    for (const auto& t : state.tensors) carried.push_back(t);
    const auto out = module_.run_method("step", x_t, carried).toTuple();
    state.tensors.clear();
    for (const auto& t : out->elements().at(1).toTensorList()) state.tensors.push_back(t);
    ++state.position;
    return out->elements().at(0).toTensor();
  }
  void train(bool on) override {
    Cell::train(on);
    module_.train(on);
  }

 private:
  void reinitialise() {
    torch::NoGradGuard no_grad;
    if (module_.find_method("reset_parameters")) {
      module_.run_method("reset_parameters");
      return;
    }
    for (const auto& p : module_.parameters(/*recurse=*/true)) {
      if (p.dim() < 2) continue;
      const double fan_in = static_cast<double>(p.numel() / p.size(0));
      const double bound = 1.0 / std::sqrt(fan_in);
      p.uniform_(-bound, bound);
    }
  }

  // Shape, finiteness and causality on a private generator, once per file content and width.
  void preflight(const std::string& where) {
    static std::mutex mu;
    static std::set<std::string> passed;
    const std::string id = cfg_.options.value("content_hash", cfg_.path) + "/" + std::to_string(cfg_.d_model) + "/" +
                           std::to_string(cfg_.max_length);
    {
      std::lock_guard<std::mutex> lock(mu);
      if (passed.count(id)) return;
    }
    torch::NoGradGuard no_grad;
    const bool was_training = is_training();
    module_.eval();
    auto gen = at::detail::createCPUGenerator(12345);
    const int64_t T = 16;
    const auto x = torch::randn({2, T, cfg_.d_model}, gen);
    torch::Tensor y;
    try {
      y = forward(x);
    } catch (const UsageError& e) {
      throw UsageError(e.what(), "is the module built for d_model " + std::to_string(cfg_.d_model) + "?");
    }
    if (y.sizes() != x.sizes())
      throw UsageError(fmt::format("{}: forward returned shape {} for an input of shape {}", where, shape_text(y),
                                   shape_text(x)),
                       kHint);
    if (!torch::isfinite(y).all().item<bool>())
      throw UsageError(where + ": forward returned NaN or infinite values on a random input", kHint);
    const auto c = check_causality([&](const torch::Tensor& in) { return forward(in); },
                                   std::max<int64_t>(T, cfg_.max_length), cfg_.d_model);
    if (!c.causal) throw UsageError(where + ": not causal: " + c.describe(), "a cell may only read the past: mask or shift its mixing");
    module_.train(was_training);
    std::lock_guard<std::mutex> lock(mu);
    passed.insert(id);
  }

  CellConfig cfg_;
  torch::jit::Module module_;
  int64_t state_size_ = 0;
  bool audited_ = false;
};

}  // namespace

std::shared_ptr<Cell> make_script_cell(const CellConfig& config) { return std::make_shared<ScriptCell>(config); }

}  // namespace rb
