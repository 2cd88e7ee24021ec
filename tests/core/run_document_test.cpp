// The run document's one writer and one reader: a round trip, and every wrong type or range a hostile or
// corrupt file can carry is a UsageError naming the field (never a JSON exception, never a crash).
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "core/json_io.h"
#include "core/run_document.h"

namespace rb {
namespace {

using json = nlohmann::json;

RunDocument sample() {
  RunDocument d;
  d.spec = {{"cell", {{"name", "diag+conv"}, {"options", json::object()}}},
            {"task", {{"name", "mqar"}, {"options", {{"pairs", 4}}}}},
            {"model", {{"d_model", 32}}},
            {"train", {{"steps", 1000}}},
            {"seed", 3}};
  d.config_key = "mqar/diag+conv/" + short_hash(canonical_config(d.spec));  // the key covers the spec
  d.key = d.config_key + "/seed:3";
  d.context = {{"git_commit", "abc"}};
  d.result.reached_threshold = true;
  d.result.lock_in_step = 350;
  d.result.final_accuracy = 0.93;
  d.result.best_accuracy = 0.95;
  d.result.steps = 350;
  d.result.wall_seconds = 12.5;
  d.result.state_size = 1312;
  d.result.parameters = 28288;
  d.result.architecture = "0123456789ab";
  d.result.details = {{"final_loss", 0.1}, {"breakdown", nullptr}};
  d.curve.push_back({50, 0.2, 2.5, {{"lr", 0.003}}});
  d.curve.push_back({350, 0.93, std::nan(""), {{"lr", 0.001}}});
  return d;
}

std::string error_of(const json& doc) {
  try {
    RunDocument::from_json(doc, "run.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(RunDocument, RoundTripsEveryField) {
  const json j = sample().to_json();
  EXPECT_EQ(j["kind"], "recallbench.run");
  EXPECT_EQ(j["schema_version"], kRunSchemaVersion);
  EXPECT_TRUE(j["curve"][1]["loss"].is_null());
  const RunDocument back = RunDocument::from_json(j, "run.json");
  EXPECT_EQ(back.to_json(), j);  // the reader keeps everything the writer wrote
  EXPECT_EQ(back.seed(), 3);
  EXPECT_EQ(back.cell(), "diag+conv");
  EXPECT_EQ(back.result.lock_in_step, 350);
  EXPECT_EQ(back.result.architecture, "0123456789ab");
  EXPECT_EQ(back.result.details["final_loss"], 0.1);
}

TEST(RunDocument, WrongTypesAndRangesNameTheField) {
  const json good = sample().to_json();
  const auto with = [&](const json::json_pointer& at, const json& value) {
    json j = good;
    j[at] = value;
    return error_of(j);
  };
  EXPECT_NE(with("/kind"_json_pointer, 5).find("kind"), std::string::npos);
  EXPECT_NE(with("/schema_version"_json_pointer, 7).find("schema_version 7"), std::string::npos);
  EXPECT_NE(with("/result/final_accuracy"_json_pointer, "high").find("'result.final_accuracy' got \"high\""),
            std::string::npos);
  EXPECT_NE(with("/result/final_accuracy"_json_pointer, 1.5).find("expected a number in [0, 1]"), std::string::npos);
  EXPECT_NE(with("/result/steps"_json_pointer, -4).find("'result.steps'"), std::string::npos);
  EXPECT_NE(with("/result/steps"_json_pointer, 18446744073709551615ull).find("'result.steps'"), std::string::npos);
  EXPECT_NE(with("/result/state_size"_json_pointer, 1e300).find("'result.state_size'"), std::string::npos);
  EXPECT_NE(with("/result/status"_json_pointer, "fine").find("'result.status'"), std::string::npos);
  EXPECT_NE(with("/result/lock_in_step"_json_pointer, nullptr).find("contradict each other"), std::string::npos);
  EXPECT_NE(with("/spec/seed"_json_pointer, "3").find("'spec.seed'"), std::string::npos);
  EXPECT_NE(with("/spec/cell"_json_pointer, json::array()).find("'spec.cell'"), std::string::npos);
  EXPECT_NE(with("/curve"_json_pointer, json::array({json::array({json::array()})})).find("'curve[0]'"),
            std::string::npos);
  EXPECT_NE(with("/curve/0/accuracy"_json_pointer, nullptr).find("'curve[0].accuracy'"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("the document"), std::string::npos);
  // A spec edited after the run no longer matches its key (issue 13: fields that contradict the key).
  EXPECT_NE(with("/spec/train/steps"_json_pointer, 2000).find("its spec hashes to"), std::string::npos);
  EXPECT_NE(with("/key"_json_pointer, "mqar/diag+conv/other/seed:3").find("belongs to another run"), std::string::npos);
  json no_result = good;
  no_result.erase("result");
  EXPECT_NE(error_of(no_result).find("missing field 'result'"), std::string::npos);
}

}  // namespace
}  // namespace rb
