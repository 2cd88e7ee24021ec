// haystack generator properties: layout, distractors never repeat a key, answers correct by
// construction, labels only at the final queries, distance window honoured, determinism, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/errors.h"
#include "tasks/task.h"

namespace rb {
namespace {

struct Found {
  std::map<int64_t, int64_t> key_pos;  // key → position of its pair in the haystack
};

// Checks one row against the definition; returns the distances of its pairs.
std::vector<int64_t> check_row(const Batch& b, int64_t row, int64_t K, int64_t V, int64_t prefix) {
  const int64_t L = b.length, qs = L - K;
  std::vector<int64_t> distances;
  std::set<int64_t> keys;
  for (int64_t t = qs; t < L; ++t) {
    keys.insert(b.at(row, t));
    EXPECT_GE(b.at(row, t), 1);
    EXPECT_LT(b.at(row, t), V / 2);
  }
  EXPECT_EQ(keys.size(), static_cast<size_t>(K)) << "each key queried once";
  for (int64_t t = 0; t < qs; ++t) EXPECT_EQ(b.label(row, t), kIgnore);
  for (int64_t t = prefix; t < qs; ++t) EXPECT_GE(b.at(row, t), 1);
  for (int64_t t = qs; t < L; ++t) {
    const int64_t key = b.at(row, t);
    // The key occurs exactly once in the haystack, followed by its value = the label.
    int64_t seen = 0, pos = -1;
    for (int64_t u = prefix; u < qs; ++u)
      if (b.at(row, u) == key) ++seen, pos = u;
    EXPECT_EQ(seen, 1) << "key " << key << " appears once before the queries (distractors avoid keys)";
    if (pos < 0) continue;
    EXPECT_LT(pos + 1, qs);
    EXPECT_EQ(b.label(row, t), b.at(row, pos + 1)) << "answer = the token after the key";
    EXPECT_GE(b.label(row, t), V / 2);
    distances.push_back(qs - pos);
  }
  return distances;
}

TEST(Haystack, DefaultsLayoutAndAnswers) {
  auto task = make_task("haystack", {});
  EXPECT_EQ(task->options()["pairs"], 4);
  EXPECT_EQ(task->length(), 256);
  const Batch b = task->generate(64, 3);
  ASSERT_EQ(b.length, 256);
  int64_t far = 0;
  for (int64_t row = 0; row < b.n; ++row)
    for (int64_t d : check_row(b, row, 4, 256, 0)) {
      EXPECT_GE(d, 2);
      EXPECT_LE(d, 252);
      far += d > 126;
    }
  EXPECT_GT(far, 64) << "pairs spread over the whole haystack";
}

TEST(Haystack, LengthsTo1024AndDistanceWindow) {
  auto task = make_task("haystack", {{"length", 1024}, {"min_distance", 100}, {"max_distance", 300}});
  const Batch b = task->generate(32, 1);
  ASSERT_EQ(b.length, 1024);
  for (int64_t row = 0; row < b.n; ++row)
    for (int64_t d : check_row(b, row, 4, 256, 0)) {
      EXPECT_GE(d, 100);
      EXPECT_LE(d, 300);
    }
}

TEST(Haystack, CurriculumCapsDistanceAndLength) {
  auto task = make_task("haystack", {{"length", 256}});
  EXPECT_EQ(task->max_distance(), 252);
  Difficulty d;
  d.max_distance = 16;
  const Batch b = task->generate(50, 5, d);
  for (int64_t row = 0; row < b.n; ++row)
    for (int64_t dist : check_row(b, row, 4, 256, 0)) EXPECT_LE(dist, 16);
  d.max_distance = 1;  // below what 4 pairs need: raised to the floor (2 + 2·4 - 2 = 8)
  const Batch c = task->generate(50, 5, d);
  for (int64_t row = 0; row < c.n; ++row)
    for (int64_t dist : check_row(c, row, 4, 256, 0)) EXPECT_LE(dist, 8);
  Difficulty l;
  l.length = 64;
  const Batch s = task->generate(10, 5, l);
  EXPECT_EQ(s.length, 64);
  for (int64_t row = 0; row < s.n; ++row) check_row(s, row, 4, 256, 0);
}

TEST(Haystack, QueryFirstPreviewsKeysInQueryOrder) {
  auto task = make_task("haystack", {{"length", 64}, {"query_first", true}});
  const Batch b = task->generate(20, 8);
  for (int64_t row = 0; row < b.n; ++row) {
    check_row(b, row, 4, 256, 4);
    for (int64_t q = 0; q < 4; ++q) EXPECT_EQ(b.at(row, q), b.at(row, 60 + q));
  }
}

TEST(Haystack, DeterministicPerSeed) {
  auto task = make_task("haystack", {{"length", 128}});
  EXPECT_EQ(task->generate(8, 1).inputs, task->generate(8, 1).inputs);
  EXPECT_EQ(task->generate(8, 1).labels, task->generate(8, 1).labels);
  EXPECT_NE(task->generate(8, 1).inputs, task->generate(8, 2).inputs);
}

// Dense supervision (issue 45): distractors may repeat a key only after its pair, and every such repeat is
// labelled with the key's value; the queries are as in sparse, and sparse sequences are what they always were.
TEST(Haystack, DenseSupervisionLabelsEveryRepeatAfterThePair) {
  const nlohmann::json base = {{"length", 64}, {"pairs", 4}, {"vocab", 16}};
  nlohmann::json dense = base;
  dense["supervision"] = "dense";
  auto sparse_task = make_task("haystack", base), dense_task = make_task("haystack", dense);
  EXPECT_FALSE(sparse_task->options().contains("supervision")) << "sparse is not recorded: keys are unchanged";
  EXPECT_EQ(dense_task->options()["supervision"], "dense");
  const Batch b = dense_task->generate(64, 5);
  const int64_t L = b.length, K = 4, qs = L - K;
  int64_t repeats = 0;
  for (int64_t row = 0; row < b.n; ++row) {
    std::map<int64_t, int64_t> pair_at, value_of;  // key → the position of its pair, and its value
    for (int64_t t = qs; t < L; ++t) value_of[b.at(row, t)] = b.label(row, t);
    for (int64_t t = 0; t + 1 < qs; ++t)
      if (value_of.count(b.at(row, t)) && b.at(row, t + 1) == value_of[b.at(row, t)] && !pair_at.count(b.at(row, t)))
        pair_at[b.at(row, t)] = t;
    ASSERT_EQ(pair_at.size(), 4u) << "row " << row;
    for (int64_t t = 0; t < qs; ++t) {
      const int64_t tok = b.at(row, t);
      if (!value_of.count(tok)) {
        EXPECT_EQ(b.label(row, t), kIgnore);
        continue;
      }
      if (t == pair_at[tok]) {
        EXPECT_EQ(b.label(row, t), kIgnore) << "the pair itself is not determined";
      } else {
        EXPECT_GT(t, pair_at[tok] + 1) << "a key repeats only after its pair";
        EXPECT_EQ(b.label(row, t), value_of[tok]) << "a repeat after the pair is labelled with the value";
        ++repeats;
      }
    }
    for (int64_t t = qs; t < L; ++t) EXPECT_EQ(b.label(row, t), value_of[b.at(row, t)]);
  }
  EXPECT_GT(repeats, 64) << "dense adds supervised positions (about one in 15 distractors is a read key here)";
  // Sparse is bit-identical to the generator before the option existed: the held-out set's fingerprint is the
  // one stored runs recorded (ci/leaderboard/leaderboard.json, haystack length 64, 4 pairs, vocab 64).
  DataFingerprint fp;
  fp.add(held_out_set(*make_task("haystack", {{"length", 64}, {"pairs", 4}, {"vocab", 64}}), 256));
  EXPECT_EQ(fp.hex(), "4220c85eab96");
  EXPECT_THROW(make_task("haystack", {{"supervision", "every"}}), UsageError);
}

TEST(Haystack, BadConfigsAreUsageErrors) {
  EXPECT_THROW(make_task("haystack", {{"length", 8}}), UsageError);
  EXPECT_THROW(make_task("haystack", {{"min_distance", 1}}), UsageError);
  EXPECT_THROW(make_task("haystack", {{"max_distance", 5}}), UsageError);
  EXPECT_THROW(make_task("haystack", {{"max_distance", 1000}}), UsageError);
  EXPECT_THROW(make_task("haystack", {{"vocab", 8}}), UsageError);
  EXPECT_THROW(make_task("haystack", {{"pairs", 0}}), UsageError);
}

}  // namespace
}  // namespace rb
