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
// Supervision (option `supervision`):
//   sparse  labels at the K query positions only (Zoology; the default).
//   dense   labels every position whose target is determined by the sequence so far. Under the
//           next-token convention the target after a key is its value, and it is determined exactly when
//           the key's pair (k_j v_j) was read earlier in the sequence; nothing else is (values, the next
//           query, filler are all fresh random draws). So dense labels every occurrence of a context key
//           after its pair, with that key's value: the K queries, plus, with filler=random, every filler
//           token that happens to equal a context key. With filler=zero, dense and sparse coincide.
// Query placement (option `query_first`, for the bidirectional "denoiser" comparison): when true, the
//   first K positions show the K keys in the order they will be queried (unlabelled) and the layout
//   above follows, shifted by K (so L-K must be even and ≥ 4K). A causal model then knows, before it
//   reads the pairs, which keys it will be asked about.
//
// Worked example, V=32, L=16, K=2 (the generator's own RNG, so the ids differ from Zoology's):
//   inputs  9 25 6 29 | 6 0 9 0 0 0 0 0 0 0 0 0
//   labels  . .  . .  | 29 . 25 . . . . . . . . .
//   (pairs 9→25, 6→29; key 6 queried at slot 0, key 9 at slot 1)
// With query_first=true, L=18: inputs 6 9 | 9 25 6 29 | 6 0 9 0 ..., labels shifted by 2 likewise.
//
// Curriculum difficulty: max_distance D caps the query slot offset from the end of the context at D
// (slots < D/2, at least K slots stay open); length L' < L generates shorter sequences (L' rounded down
// to the layout's parity, at least 4K, plus K with query_first).
//
// Options: pairs K (8), length L (64), vocab V (256), power_a a (0.01; 1 = uniform slots),
// filler zero|random (zero), supervision sparse|dense (sparse), query_first (false).
// The last two appear in the resolved options (and so in run keys) only when they differ from their
// defaults: run keys of mqar runs made before they existed stay valid.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/errors.h"
#include "core/options.h"
#include "core/rng.h"
#include "tasks/sampling.h"
#include "tasks/task.h"

namespace rb {
namespace {

nlohmann::json mqar_defaults() {
  return {{"pairs", 8},       {"length", 64},           {"vocab", 256},         {"power_a", 0.01},
          {"filler", "zero"}, {"supervision", "sparse"}, {"query_first", false}};
}

class Mqar final : public Task {
 public:
  explicit Mqar(const nlohmann::json& given) : reader_("task mqar", given, mqar_defaults()) {
    pairs_ = reader_.integer("pairs");
    length_ = reader_.integer("length");
    vocab_ = reader_.integer("vocab");
    power_a_ = reader_.number("power_a");
    random_filler_ = reader_.text("filler") == "random";
    dense_ = reader_.text("supervision") == "dense";
    query_first_ = reader_.flag("query_first");
    RB_CHECK_INPUT(reader_.text("filler") == "zero" || random_filler_,
                   "task mqar: option 'filler' must be zero or random, got " + reader_.text("filler"));
    RB_CHECK_INPUT(reader_.text("supervision") == "sparse" || dense_,
                   "task mqar: option 'supervision' must be sparse or dense, got " + reader_.text("supervision"));
    RB_CHECK_INPUT(pairs_ >= 1, "task mqar: pairs must be ≥ 1, got " + std::to_string(pairs_));
    const int64_t body = length_ - prefix();
    RB_CHECK_INPUT(body % 2 == 0, "task mqar: length" + std::string(query_first_ ? " - pairs" : "") +
                                      " must be even, got length " + std::to_string(length_));
    RB_CHECK_INPUT(4 * pairs_ <= body, "task mqar: need " + std::string(query_first_ ? "5" : "4") +
                                           "·pairs ≤ length (context plus one query slot per pair" +
                                           (query_first_ ? ", plus the query preview" : "") + "), got pairs " +
                                           std::to_string(pairs_) + ", length " + std::to_string(length_));
    RB_CHECK_INPUT(vocab_ / 2 - 1 >= pairs_ && vocab_ - vocab_ / 2 >= pairs_,
                   "task mqar: vocab " + std::to_string(vocab_) + " too small for " + std::to_string(pairs_) +
                       " distinct keys and values (need vocab ≥ 2·pairs + 2)");
    reader_.require_range("power_a", 1e-6, 1.0);
    options_ = reader_.resolved();
    if (!dense_) options_.erase("supervision");
    if (!query_first_) options_.erase("query_first");
  }

