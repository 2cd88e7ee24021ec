#include <filesystem>
#include <fstream>

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

// A script cell's sidecar (issue 29): names the cell and records a description and options, outside the key.
class ScriptSidecar : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rb_sidecar_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "gla.pt") << "not really TorchScript: prepare_script_cell reads only the bytes";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void sidecar(const std::string& text) { std::ofstream(dir_ / "gla.cell.json") << text; }
  RunSpec prepared() {
    RunSpec s = example();
    s.cell = NamedSpec{};
    s.cell.name = "script:" + (dir_ / "gla.pt").string();
    prepare_script_cell(s.cell, "");
    return s;
  }
  std::filesystem::path dir_;
};

TEST_F(ScriptSidecar, WithoutOneTheCellIsNamedByItsFile) {
  const RunSpec s = prepared();
  EXPECT_EQ(s.cell.name, "script:gla");
  EXPECT_TRUE(s.cell.info.empty());
  EXPECT_FALSE(s.to_json()["cell"].contains("info"));
}

TEST_F(ScriptSidecar, NamesTheCellAndRecordsDescriptionAndOptionsOutsideTheKey) {
  sidecar(R"({"name": "gated_la", "description": "gated linear attention, one head", "options": {"heads": 1, "gate": "sigmoid"}})");
  const RunSpec s = prepared();
  EXPECT_EQ(s.cell.name, "script:gated_la");
  EXPECT_EQ(s.cell.info.at("description"), "gated linear attention, one head");
  EXPECT_EQ(s.cell.info.at("options").at("heads"), 1);
  EXPECT_EQ(s.cell.info.at("sidecar"), "gla.cell.json");
  const RunSpec back = RunSpec::from_json(s.to_json());
  EXPECT_EQ(back.cell.info, s.cell.info);
  EXPECT_EQ(back.key(), s.key());
  // A new description keeps every run key: nothing is retrained for an edited text.
  sidecar(R"({"name": "gated_la", "description": "reworded"})");
  EXPECT_EQ(prepared().key(), s.key());
  EXPECT_EQ(s.config_key().rfind("mqar/script:gated_la/", 0), 0u) << s.config_key();
}

TEST_F(ScriptSidecar, BadContentIsRefusedNamingTheField) {
  for (const char* bad : {R"([1, 2])", R"({"name": "has space"})", R"({"name": ""})", R"({"nmae": "x"})",
                          R"({"description": 3})", R"({"options": {"heads": [1]}})", R"({"options": 2})", "{"}) {
    sidecar(bad);
    EXPECT_THROW(prepared(), UsageError) << bad;
  }
}

}  // namespace
}  // namespace rb
