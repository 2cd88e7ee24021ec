#include "cells/causality.h"

#include <algorithm>

#include <fmt/format.h>

#include "cells/torch_threads.h"

namespace rb {

std::string CausalityResult::describe() const {
  if (causal)
    return fmt::format("changing tokens s.. at every split s of {} moved no earlier output by more than {:.3g} (limit "
                       "{:.3g})",
                       length, leak, limit);
  return fmt::format("changing tokens {}..{} moved the output at position {} by {:.3g} (limit {:.3g}{}): it reads the "
                     "future",
                     split, length - 1, position, leak, limit,
                     evaluations > 1 ? fmt::format("; at least this much in each of {} evaluations", evaluations) : "");
}

namespace {

// One evaluation of every split point: the largest change of an output before its split.
CausalityResult measure(const std::function<torch::Tensor(const torch::Tensor&)>& forward, int64_t T, int64_t D,
                        uint64_t seed) {
  CausalityResult r;
  r.length = T;
  auto gen = at::detail::createCPUGenerator(seed);
  const auto x = torch::randn({1, T, D}, gen);
  // Batches of up to 16 perturbed sequences (and the unperturbed one first), bounded in memory for long T.
  const int64_t chunk = std::clamp<int64_t>(4096 / T, 1, 16);
  double scale = 1.0;
  for (int64_t s0 = 1; s0 < T; s0 += chunk) {
    const int64_t n = std::min(chunk, T - s0);
    auto xb = x.expand({n + 1, T, D}).clone();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = s0 + i;
      xb[i + 1].narrow(0, s, T - s).copy_(torch::randn({T - s, D}, gen));
    }
    const auto y = forward(xb);
    scale = std::max(scale, y[0].abs().max().item<double>());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = s0 + i;
      const auto diff = (y[i + 1].narrow(0, 0, s) - y[0].narrow(0, 0, s)).abs().amax(1);  // per position
      const auto worst = diff.argmax().item<int64_t>();
      const double leak = diff[worst].item<double>();
      if (leak > r.leak) {
        r.leak = leak;
        r.split = s;
        r.position = worst;
      }
    }
    r.splits += n;
  }
  r.limit = 1e-5 * scale;
  r.causal = r.leak <= r.limit;
  return r;
}

}  // namespace

CausalityResult check_causality(const std::function<torch::Tensor(const torch::Tensor&)>& forward, int64_t length,
                                int64_t d_model, uint64_t seed) {
  torch::NoGradGuard no_grad;
  // At one thread, as the trainer runs, for every caller (the trainer, check-cell, a TorchScript cell's load):
  // a pool's split of a reduction can move an early output's rounding from call to call on a loaded machine.
  // Seen once in CI-like load: diag at length 16, 6.3e-5 against a limit of 1.8e-5 in each of 3 evaluations.
  const TorchThreadScope one_thread(1);
  const int64_t T = std::max<int64_t>(length, 2);
  // A leak is structural: the same inputs move the same earlier output on every evaluation. Rounding is not
  // always: a multithreaded GEMM or elementwise op may split its work differently from call to call (pip's
  // MKL LibTorch on a loaded machine: 2 of 80 `plan --battery smoke` calls moved an early output of
  // diag+decay+conv, whose per-head RMS norm magnifies a near-zero output's rounding, by 2-3e-5 relative).
  // So a leak above the limit is confirmed by evaluating again, and called only when every evaluation sees one.
  CausalityResult r;
  for (int attempt = 1; attempt <= kCausalityEvaluations; ++attempt) {
    auto a = measure(forward, T, d_model, seed);
    a.evaluations = attempt;
    if (a.causal) return a;
    if (attempt == 1 || a.leak < r.leak) r = a;  // the smallest leak seen: what every evaluation showed
    r.evaluations = attempt;
  }
  return r;
}

}  // namespace rb
