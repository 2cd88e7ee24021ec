// collision generator properties: every first and second key token is shared by exactly two keys (so no
// single token names a key), answers correct by construction, labels only at query second tokens.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "tasks/task.h"

namespace rb {
namespace {

TEST(Collision, TokensCollideAndAnswersAreRight) {
  const int64_t K = 8, L = 64, V = 256;
  auto task = make_task("collision", {});
  const Batch b = task->generate(100, 5);
  ASSERT_EQ(b.length, L);
  for (int64_t row = 0; row < b.n; ++row) {
    std::map<std::pair<int64_t, int64_t>, int64_t> value_of;
    std::map<int64_t, int64_t> first_count, second_count;
    for (int64_t s = 0; s < K; ++s) {
      const int64_t a = b.at(row, 3 * s), c = b.at(row, 3 * s + 1), v = b.at(row, 3 * s + 2);
      EXPECT_GE(a, 1);
      EXPECT_LT(a, V / 2);
      EXPECT_LT(c, V / 2);
      EXPECT_GE(v, V / 2);
      EXPECT_TRUE(value_of.emplace(std::make_pair(a, c), v).second) << "keys are distinct words";
      ++first_count[a];
      ++second_count[c];
    }
    for (const auto& [tok, n] : first_count) EXPECT_EQ(n, 2) << "first token shared by two keys";
    for (const auto& [tok, n] : second_count) EXPECT_EQ(n, 2) << "second token shared by two keys";
    for (const auto& [tok, n] : first_count) EXPECT_EQ(second_count.count(tok), 0u);
    for (int64_t t = 0; t < L - 2 * K; ++t) {
      EXPECT_EQ(b.label(row, t), kIgnore);
      if (t >= 3 * K) {
        EXPECT_EQ(b.at(row, t), 0);
      }
    }
    std::set<std::pair<int64_t, int64_t>> queried;
    for (int64_t t = L - 2 * K; t < L; t += 2) {
      const auto key = std::make_pair(b.at(row, t), b.at(row, t + 1));
      ASSERT_TRUE(value_of.count(key));
      EXPECT_EQ(b.label(row, t), kIgnore);
      EXPECT_EQ(b.label(row, t + 1), value_of[key]);
      queried.insert(key);
    }
    EXPECT_EQ(queried.size(), static_cast<size_t>(K));
  }
}

TEST(Collision, DeterministicAndShortenable) {
  auto task = make_task("collision", {{"pairs", 4}, {"length", 40}});
  EXPECT_EQ(task->generate(5, 1).inputs, task->generate(5, 1).inputs);
  EXPECT_NE(task->generate(5, 1).inputs, task->generate(5, 2).inputs);
  Difficulty d;
  d.length = 10;  // raised to 5K = 20
  EXPECT_EQ(task->generate(3, 1, d).length, 20);
}

TEST(Collision, BadConfigsAreUsageErrors) {
  EXPECT_THROW(make_task("collision", {{"pairs", 3}}), UsageError);
  EXPECT_THROW(make_task("collision", {{"pairs", 2}}), UsageError);
  EXPECT_THROW(make_task("collision", {{"pairs", 8}, {"length", 39}}), UsageError);
  EXPECT_THROW(make_task("collision", {{"vocab", 12}}), UsageError);
}

}  // namespace
}  // namespace rb
