// mqar: multi-query associative recall, faithful to Zoology's generator
// (zoology/data/multiquery_ar.py; ../shared/reference/mqar.md §1).
//
// Vocabulary V: token 0 is filler; keys are 1 .. V/2-1; values are V/2 .. V-1.
// A sequence of length L with K pairs:
//   positions 0 .. 2K-1      context  k0 v0 k1 v1 ... (K distinct keys, K distinct values)
//   positions 2K .. L-1      (L-2K)/2 query slots at even offsets; key j is queried at slot g_j,
//                            i.e. at position 2K + 2·g_j, with the K slots drawn without replacement
//                            from p(i) ∝ (i+1)^(a-1) (power law, a = 0.01: early slots favoured).
//   labels                   label[2K + 2·g_j] = v_j (at the query key the model must emit its value);
//                            every other position is ignored (-100): "sparse" supervision.
// Filler after the context is 0 (Zoology's paper configs) or, with filler=random, uniform in [0, V).
//
// Worked example, V=32, L=16, K=2 (the generator's own RNG, so the ids differ from Zoology's):
//   inputs  9 25 6 29 | 6 0 9 0 0 0 0 0 0 0 0 0
//   labels  . .  . .  | 29 . 25 . . . . . . . . .
//   (pairs 9→25, 6→29; key 6 queried at slot 0, key 9 at slot 1)
//
// Options: pairs K (8), length L (64), vocab V (256), power_a a (0.01; 1 = uniform slots),
// filler zero|random (zero).
#include <cmath>
#include <numeric>

#include "suite/core/errors.h"
#include "suite/core/options.h"
#include "suite/core/rng.h"
#include "tasks/task.h"

namespace rb {
namespace {

// K distinct integers from [lo, hi), uniformly, in random order (partial Fisher–Yates).
std::vector<int64_t> distinct(Rng& rng, int64_t lo, int64_t hi, int64_t k) {
  std::vector<int64_t> pool(static_cast<size_t>(hi - lo));
  std::iota(pool.begin(), pool.end(), lo);
  for (int64_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(static_cast<int64_t>(pool.size()) - i)]);
  pool.resize(static_cast<size_t>(k));
  return pool;
}

// K distinct slots drawn without replacement with weights w (successive renormalised draws, as numpy's
// choice(replace=False, p=...)).
std::vector<int64_t> weighted_distinct(Rng& rng, std::vector<double> w, int64_t k) {
  std::vector<int64_t> out;
  for (int64_t j = 0; j < k; ++j) {
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    double u = rng.uniform() * total;
    int64_t pick = static_cast<int64_t>(w.size()) - 1;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] <= 0) continue;
      if (u < w[i]) {
        pick = static_cast<int64_t>(i);
        break;
      }
      u -= w[i];
    }
    while (w[static_cast<size_t>(pick)] <= 0) --pick;  // guard against rounding at the tail
    out.push_back(pick);
    w[static_cast<size_t>(pick)] = 0;
  }
  return out;
}

nlohmann::json mqar_defaults() {
  return {{"pairs", 8}, {"length", 64}, {"vocab", 256}, {"power_a", 0.01}, {"filler", "zero"}};
}

