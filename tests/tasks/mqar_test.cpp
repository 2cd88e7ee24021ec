// MQAR generator properties: vocabulary layout, answers correct by construction, labels only at query
// positions, power-law slot preference, determinism, and clear errors for impossible configs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "tasks/task.h"

namespace rb {
namespace {

TEST(Mqar, LayoutAndAnswers) {
  const int64_t K = 8, L = 64, V = 256;
  auto task = make_task("mqar", {{"pairs", K}, {"length", L}, {"vocab", V}});
  const Batch b = task->generate(200, 42);
  ASSERT_EQ(b.n, 200);
  ASSERT_EQ(b.length, L);
  for (int64_t row = 0; row < b.n; ++row) {
    std::map<int64_t, int64_t> pairs;
    std::set<int64_t> values;
    for (int64_t j = 0; j < K; ++j) {
      const int64_t key = b.at(row, 2 * j), value = b.at(row, 2 * j + 1);
      EXPECT_GE(key, 1);
      EXPECT_LT(key, V / 2);
      EXPECT_GE(value, V / 2);
      EXPECT_LT(value, V);
      EXPECT_TRUE(pairs.emplace(key, value).second) << "keys must be distinct";
      EXPECT_TRUE(values.insert(value).second) << "values must be distinct";
      EXPECT_EQ(b.label(row, 2 * j), kIgnore);
      EXPECT_EQ(b.label(row, 2 * j + 1), kIgnore);
    }
    int64_t labelled = 0;
    std::set<int64_t> queried;
    for (int64_t t = 2 * K; t < L; ++t) {
      const int64_t tok = b.at(row, t), label = b.label(row, t);
      if (label == kIgnore) {
        EXPECT_EQ(tok, 0) << "filler is 0 by default";
        continue;
      }
      ++labelled;
      EXPECT_EQ((t - 2 * K) % 2, 0) << "queries sit at even offsets after the context";
      ASSERT_TRUE(pairs.count(tok)) << "a query is a context key";
      EXPECT_EQ(label, pairs[tok]) << "the answer is the value paired with that key";
      queried.insert(tok);
    }
    EXPECT_EQ(labelled, K);
    EXPECT_EQ(queried.size(), static_cast<size_t>(K)) << "every key is queried once";
  }
}

TEST(Mqar, SameSeedSameBatchDifferentSeedDifferentBatch) {
  auto task = make_task("mqar", {});
  const Batch a = task->generate(32, 7), b = task->generate(32, 7), c = task->generate(32, 8);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.inputs, c.inputs);
}

TEST(Mqar, PowerLawFavoursEarlySlots) {
  // p(slot i) ∝ (i+1)^(a-1) with a = 0.01: slot 0 is chosen far more often than the last slot.
  auto task = make_task("mqar", {{"pairs", 2}, {"length", 64}});
  const Batch b = task->generate(4000, 1);
  std::vector<int64_t> hits(30, 0);
  for (int64_t row = 0; row < b.n; ++row)
    for (int64_t t = 4; t < 64; ++t)
      if (b.label(row, t) != kIgnore) ++hits[(t - 4) / 2];
  EXPECT_GT(hits[0], 5 * hits[29]);
  EXPECT_GT(hits[0], hits[1]);
  // Uniform placement (power_a = 1) flattens it.
  auto flat = make_task("mqar", {{"pairs", 2}, {"length", 64}, {"power_a", 1.0}});
  const Batch u = flat->generate(4000, 1);
  std::vector<int64_t> uh(30, 0);
  for (int64_t row = 0; row < u.n; ++row)
    for (int64_t t = 4; t < 64; ++t)
      if (u.label(row, t) != kIgnore) ++uh[(t - 4) / 2];
  EXPECT_LT(uh[0], 2 * uh[29]);
}

TEST(Mqar, RandomFillerKeepsLabels) {
  auto zero = make_task("mqar", {{"filler", "zero"}}), rnd = make_task("mqar", {{"filler", "random"}});
  const Batch a = zero->generate(16, 3), b = rnd->generate(16, 3);
  EXPECT_EQ(a.labels, b.labels);
  int64_t nonzero = 0;
  for (auto t : b.inputs) nonzero += t != 0;
  EXPECT_GT(nonzero, 16 * 60);
}

TEST(Mqar, CurriculumDistanceCapLimitsQueryDistance) {
  auto task = make_task("mqar", {{"pairs", 4}, {"length", 256}});
  Difficulty d;
  d.max_distance = 16;
  const Batch b = task->generate(100, 5, d);
  for (int64_t row = 0; row < b.n; ++row)
    for (int64_t t = 8; t < 256; ++t)
      if (b.label(row, t) != kIgnore) {
        EXPECT_LT(t - 8, 16);
      }
}

TEST(Mqar, ImpossibleConfigsAreUsageErrors) {
  EXPECT_THROW(make_task("mqar", {{"pairs", 20}, {"length", 64}}), UsageError);   // 4K > L
  EXPECT_THROW(make_task("mqar", {{"length", 63}}), UsageError);                  // odd length
  EXPECT_THROW(make_task("mqar", {{"vocab", 10}}), UsageError);                   // too few keys
  EXPECT_THROW(make_task("mqar", {{"filler", "noise"}}), UsageError);
  EXPECT_THROW(make_task("mqar", {{"colour", 1}}), UsageError);
  EXPECT_THROW(make_task("nope", {}), UsageError);
}

TEST(Mqar, CapacityBits) {
  auto task = make_task("mqar", {{"pairs", 8}, {"vocab", 256}});
  EXPECT_DOUBLE_EQ(task->capacity_bits(), 8 * 7.0);  // 128 values → 7 bits each
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

TEST(Mqar, NewOptionsAtDefaultsKeepResolvedOptionsAndData) {
  // Run keys hash the resolved options: the new options must not appear at their defaults.
  auto plain = make_task("mqar", {});
  EXPECT_FALSE(plain->options().contains("supervision"));
  EXPECT_FALSE(plain->options().contains("query_first"));
  auto explicit_defaults = make_task("mqar", {{"supervision", "sparse"}, {"query_first", false}});
  EXPECT_EQ(plain->options(), explicit_defaults->options());
  const Batch a = plain->generate(8, 11), b = explicit_defaults->generate(8, 11);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(make_task("mqar", {{"supervision", "dense"}})->options()["supervision"], "dense");
}

TEST(Mqar, DenseLabelsEveryDeterminedPosition) {
  const int64_t K = 8, V = 64, L = 128;
  auto sparse = make_task("mqar", {{"pairs", K}, {"vocab", V}, {"length", L}, {"filler", "random"}});
  auto dense = make_task("mqar", {{"pairs", K}, {"vocab", V}, {"length", L}, {"filler", "random"},
                                  {"supervision", "dense"}});
  const Batch s = sparse->generate(100, 4), d = dense->generate(100, 4);
  EXPECT_EQ(s.inputs, d.inputs) << "supervision changes labels only";
  int64_t extra = 0;
  for (int64_t row = 0; row < d.n; ++row) {
    std::map<int64_t, int64_t> value_of;
    for (int64_t j = 0; j < K; ++j) value_of[d.at(row, 2 * j)] = d.at(row, 2 * j + 1);
    for (int64_t t = 0; t < L; ++t) {
      const auto it = value_of.find(d.at(row, t));
      const bool determined = t >= 2 * K && it != value_of.end();
      if (determined) {
        EXPECT_EQ(d.label(row, t), it->second) << "row " << row << " t " << t;
      } else {
        EXPECT_EQ(d.label(row, t), kIgnore) << "row " << row << " t " << t;
      }
      if (s.label(row, t) != kIgnore) {
        EXPECT_EQ(s.label(row, t), d.label(row, t)) << "dense ⊇ sparse";
      }
      extra += d.label(row, t) != kIgnore && s.label(row, t) == kIgnore;
    }
  }
  EXPECT_GT(extra, 100) << "random filler hits context keys: ~K/V of the filler positions";
  // With zero filler the two coincide.
  auto dz = make_task("mqar", {{"supervision", "dense"}}), sz = make_task("mqar", {});
  EXPECT_EQ(dz->generate(20, 1).labels, sz->generate(20, 1).labels);
  // ... so that combination warns (plan and run print it), and the others do not.
  EXPECT_EQ(dz->warnings().size(), 1u);
  EXPECT_TRUE(sz->warnings().empty());
  EXPECT_TRUE(dense->warnings().empty());
  EXPECT_THROW(make_task("mqar", {{"supervision", "all"}}), UsageError);
}

TEST(Mqar, QueryFirstPreviewsTheQueriedKeysInOrder) {
  const int64_t K = 4, L = 68;
  auto task = make_task("mqar", {{"pairs", K}, {"length", L}, {"query_first", true}});
  const Batch b = task->generate(50, 9);
  for (int64_t row = 0; row < b.n; ++row) {
    std::vector<int64_t> queried;
    for (int64_t t = 0; t < L; ++t)
      if (b.label(row, t) != kIgnore) {
        EXPECT_GE(t, K + 2 * K);
        queried.push_back(b.at(row, t));
      }
    ASSERT_EQ(queried.size(), static_cast<size_t>(K));
    for (int64_t q = 0; q < K; ++q) {
      EXPECT_EQ(b.at(row, q), queried[q]);
      EXPECT_EQ(b.label(row, q), kIgnore);
    }
    for (int64_t j = 0; j < K; ++j) {  // the context follows the preview
      EXPECT_LT(b.at(row, K + 2 * j), 128);
      EXPECT_GE(b.at(row, K + 2 * j + 1), 128);
    }
  }
  EXPECT_THROW(make_task("mqar", {{"pairs", 3}, {"length", 64}, {"query_first", true}}), UsageError);  // 61 odd
  EXPECT_THROW(make_task("mqar", {{"pairs", 8}, {"length", 38}, {"query_first", true}}), UsageError);  // 5K > L
}

TEST(Mqar, CurriculumLengthShortensSequences) {
  auto task = make_task("mqar", {{"pairs", 4}, {"length", 256}});
  Difficulty d;
  d.length = 40;
  const Batch b = task->generate(10, 2, d);
  EXPECT_EQ(b.length, 40);
  int64_t labelled = 0;
  for (auto l : b.labels) labelled += l != kIgnore;
  EXPECT_EQ(labelled, 40);
  EXPECT_EQ(task->max_distance(), 256 - 8);
}

}  // namespace
}  // namespace rb
