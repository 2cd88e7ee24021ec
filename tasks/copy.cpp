// copy: read a random string, a separator, then write the string again (Jelassi et al., "Repeat After
// Me", 2024): a fixed-state model must hold the whole string, so accuracy falls once the string's
// information exceeds its state.
//
// Vocabulary V: 0 padding, 1 separator, 2 .. V-1 the alphabet. A sequence of length L with a string of
// n tokens (n uniform in [min_string_length, string_length] per sequence; fixed by default):
//   positions 0 .. n-1        the string s_0 .. s_{n-1}, uniform over the alphabet
//   position  n               the separator
//   positions n+1 .. 2n       the string again (the model reads its own expected output: teacher forcing)
//   positions 2n+1 .. L-1     padding 0
//   labels                    label[n + i] = s_i for i in [0, n): at the separator and at each copied
//                             token, the next string token; everything else -100
//
// Worked example, V=8, L=10, n=3:
//   inputs  4 7 2 1 4 7 2 0 0 0
//   labels  . . . 4 7 2 . . . .
//
// Curriculum difficulty: length L' < L shortens the string to at most (L'-1)/2; max_distance D (the
// distance between a token and its copy is n+1) caps the string at D-1 tokens.
//
// Options: length L (64), string_length n (24), min_string_length (0 = string_length), vocab V (32).
#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/options.h"
#include "core/rng.h"
#include "tasks/task.h"

namespace rb {
namespace {

constexpr int64_t kSeparator = 1, kFirstSymbol = 2;

nlohmann::json copy_defaults() {
  return {{"length", 64}, {"string_length", 24}, {"min_string_length", 0}, {"vocab", 32}};
}

class Copy final : public Task {
 public:
  explicit Copy(const nlohmann::json& given) : reader_("task copy", given, copy_defaults()) {
    length_ = reader_.integer("length");
    max_n_ = reader_.integer("string_length");
    min_n_ = reader_.integer("min_string_length");
    vocab_ = reader_.integer("vocab");
    if (min_n_ == 0) min_n_ = max_n_;
    const std::string w = "task copy: ";
    RB_CHECK_INPUT(max_n_ >= 1, w + "string_length must be ≥ 1, got " + std::to_string(max_n_));
    RB_CHECK_INPUT(min_n_ >= 1 && min_n_ <= max_n_, w + "min_string_length must be in [1, string_length], got " +
                                                        std::to_string(min_n_));
    RB_CHECK_INPUT(2 * max_n_ + 1 <= length_, w + "need 2·string_length + 1 ≤ length, got string_length " +
                                                  std::to_string(max_n_) + ", length " + std::to_string(length_));
    RB_CHECK_INPUT(vocab_ >= 3, w + "vocab must be ≥ 3 (padding, separator, one symbol), got " +
                                    std::to_string(vocab_));
  }

  const nlohmann::json& options() const override { return reader_.resolved(); }
  int64_t vocab_size() const override { return vocab_; }
  int64_t length() const override { return length_; }
  int64_t max_distance() const override { return max_n_ + 1; }
  double capacity_bits() const override { return max_n_ * std::log2(static_cast<double>(vocab_ - kFirstSymbol)); }
  std::optional<double> chance() const override { return 1.0 / static_cast<double>(vocab_ - kFirstSymbol); }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    int64_t length = length_, hi = max_n_;
    if (difficulty.length && *difficulty.length < length_) {
      length = std::max<int64_t>(3, *difficulty.length);
      hi = std::min(hi, (length - 1) / 2);
    }
    if (difficulty.max_distance) hi = std::min(hi, std::max<int64_t>(1, *difficulty.max_distance - 1));
    const int64_t lo = std::min(min_n_, hi);
    Batch b = Batch::blank(n, length);
    Rng rng(seed);
    for (int64_t row = 0; row < n; ++row) {
      int64_t* in = b.inputs.data() + row * length;
      int64_t* lab = b.labels.data() + row * length;
      const int64_t len = rng.range(lo, hi);
      for (int64_t i = 0; i < len; ++i) {
        in[i] = kFirstSymbol + rng.below(vocab_ - kFirstSymbol);
        in[len + 1 + i] = in[i];
        lab[len + i] = in[i];
      }
      in[len] = kSeparator;
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    std::string out;
    for (int64_t t = 0; t < batch.length; ++t) {
      const int64_t tok = batch.at(row, t), label = batch.label(row, t);
      std::string cell = tok == kSeparator ? "|" : tok == 0 ? "." : std::to_string(tok);
      if (label != kIgnore) cell += "->" + std::to_string(label);
      out += (t ? " " : "") + cell;
    }
    return out;
  }

 private:
  OptionReader reader_;
  int64_t length_, max_n_, min_n_, vocab_;
};

}  // namespace

RB_REGISTER(TaskRegistry, copy,
            TaskEntry{"copy", "copy a random string after a separator (Jelassi et al.)", copy_defaults(),
                      [](const nlohmann::json& o) { return std::make_unique<Copy>(o); }});

}  // namespace rb
