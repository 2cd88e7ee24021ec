// Every registry is non-empty with unique names: a self-registering file dropped by the linker, or a
// name registered twice, fails here.
#include <gtest/gtest.h>

#include <set>

#include "cells/cell.h"
#include "kernels/kernel.h"
#include "suite/battery.h"
#include "tasks/task.h"

namespace rb {
namespace {

template <class R>
void expect_nonempty_unique(const R& registry, const char* kind) {
  const auto names = registry.names();
  EXPECT_FALSE(names.empty()) << kind;
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << kind;
}

TEST(Registries, NonEmptyWithUniqueNames) {
  expect_nonempty_unique(CellRegistry::instance(), "cells");
  expect_nonempty_unique(TaskRegistry::instance(), "tasks");
  expect_nonempty_unique(KernelRegistry::instance(), "kernels");
  expect_nonempty_unique(BatteryRegistry::instance(), "batteries");
}

TEST(Registries, FoundationUnitsPresent) {
  EXPECT_NE(CellRegistry::instance().find("diag"), nullptr);
  EXPECT_NE(CellRegistry::instance().find("diag+conv"), nullptr);
  EXPECT_NE(TaskRegistry::instance().find("mqar"), nullptr);
}

}  // namespace
}  // namespace rb
