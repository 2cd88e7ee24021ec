// collision: recall with two-token keys whose tokens collide, so that no single token names a key and
// retrieval needs two layers (one to combine the key's two tokens, one to look the combination up).
//
// Vocabulary V: key tokens 1 .. V/2-1, values V/2 .. V-1, 0 filler. With K pairs (K even, ≥ 4) and
// m = K/2, draw 2m distinct key tokens A_0..A_{m-1}, B_0..B_{m-1} and K distinct values. Key j is the
// two-token word (A_i, B_{(i + j mod 2) mod m}) with i = j div 2, so every first token A_i starts exactly
// two keys and every second token B_i ends exactly two keys (a cycle): neither token alone determines
// the value. A sequence of length L:
//   positions 0 .. 3K-1       context: K triples "a b v" in random order
//   positions 3K .. L-2K-1    filler 0
//   positions L-2K .. L-1     queries: each key's two tokens "a b" once, keys in random order
//   labels                    at the second token of each query: that key's value; elsewhere -100
//
// Worked example, V=32, L=24, K=4 (m=2; A = 5, 9; B = 12, 3; keys (5,12) (5,3) (9,3) (9,12)):
//   inputs  9 3 20 | 5 12 27 | 9 12 16 | 5 3 30 | 0 0 0 0 | 5 3 | 9 12 | 9 3 | 5 12
//   labels  . . .  | .  . .  | .  . .  | . . .  | . . . . | . 30 | . 16 | . 20 | . 27
//
// Curriculum difficulty: length L' < L shortens the filler (at least 5K); max_distance is ignored.
//
// Options: pairs K (8), length L (64), vocab V (256).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.h"
#include "core/options.h"
#include "tasks/sampling.h"
#include "tasks/task.h"

namespace rb {
namespace {

nlohmann::json collision_defaults() { return {{"pairs", 8}, {"length", 64}, {"vocab", 256}}; }

class Collision final : public Task {
 public:
  explicit Collision(const nlohmann::json& given) : reader_("task collision", given, collision_defaults()) {
    pairs_ = reader_.integer("pairs");
    length_ = reader_.integer("length");
    vocab_ = reader_.integer("vocab");
    const std::string w = "task collision: ";
    RB_CHECK_INPUT(pairs_ >= 4 && pairs_ % 2 == 0,
                   w + "pairs must be even and ≥ 4 (keys share tokens in pairs), got " + std::to_string(pairs_));
    RB_CHECK_INPUT(5 * pairs_ <= length_, w + "need 5·pairs ≤ length (3 tokens per pair, 2 per query), got pairs " +
                                              std::to_string(pairs_) + ", length " + std::to_string(length_));
    RB_CHECK_INPUT(vocab_ / 2 - 1 >= pairs_ && vocab_ - vocab_ / 2 >= pairs_,
                   w + "vocab " + std::to_string(vocab_) + " too small for " + std::to_string(pairs_) +
                       " key tokens and values (need vocab ≥ 2·pairs + 2)");
  }

  const nlohmann::json& options() const override { return reader_.resolved(); }
  int64_t vocab_size() const override { return vocab_; }
  int64_t length() const override { return length_; }
  double capacity_bits() const override { return pairs_ * std::log2(static_cast<double>(vocab_ - vocab_ / 2)); }
  std::optional<double> chance() const override { return 1.0 / static_cast<double>(vocab_ - vocab_ / 2); }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    int64_t length = length_;
    if (difficulty.length && *difficulty.length < length_) length = std::max(*difficulty.length, 5 * pairs_);
    const int64_t m = pairs_ / 2, query_start = length - 2 * pairs_;
    Batch b = Batch::blank(n, length);
    Rng rng(seed);
    for (int64_t row = 0; row < n; ++row) {
      int64_t* in = b.inputs.data() + row * length;
      int64_t* lab = b.labels.data() + row * length;
      const auto tokens = sample_distinct(rng, 1, vocab_ / 2, 2 * m);  // A = tokens[0, m), B = tokens[m, 2m)
      const auto values = sample_distinct(rng, vocab_ / 2, vocab_, pairs_);
      std::vector<int64_t> context(static_cast<size_t>(pairs_)), queries(static_cast<size_t>(pairs_));
      std::iota(context.begin(), context.end(), 0);
      std::iota(queries.begin(), queries.end(), 0);
      shuffle_in_place(rng, context);
      shuffle_in_place(rng, queries);
      const auto first = [&](int64_t j) { return tokens[j / 2]; };
      const auto second = [&](int64_t j) { return tokens[m + (j / 2 + j % 2) % m]; };
      for (int64_t s = 0; s < pairs_; ++s) {
        const int64_t j = context[s];
        in[3 * s] = first(j);
        in[3 * s + 1] = second(j);
        in[3 * s + 2] = values[j];
      }
      for (int64_t s = 0; s < pairs_; ++s) {
        const int64_t j = queries[s], pos = query_start + 2 * s;
        in[pos] = first(j);
        in[pos + 1] = second(j);
        lab[pos + 1] = values[j];
      }
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    const int64_t query_start = batch.length - 2 * pairs_;
    std::string out;
    for (int64_t t = 0; t < batch.length; ++t) {
      const int64_t tok = batch.at(row, t);
      std::string cell = std::to_string(tok);
      if (t < 3 * pairs_) {
        const int64_t r = t % 3;
        cell = (r == 0 ? "(" + cell : r == 1 ? cell + ")" : "v" + cell);
      } else if (t < query_start) {
        cell = ".";
      } else if ((t - query_start) % 2 == 0) {
        cell = "Q(" + cell;
      } else {
        cell = cell + ")->" + std::to_string(batch.label(row, t));
      }
      out += (t ? " " : "") + cell;
      if (t == 3 * pairs_ - 1 || t == query_start - 1) out += " |";
    }
    return out;
  }

 private:
  OptionReader reader_;
  int64_t pairs_, length_, vocab_;
};

}  // namespace

RB_REGISTER(TaskRegistry, collision,
            TaskEntry{"collision", "two-token keys sharing tokens with other keys: retrieval needs two layers",
                      collision_defaults(),
                      [](const nlohmann::json& o) { return std::make_unique<Collision>(o); }});

}  // namespace rb
