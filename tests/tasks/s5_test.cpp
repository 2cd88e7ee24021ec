// s5 generator properties: 120 tokens, labels are prefix compositions computed independently here,
// the header's worked example, per-depth breakdown, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/errors.h"
#include "tasks/task.h"

namespace rb {
namespace {

std::vector<std::vector<int>> all_perms(int n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int>> out;
  do out.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return out;
}

TEST(S5, LabelsArePrefixCompositions) {
  auto task = make_task("s5", {{"length", 24}});
  ASSERT_EQ(task->vocab_size(), 120);
  const auto perms = all_perms(5);
  const Batch b = task->generate(50, 3);
  for (int64_t row = 0; row < b.n; ++row) {
    std::vector<int> state = {0, 1, 2, 3, 4};
    for (int64_t t = 0; t < b.length; ++t) {
      const int64_t g = b.at(row, t);
      ASSERT_GE(g, 0);
      ASSERT_LT(g, 120);
      std::vector<int> next(5);
      for (int i = 0; i < 5; ++i) next[i] = perms[g][state[i]];  // apply g after the prefix
      state = next;
      const int64_t label = b.label(row, t);
      ASSERT_GE(label, 0);
      ASSERT_LT(label, 120);
      EXPECT_EQ(perms[label], state) << "row " << row << " depth " << t + 1;
    }
  }
}

TEST(S5, HeaderWorkedExample) {
  // inputs 1 1 6 0 → labels 1 0 6 6 (tasks/s5.cpp), under the rule LabelsArePrefixCompositions checks
  // the generator against.
  const auto perms = all_perms(5);
  EXPECT_EQ(perms[0], (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(perms[1], (std::vector<int>{0, 1, 2, 4, 3}));
  EXPECT_EQ(perms[6], (std::vector<int>{0, 2, 1, 3, 4}));
  std::vector<int> state = perms[0];
  std::vector<int64_t> labels;
  for (int g : {1, 1, 6, 0}) {
    std::vector<int> next(5);
    for (int i = 0; i < 5; ++i) next[i] = perms[g][state[i]];
    state = next;
    labels.push_back(std::find(perms.begin(), perms.end(), state) - perms.begin());
  }
  EXPECT_EQ(labels, (std::vector<int64_t>{1, 0, 6, 6}));
  auto task = make_task("s5", {{"length", 4}});
  const Batch b = task->generate(100, 1);
  for (int64_t row = 0; row < b.n; ++row) EXPECT_EQ(b.label(row, 0), b.at(row, 0)) << "depth 1 = first token";
}

TEST(S5, BreakdownByDepthAndSmallerGroups) {
  auto task = make_task("s5", {});
  EXPECT_EQ(task->breakdown_name(), "depth");
  EXPECT_EQ(task->breakdown_group(0), 1);
  EXPECT_EQ(task->breakdown_group(15), 16);
  auto s3 = make_task("s5", {{"elements", 3}, {"length", 8}});
  EXPECT_EQ(s3->vocab_size(), 6);
  const Batch b = s3->generate(20, 2);
  for (auto t : b.inputs) EXPECT_LT(t, 6);
  Difficulty d;
  d.length = 3;
  EXPECT_EQ(s3->generate(2, 2, d).length, 3);
}

TEST(S5, DeterministicAndValidated) {
  auto task = make_task("s5", {});
  EXPECT_EQ(task->generate(4, 9).inputs, task->generate(4, 9).inputs);
  EXPECT_NE(task->generate(4, 9).inputs, task->generate(4, 10).inputs);
  EXPECT_THROW(make_task("s5", {{"elements", 6}}), UsageError);
  EXPECT_THROW(make_task("s5", {{"length", 0}}), UsageError);
  EXPECT_THROW(make_task("s5", {{"vocab", 120}}), UsageError);
}

}  // namespace
}  // namespace rb
