#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/options.h"

namespace rb {
namespace {

const nlohmann::json kDefaults = {{"pairs", 8}, {"rate", 0.5}, {"mode", "zero"}, {"on", false}};

TEST(OptionReader, FillsDefaultsAndConvertsStrings) {
  OptionReader r("task t", {{"pairs", "16"}, {"rate", "0.25"}, {"on", "true"}}, kDefaults);
  EXPECT_EQ(r.integer("pairs"), 16);
  EXPECT_DOUBLE_EQ(r.number("rate"), 0.25);
  EXPECT_TRUE(r.flag("on"));
  EXPECT_EQ(r.text("mode"), "zero");
  EXPECT_EQ(r.resolved()["pairs"], 16);  // normalised to the default's type, so keys hash equal
}

TEST(OptionReader, SpellingsOfTheSameValueResolveEqual) {
  OptionReader a("t", {{"pairs", "8"}}, kDefaults), b("t", {{"pairs", 8.0}}, kDefaults), c("t", {}, kDefaults);
  EXPECT_EQ(a.resolved().dump(), c.resolved().dump());
  EXPECT_EQ(b.resolved().dump(), c.resolved().dump());
}

TEST(OptionReader, UnknownOptionNamesTheValidOnes) {
  try {
    OptionReader r("task t", {{"pears", 3}}, kDefaults);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option 'pears'"), std::string::npos);
    EXPECT_NE(e.hint().find("pairs"), std::string::npos);
  }
}

TEST(OptionReader, WrongTypesAreUsageErrors) {
  EXPECT_THROW(OptionReader("t", {{"pairs", "eight"}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", {{"pairs", 2.5}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", {{"pairs", 3.33e39}}, kDefaults), UsageError);  // whole, but no int64 holds it
  EXPECT_THROW(OptionReader("t", {{"pairs", -1e19}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", {{"rate", "fast"}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", {{"on", "maybe"}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", {{"mode", 3}}, kDefaults), UsageError);
  EXPECT_THROW(OptionReader("t", nlohmann::json::array(), kDefaults), UsageError);
}

TEST(OptionReader, RangeCheck) {
  OptionReader r("t", {{"rate", 2.0}}, kDefaults);
  EXPECT_THROW(r.require_range("rate", 0.0, 1.0), UsageError);
}

}  // namespace
}  // namespace rb
