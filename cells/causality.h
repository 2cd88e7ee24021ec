// The causality check every cell passes before it is trained (trainer's resolve_spec, so `plan`, `run` and
// the workers refuse a leaky cell before any compute) and that check-cell reports: for EVERY split point s
// of a sequence of the length the cell will see, the tokens s.. are replaced by fresh random ones, and no
// output before s may move. A leak from any future position u into any earlier output t is caught at the
// split s = t + 1 (generically: a random replacement cancels with probability 0), so a cell that is
// bidirectional only inside aligned blocks or reads one token ahead is refused at any block size. The
// perturbed sequences run in batches beside the unperturbed one, and each is compared
// with that one inside the same forward call (the same batch shape, so the same arithmetic per row). A leak
// is confirmed by evaluating again (kCausalityEvaluations).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <torch/torch.h>

namespace rb {

struct CausalityResult {
  bool causal = true;
  double leak = 0.0;          // the largest change of an output before its split point
  double limit = 0.0;         // what counts as unchanged: 1e-5 × max(1, max |y|)
  int64_t split = -1;         // the split point where the largest change was seen (tokens split.. changed)
  int64_t position = -1;      // the earlier output that moved most there
  int64_t length = 0;         // T of the test sequences
  int64_t splits = 0;         // split points checked (T − 1: all of them)
  int evaluations = 1;        // how many times every split was evaluated (a leak is confirmed by repeating)
  std::string describe() const;  // one line for check-cell and error messages
};

// A leak above the limit is called only when each of this many evaluations of the same inputs shows one:
// rounding that differs from call to call (a multithreaded op's work split) is not a leak; a leak is.
inline constexpr int kCausalityEvaluations = 3;

// Checks `forward` (x {B, T, D} → {B, T, D}) at length T and width D on a private generator; NoGrad, and the
// caller puts the module in eval mode. Throws what forward throws.
CausalityResult check_causality(const std::function<torch::Tensor(const torch::Tensor&)>& forward, int64_t length,
                                int64_t d_model, uint64_t seed = 0xca05a1);

}  // namespace rb
