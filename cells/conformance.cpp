// The conformance harness. See conformance.h.
#include "cells/conformance.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (in fmt/format.h before fmt 11)
#include <torch/torch.h>

#include "cells/catalog.h"
#include "cells/causality.h"
#include "core/knobs.h"
#include "cells/cell.h"
#include "core/errors.h"

namespace rb {
namespace {

CellConfig config_of(const ConformanceOptions& o) {
  CellConfig cfg;
  cfg.d_model = o.d_model;
  cfg.state_budget = o.state_budget;
  cfg.max_length = o.length;
  cfg.impl = o.impl;
  cfg.options = o.options;
  cfg.path = o.path;
  cfg.preflight = false;  // the harness reports what the pre-flight would refuse
  return cfg;
}

std::shared_ptr<Cell> build(const ConformanceOptions& o, uint64_t seed) {
  torch::manual_seed(seed);
  return make_cell(o.cell, config_of(o));
}

double max_abs(const torch::Tensor& t) { return t.numel() ? t.abs().max().item<double>() : 0.0; }

}  // namespace

std::vector<ConformanceCheck> check_cell(const ConformanceOptions& o) {
  std::vector<ConformanceCheck> out;
  const auto add = [&](const std::string& name, bool pass, const std::string& figure, const std::string& caveat = "") {
    out.push_back({name, pass, figure, caveat});
  };
  const int64_t T = std::max<int64_t>(o.length, 4), D = o.d_model;
  auto cell = build(o, o.seed);
  if (o.check_budget && o.state_budget > 0) {  // first: the budget is checked before anything is spent
    const int64_t state = cell->state_size();
    const double over = static_cast<double>(state) / static_cast<double>(o.state_budget) - 1.0;
    add("budget", over <= 0.10,
        fmt::format("state {} numbers per layer, budget {}{}", state, o.state_budget,
                    over > 0 ? fmt::format(" ({:.0f}% over{})", 100.0 * over, over > 0.10 ? ": not a matched-state entrant" : "")
                             : ""));
  }
  cell->train();
  auto gen = at::detail::createCPUGenerator(o.seed + 7);
  auto x = torch::randn({2, T, D}, gen).requires_grad_(true);
  auto y = cell->forward(x);
  const bool shape_ok = y.sizes() == x.sizes();
  add("shape", shape_ok, fmt::format("output [{}] for input [{}]", fmt::join(y.sizes(), ", "), fmt::join(x.sizes(), ", ")));
  if (!shape_ok) return out;
  const bool finite = torch::isfinite(y).all().item<bool>();
  add("finite", finite, finite ? "every output finite" : "NaN or infinite outputs");
  {
    cell->eval();
    const auto c = check_causality([&](const torch::Tensor& in) { return cell->forward(in); }, T, D, o.seed + 11);
    cell->train();
    if (reads_whole_sequence(cell_knobs(o.cell)))  // a denoiser declares that it reads the future: check it does
      add("causal", !c.causal, "reads the future, as its registration declares: " + c.describe(),
          "a bidirectional cell: only batteries whose model sets bidirectional run it");
    else
      add("causal", c.causal, c.describe());
  }
  {
    y.pow(2).sum().backward();
    std::string missing;
    int64_t params = 0;
    bool ok = x.grad().defined() && torch::isfinite(x.grad()).all().item<bool>();
    for (const auto& p : cell->named_parameters()) {
      ++params;
      if (!p.value().grad().defined() || !torch::isfinite(p.value().grad()).all().item<bool>()) {
        ok = false;
        if (missing.size() < 200) missing += (missing.empty() ? "" : ", ") + p.key();
      }
    }
    add("gradients", ok, ok ? fmt::format("{} parameters and the input: finite gradients", params)
                            : "no or non-finite gradient for: " + (missing.empty() ? std::string("the input") : missing));
  }
  // The step path: carried numbers against state_size(), outputs against forward.
  {
    torch::NoGradGuard no_grad;
    cell->eval();
    const int64_t B = 3;
    const auto xs = torch::randn({B, T, D}, gen);
    const auto ys = cell->forward(xs);
    CellState state;
    bool has_step = true;
    try {
      state = cell->initial_state(B);
    } catch (const UsageError& e) {
      has_step = false;
      add("state", true, fmt::format("{} numbers declared, not audited ({})", cell->state_size(), e.what()),
          "the state size is declared, not audited");
      add("step", true, "skipped: no step path", "the step path is not checked");
    }
    if (has_step) {
      const int64_t before = state.numbers_per_sequence();
      std::vector<int64_t> numel_before;
      for (const auto& t : state.tensors) numel_before.push_back(t.numel());
      std::vector<torch::Tensor> steps;
      for (int64_t t = 0; t < T; ++t) steps.push_back(cell->step(xs.select(1, t), state));
      bool same_tensors = state.tensors.size() == numel_before.size();
      for (size_t i = 0; same_tensors && i < state.tensors.size(); ++i) same_tensors = state.tensors[i].numel() == numel_before[i];
      const int64_t after = state.numbers_per_sequence();
      add("state", before == cell->state_size() && after == cell->state_size() && same_tensors,
          fmt::format("state_size() {}; carried {} numbers per sequence before the sequence, {} after{}", cell->state_size(),
                      before, after, same_tensors ? "" : " (the carried tensors changed size)"));
      // fp32, and the chunked/fused kernels sum in another order than the token loop.
      const double err = max_abs(torch::stack(steps, 1) - ys), limit = 2e-4 * std::max(1.0, max_abs(ys));
      add("step", err <= limit, fmt::format("step path vs forward: {:.3g} (limit {:.3g})", err, limit));
    }
  }
  {
    torch::NoGradGuard no_grad;
    const auto xd = torch::randn({2, T, D}, gen);
    auto a = build(o, o.seed), b = build(o, o.seed), c = build(o, o.seed + 1);
    a->eval(), b->eval(), c->eval();
    const auto ya = a->forward(xd), yb = b->forward(xd), yc = c->forward(xd);
    const bool identical = torch::equal(ya, yb), differs = !torch::equal(ya, yc);
    add("determinism", identical && differs,
        fmt::format("same seed: {}; seed {} vs {}: {}", identical ? "bit-identical" : "DIFFERENT outputs", o.seed,
                    o.seed + 1, differs ? "different outputs" : "IDENTICAL outputs (the seed does not reach the weights)"));
  }
  return out;
}

std::string check_caveats(const std::vector<ConformanceCheck>& checks) {
  std::string out;
  for (const auto& k : checks)
    if (k.pass && !k.caveat.empty()) out += (out.empty() ? "" : "; ") + k.caveat;
  return out;
}

std::string print_checks(const std::vector<ConformanceCheck>& checks) {
  std::string failed;
  for (const auto& k : checks) {
    fmt::print("  {:<12} {}  {}\n", k.name, k.pass ? "pass" : "FAIL", k.figure);
    if (!k.pass) failed += (failed.empty() ? "" : ", ") + k.name;
  }
  return failed;
}

}  // namespace rb
