// haystack: a few key-value pairs hidden among distractor tokens, every key queried at the end.
//
// Vocabulary V: keys are 1 .. V/2-1, values V/2 .. V-1; token 0 is never generated. Distractors are
// uniform over 1 .. V-1 except this sequence's K keys (so a key's only earlier occurrence is its pair;
// distractors may look like other, unpaired keys and values).
// A sequence of length L with K pairs (P = K with query_first, else 0):
//   positions 0 .. P-1        query preview (query_first): the keys in the order they will be queried
//   positions P .. L-K-1      the haystack: K pairs "k v" at non-overlapping random places, distractors
//                             everywhere else
//   positions L-K .. L-1      the queries: each key once, in random order
//   labels                    label at each query = that key's value; everything else -100
// Distance: pair j at position p_j (its key) has distance d_j = (L-K) - p_j to the query block, in
// [min_distance, max_distance]; placements are uniform over all non-overlapping arrangements in that
// window. min_distance ≥ 2 (a pair ends before the queries); max_distance 0 means the whole haystack.
//
// Worked example, V=32, L=16, K=2, min_distance 2 (illustrative ids):
//   inputs  20 7 19 | 3 28 | 11 30 4 | 9 17 | 21 24 5 12 | 9 3
//   labels  .  . .  | .  . | .  .  . | .  . | .  .  . .  | 17 28
//   pairs 3→28 (position 3, distance 11) and 9→17 (position 8, distance 6); queries 9 then 3.
//
// Curriculum difficulty: max_distance D caps every d_j at D (raised as needed so K pairs fit);
// length L' < L generates shorter sequences with the same layout.
//
// Supervision (option `supervision`, for the preprint's "dense supervision adds nothing"): sparse labels the K
// queries only (the default; distractors never repeat this sequence's keys, so the queries are the only
// positions whose next-token target is determined). dense lets distractors repeat a key once its pair has been
// read (never before: the pair stays the key's only earlier "k v") and labels every such repeat with the key's
// value, as MQAR's dense supervision labels every repeat of a context key: more supervised positions per
// sequence, the same task. Sparse sequences are bit-identical to those before the option existed.
//
// Options: pairs K (4), length L (256), vocab V (256), min_distance (2), max_distance (0 = no cap),
// query_first (false), supervision sparse|dense (sparse; recorded only when dense, so keys are unchanged).
#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/options.h"
#include "tasks/sampling.h"
#include "tasks/task.h"

namespace rb {
namespace {

nlohmann::json haystack_defaults() {
  return {{"pairs", 4},        {"length", 256},       {"vocab", 256},
          {"min_distance", 2}, {"max_distance", 0},   {"query_first", false}, {"supervision", "sparse"}};
}

class Haystack final : public Task {
 public:
  explicit Haystack(const nlohmann::json& given) : reader_("task haystack", given, haystack_defaults()) {
    pairs_ = reader_.integer("pairs");
    length_ = reader_.integer("length");
    vocab_ = reader_.integer("vocab");
    min_distance_ = reader_.integer("min_distance");
    max_distance_ = reader_.integer("max_distance");
    query_first_ = reader_.flag("query_first");
    dense_ = reader_.text("supervision") == "dense";
    const std::string w = "task haystack: ";
    RB_CHECK_INPUT(reader_.text("supervision") == "sparse" || dense_,
                   w + "option 'supervision' must be sparse or dense, got " + reader_.text("supervision"));
    RB_CHECK_INPUT(pairs_ >= 1, w + "pairs must be ≥ 1, got " + std::to_string(pairs_));
    RB_CHECK_INPUT(vocab_ / 2 - 1 >= pairs_ && vocab_ - vocab_ / 2 >= pairs_ && vocab_ - 1 > pairs_,
                   w + "vocab " + std::to_string(vocab_) + " too small for " + std::to_string(pairs_) +
                       " distinct keys and values (need vocab ≥ 2·pairs + 2)");
    RB_CHECK_INPUT(min_distance_ >= 2, w + "min_distance must be ≥ 2 (a pair ends before the queries), got " +
                                           std::to_string(min_distance_));
    const int64_t full = length_ - pairs_ - prefix();
    RB_CHECK_INPUT(max_distance_ == 0 || (max_distance_ >= floor_distance(min_distance_) && max_distance_ <= full),
                   w + "max_distance must be 0 (no cap) or in [" + std::to_string(floor_distance(min_distance_)) +
                       ", " + std::to_string(full) + "] (room for " + std::to_string(pairs_) +
                       " pairs above min_distance, below the length), got " + std::to_string(max_distance_));
    RB_CHECK_INPUT(full >= floor_distance(min_distance_),
                   w + "length " + std::to_string(length_) + " too short for " + std::to_string(pairs_) +
                       " pairs at distance ≥ " + std::to_string(min_distance_) + " (need length ≥ " +
                       std::to_string(pairs_ + prefix() + floor_distance(min_distance_)) + ")");
    options_ = reader_.resolved();
    if (!dense_) options_.erase("supervision");
  }

