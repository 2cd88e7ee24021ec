#include <gtest/gtest.h>

#include "suite/battery.h"
#include "core/errors.h"

namespace rb {
namespace {

TEST(ParseSeeds, ListsAndRanges) {
  EXPECT_EQ(parse_seeds("3"), (std::vector<int64_t>{3}));
  EXPECT_EQ(parse_seeds("0-2"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(parse_seeds("0,2,5-7"), (std::vector<int64_t>{0, 2, 5, 6, 7}));
}

TEST(ParseSeeds, RejectsGarbage) {
  for (const char* bad : {"", "a", "1-", "-1", "3-1", "1,,2", "1.5", "2x"}) EXPECT_THROW(parse_seeds(bad), UsageError) << bad;
}

}  // namespace
}  // namespace rb
