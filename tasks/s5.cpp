// s5: the S_5 word problem, a state-tracking guardrail: read a sequence of permutations of 5 elements
// and, at every position, emit the composition of all permutations so far.
//
// Tokens: the n! permutations of {0..n-1} (n = 5: 120 tokens), numbered in lexicographic order of their
// one-line notation (token 0 = identity [0 1 2 3 4], token 1 = [0 1 2 4 3], ..., token 119 = [4 3 2 1 0]).
// A sequence of length L is L uniform random permutations g_1 .. g_L. The label at position t (depth
// t+1) is the prefix composition p_{t+1}, where p_0 = identity and p_k = g_k ∘ p_{k-1}, i.e.
// p_k(i) = g_k(p_{k-1}(i)): apply g_1 first, then g_2, and so on. Every position is labelled; held-out
// accuracy is also reported per depth (breakdown "depth", depth = t+1), since it falls with depth for a
// model that cannot track state.
//
// Worked example, n = 5, L = 4:
//   inputs  1 1 6 0      (1 = [0 1 2 4 3] swaps 3,4; 6 = [0 2 1 3 4] swaps 1,2; 0 = identity)
//   labels  1 0 6 6      ([0 1 2 4 3], then the swap twice = identity, then [0 2 1 3 4], unchanged)
//
// Option `elements` n in 2..5 gives the S_n word problem (S_3: 6 tokens, for quick checks).
// Curriculum difficulty: length L' < L generates shorter sequences; max_distance is ignored.
//
// Measured (width 64, 2 layers, L = 16, 2000 steps of batch 64, seeds 0-1): on S_5, attention,
// rank1+decay+conv and diag+conv all reach 1.00 at depth 1 and chance (~1/120) at depths 2-16; on S_3
// (elements=3) attention holds 1.00 to depth 3 and falls to ~0.33 by depth 7, rank1+decay+conv holds
// 1.00 to depth 4 and falls to ~0.2 by depth 16.
//
// Options: length L (32), elements n (5).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.h"
#include "core/options.h"
#include "core/rng.h"
#include "tasks/task.h"

namespace rb {
namespace {

nlohmann::json s5_defaults() { return {{"length", 32}, {"elements", 5}}; }

class S5 final : public Task {
 public:
  explicit S5(const nlohmann::json& given) : reader_("task s5", given, s5_defaults()) {
    length_ = reader_.integer("length");
    n_ = reader_.integer("elements");
    RB_CHECK_INPUT(length_ >= 1, "task s5: length must be ≥ 1, got " + std::to_string(length_));
    reader_.require_range("elements", 2, 5);
    // All permutations in lexicographic order, and the composition table compose_[g][p] = id(g ∘ p).
    std::vector<int> perm(static_cast<size_t>(n_));
    std::iota(perm.begin(), perm.end(), 0);
    do perms_.push_back(perm);
    while (std::next_permutation(perm.begin(), perm.end()));
    const int64_t count = static_cast<int64_t>(perms_.size());
    compose_.assign(static_cast<size_t>(count * count), 0);
    for (int64_t g = 0; g < count; ++g)
      for (int64_t p = 0; p < count; ++p) {
        std::vector<int> r(static_cast<size_t>(n_));
        for (int64_t i = 0; i < n_; ++i) r[i] = perms_[g][perms_[p][i]];
        compose_[g * count + p] = index_of(r);
      }
  }

  const nlohmann::json& options() const override { return reader_.resolved(); }
  int64_t vocab_size() const override { return static_cast<int64_t>(perms_.size()); }
  std::optional<double> chance() const override { return 1.0 / static_cast<double>(perms_.size()); }
  int64_t length() const override { return length_; }
  std::string breakdown_name() const override { return "depth"; }
  int64_t breakdown_group(int64_t t) const override { return t + 1; }

  // id(g ∘ p) for permutation ids g, p.
  int64_t compose(int64_t g, int64_t p) const { return compose_[g * vocab_size() + p]; }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    int64_t length = length_;
    if (difficulty.length && *difficulty.length < length_) length = std::max<int64_t>(1, *difficulty.length);
    Batch b = Batch::blank(n, length);
    Rng rng(seed);
    for (int64_t row = 0; row < n; ++row) {
      int64_t state = 0;  // identity
      for (int64_t t = 0; t < length; ++t) {
        const int64_t g = rng.below(vocab_size());
        state = compose(g, state);
        b.inputs[row * length + t] = g;
        b.labels[row * length + t] = state;
      }
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    std::string out;
    for (int64_t t = 0; t < batch.length; ++t)
      out += (t ? " " : "") + word(batch.at(row, t)) + "->" + word(batch.label(row, t));
    return out;
  }

 private:
  int64_t index_of(const std::vector<int>& p) const {
    return std::lower_bound(perms_.begin(), perms_.end(), p) - perms_.begin();
  }
  // One-line notation, e.g. "01243".
  std::string word(int64_t id) const {
    std::string s;
    for (int v : perms_[static_cast<size_t>(id)]) s += static_cast<char>('0' + v);
    return s;
  }

  OptionReader reader_;
  int64_t length_, n_;
  std::vector<std::vector<int>> perms_;
  std::vector<int64_t> compose_;
};

}  // namespace

RB_REGISTER(TaskRegistry, s5,
            TaskEntry{"s5", "S_5 word problem: label = composition of the permutations so far (state tracking)",
                      s5_defaults(), [](const nlohmann::json& o) { return std::make_unique<S5>(o); }});

}  // namespace rb