  const nlohmann::json& options() const override { return options_; }
  std::vector<std::string> warnings() const override {
    if (dense_ && !random_filler_)
      return {"supervision dense with filler zero labels exactly the sparse positions (no filler token equals a "
              "context key): a dense-vs-sparse comparison here cannot differ; use filler random"};
    return {};
  }
  int64_t vocab_size() const override { return vocab_; }
  int64_t length() const override { return length_; }
  int64_t max_distance() const override { return length_ - prefix() - 2 * pairs_; }
  double capacity_bits() const override { return pairs_ * std::log2(static_cast<double>(vocab_ - vocab_ / 2)); }
  std::optional<double> chance() const override { return 1.0 / static_cast<double>(vocab_ - vocab_ / 2); }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    int64_t length = length_;
    if (difficulty.length && *difficulty.length < length_) {
      const int64_t body = std::max<int64_t>(4 * pairs_, *difficulty.length - prefix());
      length = prefix() + body - body % 2;
    }
    const int64_t context = 2 * pairs_;
    const int64_t slots = (length - prefix() - context) / 2;
    // A distance cap (curriculum) restricts the slots a query may use; at least K slots stay open.
    int64_t open = slots;
    if (difficulty.max_distance) open = std::clamp<int64_t>((*difficulty.max_distance) / 2, pairs_, slots);
    std::vector<double> weights(static_cast<size_t>(slots), 0.0);
    for (int64_t i = 0; i < open; ++i) weights[i] = power_a_ * std::pow(static_cast<double>(i + 1), power_a_ - 1.0);

    Batch b = Batch::blank(n, length);
    Rng rng(seed);
    Rng filler(derive_seed(seed, "filler"));  // separate stream: the filler choice never changes the pairs
    for (int64_t row = 0; row < n; ++row) {
      int64_t* in = b.inputs.data() + row * length + prefix();  // the Zoology layout starts after the preview
      int64_t* lab = b.labels.data() + row * length + prefix();
      const int64_t body = length - prefix();
      const auto keys = sample_distinct(rng, 1, vocab_ / 2, pairs_);
      const auto values = sample_distinct(rng, vocab_ / 2, vocab_, pairs_);
      for (int64_t j = 0; j < pairs_; ++j) {
        in[2 * j] = keys[j];
        in[2 * j + 1] = values[j];
      }
      const auto gaps = sample_weighted_distinct(rng, weights, pairs_);
      for (int64_t j = 0; j < pairs_; ++j) {
        const int64_t pos = context + 2 * gaps[j];
        in[pos] = keys[j];
        lab[pos] = values[j];
      }
      if (random_filler_) {
        for (int64_t t = context; t < body; ++t)
          if (in[t] == 0) in[t] = filler.below(vocab_);
      }
      if (dense_) {
        std::map<int64_t, int64_t> value_of;
        for (int64_t j = 0; j < pairs_; ++j) value_of[keys[j]] = values[j];
        for (int64_t t = context; t < body; ++t) {
          auto it = value_of.find(in[t]);
          if (it != value_of.end()) lab[t] = it->second;
        }
      }
      if (query_first_) {
        // The preview lists the queried keys in the order their queries appear.
        int64_t* preview = b.inputs.data() + row * length;
        int64_t k = 0;
        for (int64_t t = context; t < body && k < pairs_; t += 2)
          for (int64_t j = 0; j < pairs_; ++j)
            if (t == context + 2 * gaps[j]) preview[k++] = keys[j];
      }
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    std::string out;
    for (int64_t t = 0; t < batch.length; ++t) {
      const int64_t tok = batch.at(row, t);
      const int64_t u = t - prefix();
      std::string cell = std::to_string(tok);
      if (u < 0) cell = "?" + cell;  // query preview
      else if (u < 2 * pairs_) cell = (u % 2 == 0 ? "k" : "v") + cell;
      if (batch.label(row, t) != kIgnore) cell = "Q" + cell + "->" + std::to_string(batch.label(row, t));
      else if (u >= 2 * pairs_ && tok == 0) cell = ".";
      out += (t ? " " : "") + cell;
      if (query_first_ && t == prefix() - 1) out += " |";
    }
    return out;
  }

 private:
  int64_t prefix() const { return query_first_ ? pairs_ : 0; }

  OptionReader reader_;
  nlohmann::json options_;
  int64_t pairs_, length_, vocab_;
  double power_a_;
  bool random_filler_, dense_, query_first_;
};

}  // namespace

RB_REGISTER(TaskRegistry, mqar,
            TaskEntry{"mqar", "multi-query associative recall (Zoology): K key-value pairs, then K queries",
                      mqar_defaults(),
                      [](const nlohmann::json& o) { return std::make_unique<Mqar>(o); }});

}  // namespace rb