class Mqar final : public Task {
 public:
  explicit Mqar(const nlohmann::json& given) : reader_("task mqar", given, mqar_defaults()) {
    pairs_ = reader_.integer("pairs");
    length_ = reader_.integer("length");
    vocab_ = reader_.integer("vocab");
    power_a_ = reader_.number("power_a");
    random_filler_ = reader_.text("filler") == "random";
    RB_CHECK_INPUT(reader_.text("filler") == "zero" || random_filler_,
                   "task mqar: option 'filler' must be zero or random, got " + reader_.text("filler"));
    RB_CHECK_INPUT(pairs_ >= 1, "task mqar: pairs must be ≥ 1, got " + std::to_string(pairs_));
    RB_CHECK_INPUT(length_ % 2 == 0, "task mqar: length must be even, got " + std::to_string(length_));
    RB_CHECK_INPUT(4 * pairs_ <= length_, "task mqar: need 4·pairs ≤ length (context plus one query slot per "
                                          "pair), got pairs " + std::to_string(pairs_) + ", length " +
                                              std::to_string(length_));
    RB_CHECK_INPUT(vocab_ / 2 - 1 >= pairs_ && vocab_ - vocab_ / 2 >= pairs_,
                   "task mqar: vocab " + std::to_string(vocab_) + " too small for " + std::to_string(pairs_) +
                       " distinct keys and values (need vocab ≥ 2·pairs + 2)");
    reader_.require_range("power_a", 1e-6, 1.0);
  }

  const nlohmann::json& options() const override { return reader_.resolved(); }
  int64_t vocab_size() const override { return vocab_; }
  int64_t length() const override { return length_; }
  double capacity_bits() const override { return pairs_ * std::log2(static_cast<double>(vocab_ - vocab_ / 2)); }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    const int64_t context = 2 * pairs_;
    const int64_t slots = (length_ - context) / 2;
    // A distance cap (curriculum) restricts the slots a query may use; at least K slots stay open.
    int64_t open = slots;
    if (difficulty.max_distance) open = std::clamp<int64_t>((*difficulty.max_distance) / 2, pairs_, slots);
    std::vector<double> weights(static_cast<size_t>(slots), 0.0);
    for (int64_t i = 0; i < open; ++i) weights[i] = power_a_ * std::pow(static_cast<double>(i + 1), power_a_ - 1.0);

    Batch b;
    b.n = n;
    b.length = length_;
    b.inputs.assign(static_cast<size_t>(n * length_), 0);
    b.labels.assign(static_cast<size_t>(n * length_), kIgnore);
    Rng rng(seed);
    Rng filler(derive_seed(seed, "filler"));  // separate stream: the filler choice never changes the pairs
    for (int64_t row = 0; row < n; ++row) {
      int64_t* in = b.inputs.data() + row * length_;
      int64_t* lab = b.labels.data() + row * length_;
      const auto keys = distinct(rng, 1, vocab_ / 2, pairs_);
      const auto values = distinct(rng, vocab_ / 2, vocab_, pairs_);
      for (int64_t j = 0; j < pairs_; ++j) {
        in[2 * j] = keys[j];
        in[2 * j + 1] = values[j];
      }
      const auto gaps = weighted_distinct(rng, weights, pairs_);
      for (int64_t j = 0; j < pairs_; ++j) {
        const int64_t pos = context + 2 * gaps[j];
        in[pos] = keys[j];
        lab[pos] = values[j];
      }
      if (random_filler_) {
        for (int64_t t = context; t < length_; ++t)
          if (in[t] == 0) in[t] = filler.below(vocab_);
      }
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    std::string out;
    for (int64_t t = 0; t < batch.length; ++t) {
      const int64_t tok = batch.at(row, t);
      std::string cell = std::to_string(tok);
      if (t < 2 * pairs_) cell = (t % 2 == 0 ? "k" : "v") + cell;
      if (batch.label(row, t) != kIgnore) cell = "Q" + cell + "->" + std::to_string(batch.label(row, t));
      else if (t >= 2 * pairs_ && tok == 0) cell = ".";
      out += (t ? " " : "") + cell;
    }
    return out;
  }

 private:
  OptionReader reader_;
  int64_t pairs_, length_, vocab_;
  double power_a_;
  bool random_filler_;
};

}  // namespace

RB_REGISTER(TaskRegistry, mqar,
            TaskEntry{"mqar", "multi-query associative recall (Zoology): K key-value pairs, then K queries",
                      mqar_defaults(),
                      [](const nlohmann::json& o) { return std::make_unique<Mqar>(o); }});

}  // namespace rb
