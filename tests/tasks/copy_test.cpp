// copy generator properties: string, separator, the string again; labels where the definition says.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "tasks/task.h"

namespace rb {
namespace {

// Returns the string length of a row after checking it against the definition.
int64_t check_row(const Batch& b, int64_t row, int64_t V) {
  int64_t n = 0;
  while (b.at(row, n) != 1) {
    EXPECT_GE(b.at(row, n), 2);
    EXPECT_LT(b.at(row, n), V);
    EXPECT_EQ(b.label(row, n), kIgnore);
    ++n;
  }
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(b.at(row, n + 1 + i), b.at(row, i)) << "the copy";
    EXPECT_EQ(b.label(row, n + i), b.at(row, i)) << "label = the next string token";
  }
  EXPECT_EQ(b.label(row, 2 * n), kIgnore);
  for (int64_t t = 2 * n + 1; t < b.length; ++t) {
    EXPECT_EQ(b.at(row, t), 0);
    EXPECT_EQ(b.label(row, t), kIgnore);
  }
  return n;
}

TEST(Copy, LayoutAndLabels) {
  auto task = make_task("copy", {});
  const Batch b = task->generate(50, 1);
  for (int64_t row = 0; row < b.n; ++row) EXPECT_EQ(check_row(b, row, 32), 24);
}

TEST(Copy, VariableLengthAndCurriculum) {
  auto task = make_task("copy", {{"string_length", 20}, {"min_string_length", 5}, {"length", 48}});
  const Batch b = task->generate(200, 2);
  int64_t lo = 100, hi = 0;
  for (int64_t row = 0; row < b.n; ++row) {
    const int64_t n = check_row(b, row, 32);
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_EQ(lo, 5);
  EXPECT_EQ(hi, 20);
  Difficulty d;
  d.max_distance = 4;  // strings of at most 3 tokens
  const Batch c = task->generate(20, 2, d);
  for (int64_t row = 0; row < c.n; ++row) EXPECT_LE(check_row(c, row, 32), 3);
  Difficulty l;
  l.length = 11;
  const Batch s = task->generate(20, 2, l);
  EXPECT_EQ(s.length, 11);
  for (int64_t row = 0; row < s.n; ++row) EXPECT_LE(check_row(s, row, 32), 5);
}

TEST(Copy, DeterministicAndValidated) {
  auto task = make_task("copy", {});
  EXPECT_EQ(task->generate(4, 9).inputs, task->generate(4, 9).inputs);
  EXPECT_NE(task->generate(4, 9).inputs, task->generate(4, 10).inputs);
  EXPECT_THROW(make_task("copy", {{"string_length", 40}}), UsageError);
  EXPECT_THROW(make_task("copy", {{"min_string_length", 30}}), UsageError);
  EXPECT_THROW(make_task("copy", {{"vocab", 2}}), UsageError);
}

}  // namespace
}  // namespace rb
