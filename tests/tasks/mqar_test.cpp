// MQAR generator properties: vocabulary layout, answers correct by construction, labels only at query
// positions, power-law slot preference, determinism, and clear errors for impossible configs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "suite/core/errors.h"
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
