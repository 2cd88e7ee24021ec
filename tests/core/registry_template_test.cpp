#include <gtest/gtest.h>

#include "core/registry.h"

namespace rb {
namespace {

struct Thing {
  std::string name;
  int value;
};
struct TestTag {};
using ThingRegistry = Registry<Thing, TestTag>;

RB_REGISTER(ThingRegistry, b, Thing{"beta", 2});
RB_REGISTER(ThingRegistry, a, Thing{"alpha", 1});

TEST(Registry, SelfRegistersSortedByName) {
  EXPECT_EQ(ThingRegistry::instance().names(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(ThingRegistry::instance().get("beta", "thing").value, 2);
}

TEST(Registry, UnknownNameListsValidNames) {
  try {
    ThingRegistry::instance().get("gamma", "thing");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown thing 'gamma'"), std::string::npos);
    EXPECT_NE(e.hint().find("alpha, beta"), std::string::npos);
  }
}

TEST(RegistryDeathTest, DuplicateAborts) {
  EXPECT_DEATH(ThingRegistry::instance().add(Thing{"alpha", 3}), "duplicate registration");
}

}  // namespace
}  // namespace rb
