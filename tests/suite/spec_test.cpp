#include <gtest/gtest.h>

#include "core/errors.h"
#include "suite/spec.h"

namespace rb {
namespace {

RunSpec example() {
  RunSpec s;
  s.cell.name = "diag+conv";
  s.task.name = "mqar";
  s.task.options = {{"pairs", 8}, {"length", 64}};
  s.seed = 3;
  return s;
}

TEST(RunSpec, JsonRoundTripKeepsTheKey) {
  const RunSpec s = example();
  const RunSpec back = RunSpec::from_json(s.to_json());
  EXPECT_EQ(back.key(), s.key());
  EXPECT_EQ(back.to_json(), s.to_json());
}

TEST(RunSpec, KeyIsReadableAndStable) {
  const RunSpec s = example();
  EXPECT_EQ(s.key().rfind("mqar/diag+conv/length:64/pairs:8/", 0), 0u) << s.key();
  EXPECT_EQ(s.key().substr(s.key().size() - 7), "/seed:3");
  // The hash is part of the stored-baseline contract: changing it orphans every baseline.
  EXPECT_EQ(s.config_key(), "mqar/diag+conv/length:64/pairs:8/" + short_hash([&] {
                              auto j = s.to_json();
                              j.erase("seed");
                              return j;
                            }()));
}

TEST(RunSpec, AnyDifferenceChangesTheConfigKey) {
  RunSpec a = example(), b = example();
  b.train.lr = 1e-3;
  EXPECT_NE(a.config_key(), b.config_key());
  b = example();
  b.seed = 4;
  EXPECT_EQ(a.config_key(), b.config_key());
  EXPECT_NE(a.key(), b.key());
}

TEST(RunSpec, FileNameIsSafe) {
  const std::string f = example().file_name();
  EXPECT_EQ(f.find('/'), std::string::npos);
  EXPECT_EQ(f.find(':'), std::string::npos);
  EXPECT_EQ(f.substr(f.size() - 5), ".json");
}

TEST(RunSpec, MissingOrMistypedFieldsAreNamed) {
  auto j = example().to_json();
  j["train"].erase("steps");
  try {
    RunSpec::from_json(j);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("run spec.train: missing field 'steps'"), std::string::npos) << e.what();
  }
  j = example().to_json();
  j["seed"] = "three";
  EXPECT_THROW(RunSpec::from_json(j), UsageError);
}

}  // namespace
}  // namespace rb

namespace rb {
namespace {

// A script cell's content hash that happens to be all decimal digits is not a size (1 file in ~280 had its run
// refused as "outside the plausible range"); a sizing option given as text is still checked.
TEST(RunSpec, ContentHashIsNotASize) {
  RunSpec s;
  s.cell.name = "script:x";
  s.task.name = "mqar";
  s.cell.options = {{"content_hash", "521218929730"}};
  EXPECT_NO_THROW(check_plausible(s));
  s.cell.options = {{"heads", "100000"}};
  EXPECT_THROW(check_plausible(s), UsageError);
}

}  // namespace
}  // namespace rb