  const nlohmann::json& options() const override { return options_; }
  int64_t vocab_size() const override { return vocab_; }
  int64_t length() const override { return length_; }
  int64_t max_distance() const override { return max_distance_ ? max_distance_ : length_ - pairs_ - prefix(); }
  double capacity_bits() const override { return pairs_ * std::log2(static_cast<double>(vocab_ - vocab_ / 2)); }
  std::optional<double> chance() const override { return 1.0 / static_cast<double>(vocab_ - vocab_ / 2); }

  Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty) const override {
    int64_t length = length_;
    if (difficulty.length && *difficulty.length < length_)
      length = std::max(*difficulty.length, pairs_ + prefix() + floor_distance(min_distance_));
    const int64_t full = length - pairs_ - prefix();
    int64_t cap = std::min(max_distance(), full);
    if (difficulty.max_distance) cap = std::min(cap, *difficulty.max_distance);
    cap = std::max(cap, floor_distance(min_distance_));
    const int64_t query_start = length - pairs_;

    Batch b = Batch::blank(n, length);
    Rng rng(seed);
    for (int64_t row = 0; row < n; ++row) {
      int64_t* in = b.inputs.data() + row * length;
      int64_t* lab = b.labels.data() + row * length;
      const auto keys = sample_distinct(rng, 1, vocab_ / 2, pairs_);
      const auto values = sample_distinct(rng, vocab_ / 2, vocab_, pairs_);
      // Key starts lie in [query_start - cap, query_start - min_distance]; a pair is two tokens wide.
      const auto starts = place_blocks(rng, query_start - cap, cap - min_distance_ + 2, pairs_, 2);
      std::vector<int64_t> order(static_cast<size_t>(pairs_));
      std::iota(order.begin(), order.end(), 0);
      shuffle_in_place(rng, order);
      // A key a distractor may repeat at t: never (sparse), or once its pair ended before t (dense).
      const auto allowed = [&](int64_t tok, int64_t t) {
        for (int64_t j = 0; j < pairs_; ++j)
          if (tok == keys[j]) return dense_ && starts[j] + 1 < t;
        return true;
      };
      for (int64_t t = prefix(); t < query_start; ++t) {
        int64_t tok;
        do tok = 1 + rng.below(vocab_ - 1);
        while (!allowed(tok, t));
        in[t] = tok;
      }
      for (int64_t j = 0; j < pairs_; ++j) {
        in[starts[j]] = keys[j];
        in[starts[j] + 1] = values[j];
      }
      if (dense_)  // every repeat of a key after its pair: the key's value
        for (int64_t t = prefix(); t < query_start; ++t)
          for (int64_t j = 0; j < pairs_; ++j)
            if (in[t] == keys[j] && t > starts[j] + 1) lab[t] = values[j];
      for (int64_t q = 0; q < pairs_; ++q) {
        const int64_t j = order[q];
        in[query_start + q] = keys[j];
        lab[query_start + q] = values[j];
        if (query_first_) in[q] = keys[j];
      }
    }
    return b;
  }

  std::string render(const Batch& batch, int64_t row) const override {
    const int64_t L = batch.length, query_start = L - pairs_;
    std::vector<int64_t> queried;
    for (int64_t t = query_start; t < L; ++t) queried.push_back(batch.at(row, t));
    std::string out;
    for (int64_t t = 0; t < L; ++t) {
      const int64_t tok = batch.at(row, t);
      std::string cell = std::to_string(tok);
      if (t < prefix()) cell = "?" + cell;
      else if (t >= query_start) cell = "Q" + cell + "->" + std::to_string(batch.label(row, t));
      else if (std::find(queried.begin(), queried.end(), tok) != queried.end()) cell = "k" + cell;
      else if (t > prefix() && std::find(queried.begin(), queried.end(), batch.at(row, t - 1)) != queried.end() &&
               t - 1 >= prefix())
        cell = "v" + cell;
      out += (t ? " " : "") + cell;
      if ((t == prefix() - 1 && prefix() > 0) || t == query_start - 1) out += " |";
    }
    return out;
  }

 private:
  int64_t prefix() const { return query_first_ ? pairs_ : 0; }
  // The smallest distance cap at which K two-token pairs fit above `min_distance`.
  int64_t floor_distance(int64_t min_distance) const { return min_distance + 2 * pairs_ - 2; }

  OptionReader reader_;
  nlohmann::json options_;
  int64_t pairs_, length_, vocab_, min_distance_, max_distance_;
  bool query_first_, dense_;
};

}  // namespace

RB_REGISTER(TaskRegistry, haystack,
            TaskEntry{"haystack", "a few key-value pairs among distractor tokens, all queried at the end",
                      haystack_defaults(),
                      [](const nlohmann::json& o) { return std::make_unique<Haystack>(o); }});

}  // namespace rb
