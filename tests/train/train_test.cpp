// The trainer, for real: a small model learns a tiny MQAR and a tiny version of every other task; the
// same run twice gives identical numbers (curricula included); a NaN loss ends a run as "diverged"
// instead of crashing; curricula stages reach the curve; s5 reports per-depth accuracy; the
// length-generalisation curve; every result document validates against reports/schema/run.schema.json.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/train/train_api.h"
#include "tests/train/json_schema.h"

namespace rb {
namespace {

RunSpec tiny(const std::string& cell, int64_t seed) {
  RunSpec s;
  s.cell.name = cell;
  s.task.name = "mqar";
  s.task.options = {{"pairs", 2}, {"length", 16}, {"vocab", 32}};
  s.model.d_model = 32;
  s.train.steps = 400;
  s.train.batch = 32;
  s.train.eval_every = 25;
  s.train.eval_examples = 128;
  s.seed = seed;
  return resolve_spec(s);
}

TEST(Trainer, LearnsATinyRecallTask) {
  const auto r = train_run(tiny("diag+conv", 0), nullptr);
  EXPECT_EQ(r["result"]["status"], "ok");
  EXPECT_GE(r["result"]["best_accuracy"].get<double>(), 0.9) << r["curve"].dump();
}

TEST(Trainer, SameSeedSameNumbers) {
  auto spec = tiny("diag", 1);
  spec.train.steps = 60;
  const auto a = train_run(spec, nullptr), b = train_run(spec, nullptr);
  EXPECT_EQ(a["curve"], b["curve"]);
  EXPECT_EQ(a["result"]["final_accuracy"], b["result"]["final_accuracy"]);
  EXPECT_EQ(a["result"]["final_loss"], b["result"]["final_loss"]);
  EXPECT_EQ(a["key"], b["key"]);
}

TEST(Trainer, DivergenceIsRecordedNotThrown) {
  auto spec = tiny("diag", 2);
  spec.train.steps = 50;
  spec.train.lr = 1e30;  // guaranteed to blow up
  spec.train.warmup = 0.0;
  const auto r = train_run(spec, nullptr);
  EXPECT_EQ(r["result"]["status"], "diverged");
  EXPECT_FALSE(r["result"]["locked_in"].get<bool>());
  EXPECT_NE(r["result"]["message"].get<std::string>().find("loss became"), std::string::npos);
}

TEST(Trainer, ResolveFillsDefaultsAndRejectsNonsense) {
  RunSpec s;
  s.cell.name = "diag";
  s.task.name = "mqar";
  const RunSpec r = resolve_spec(s);
  EXPECT_EQ(r.task.options["pairs"], 8);
  EXPECT_EQ(r.cell.options["key_dim"], 64);
  s.train.steps = 0;
  EXPECT_THROW(resolve_spec(s), UsageError);
  s = RunSpec{};
  s.cell.name = "diag";
  s.task.name = "mqar";
  s.train.curriculum = "sideways";
  EXPECT_THROW(resolve_spec(s), UsageError);
}


// A small run of `cell` on `task` with these options (model width 32, batch 32, evaluation on 128).
RunSpec small(const std::string& cell, const std::string& task, const nlohmann::json& options, int64_t steps,
              int64_t seed = 0) {
  RunSpec s;
  s.cell.name = cell;
  s.task.name = task;
  s.task.options = options;
  s.model.d_model = 32;
  s.train.steps = steps;
  s.train.batch = 32;
  s.train.eval_every = 25;
  s.train.eval_examples = 128;
  s.seed = seed;
  return s;
}

// Learnability: a cell that should solve each task does, in a few seconds. Thresholds sit well above
// chance (haystack/collision 1/values, s5 1/6 at depth > 1, copy 1/6) and below what the runs reach.
struct Learnable {
  const char* task;
  nlohmann::json options;
  int64_t steps;
  double min_accuracy;
};

class TaskLearnability : public ::testing::TestWithParam<Learnable> {};

TEST_P(TaskLearnability, DiagConvLearnsIt) {
  const auto& p = GetParam();
  const auto r = train_run(resolve_spec(small("diag+conv", p.task, p.options, p.steps)), nullptr);
  EXPECT_EQ(r["result"]["status"], "ok");
  EXPECT_GE(r["result"]["best_accuracy"].get<double>(), p.min_accuracy) << r["curve"].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Tasks, TaskLearnability,
    ::testing::Values(Learnable{"mqar", {{"pairs", 2}, {"length", 16}, {"vocab", 32}, {"supervision", "dense"}, {"filler", "random"}}, 800, 0.9},
                      Learnable{"haystack", {{"pairs", 1}, {"length", 12}, {"vocab", 16}}, 800, 0.9},
                      Learnable{"collision", {{"pairs", 4}, {"length", 20}, {"vocab", 24}}, 500, 0.6},
                      Learnable{"s5", {{"elements", 3}, {"length", 3}}, 400, 0.9},
                      Learnable{"copy", {{"string_length", 3}, {"length", 8}, {"vocab", 8}}, 400, 0.9}),
    [](const ::testing::TestParamInfo<Learnable>& info) { return std::string(info.param.task); });

TEST(Trainer, CurriculumStagesReachTheCurveAndStayDeterministic) {
  auto spec = small("diag", "haystack", {{"pairs", 2}, {"length", 40}, {"vocab", 32}}, 100, 3);
  spec.train.curriculum = "distance";
  spec.train.curriculum_options = {{"start", 8}, {"stages", 2}, {"until", 0.5}};
  spec = resolve_spec(spec);
  EXPECT_EQ(spec.train.curriculum_options["start"], 8);
  EXPECT_NE(spec.config_key().find("/curriculum:distance/"), std::string::npos) << spec.config_key();
  const auto a = train_run(spec, nullptr), b = train_run(spec, nullptr);
  EXPECT_EQ(a["curve"], b["curve"]);
  EXPECT_EQ(a["result"]["curriculum"], b["result"]["curriculum"]);
  // 100 steps, two stages over the first 50: stage 0 (cap 8) for steps 1-24, stage 1 (cap 8 + (38-8)/2 = 23)
  // for 25-49, the task from 50.
  const auto& curve = a["curve"];
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve[0]["stage"], 1);  // step 25
  EXPECT_EQ(curve[0]["difficulty"]["max_distance"], 23);
  EXPECT_EQ(curve[1]["stage"], 2);  // step 50
  EXPECT_TRUE(curve[1]["difficulty"]["max_distance"].is_null());
  const auto& history = a["result"]["curriculum"]["history"];
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0]["max_distance"], 8);
  EXPECT_EQ(history[1]["step"], 25);
  EXPECT_EQ(history[2]["step"], 50);
}

TEST(Trainer, GatedCurriculumHoldsUntilTrainingAccuracyOrTheMaximum) {
  // A task the model cannot learn in 60 steps: the gate never opens, so each stage lasts max_stage_steps.
  auto spec = small("diag", "haystack", {{"pairs", 4}, {"length", 64}, {"vocab", 256}}, 70, 1);
  spec.train.curriculum = "gated";
  spec.train.curriculum_options = {{"stages", 3}, {"threshold", 0.99}, {"min_stage_steps", 5}, {"max_stage_steps", 20}};
  const auto r = train_run(resolve_spec(spec), nullptr);
  const auto& history = r["result"]["curriculum"]["history"];
  ASSERT_EQ(history.size(), 4u) << history.dump();
  EXPECT_EQ(history[1]["step"], 21);
  EXPECT_EQ(history[2]["step"], 41);
  EXPECT_EQ(history[3]["step"], 61);
  EXPECT_TRUE(history[3]["max_distance"].is_null());
  EXPECT_EQ(r["result"]["curriculum"]["final_stage"], 3);
}

TEST(Trainer, S5ReportsAccuracyPerDepthAndLengthGeneralisation) {
  auto spec = small("diag+conv", "s5", {{"elements", 3}, {"length", 6}}, 50, 0);
  spec.train.eval_lengths = {3, 12};
  const auto r = train_run(resolve_spec(spec), nullptr);
  const auto& b = r["result"]["breakdown"];
  ASSERT_TRUE(b.is_object());
  EXPECT_EQ(b["by"], "depth");
  ASSERT_EQ(b["groups"].size(), 6u);
  for (int64_t d = 0; d < 6; ++d) {
    EXPECT_EQ(b["groups"][d]["group"], d + 1);
    EXPECT_EQ(b["groups"][d]["labels"], 128);
  }
  // The mean over depths is the held-out accuracy (every example has the same labels per depth).
  double mean = 0;
  for (const auto& g : b["groups"]) mean += g["accuracy"].get<double>() / 6;
  EXPECT_NEAR(mean, r["result"]["final_accuracy"].get<double>(), 1e-9);
  const auto& lg = r["result"]["length_generalisation"];
  ASSERT_EQ(lg.size(), 2u);
  EXPECT_EQ(lg[0]["length"], 3);
  EXPECT_EQ(lg[1]["length"], 12);
  EXPECT_EQ(r["spec"]["train"]["eval_lengths"], nlohmann::json({3, 12}));
}

TEST(Trainer, ResolveRejectsBadCurriculaAndLengths) {
  auto spec = small("diag", "mqar", {}, 10);
  spec.train.curriculum = "ramp";
  spec.train.curriculum_options = {{"shape", "zigzag"}};
  try {
    resolve_spec(spec);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("zigzag"), std::string::npos) << e.what();
  }
  spec.train.curriculum = "sideways";
  spec.train.curriculum_options = nlohmann::json::object();
  try {
    resolve_spec(spec);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(e.hint().find("gated"), std::string::npos) << e.hint();
  }
  spec.train.curriculum = "none";
  spec.train.eval_lengths = {63};  // odd: mqar cannot be built there
  EXPECT_THROW(resolve_spec(spec), UsageError);
  // Defaults are recorded; `none` leaves the options (and so old keys) unchanged.
  spec.train.eval_lengths.clear();
  EXPECT_EQ(resolve_spec(spec).train.curriculum_options, nlohmann::json::object());
}

TEST(RunSchema, RealTrainerOutputValidates) {
  const auto path = std::filesystem::path(RB_SOURCE_DIR) / "reports/schema/run.schema.json";
  const rb::testing::SchemaValidator validator(read_json_file(path));
  // An ok run with a curriculum, a breakdown and a length-generalisation curve.
  auto spec = small("diag+conv", "s5", {{"elements", 3}, {"length", 6}}, 30, 0);
  spec.train.curriculum = "ramp";
  spec.train.curriculum_options = {{"over", "length"}, {"start", 2}, {"stages", 4}};
  spec.train.eval_lengths = {8};
  std::vector<nlohmann::json> docs = {train_run(resolve_spec(spec), nullptr)};
  // A locked-in run, and a diverged one.
  auto locked = small("diag+conv", "copy", {{"string_length", 1}, {"length", 4}, {"vocab", 4}}, 200, 0);
  locked.train.threshold = 0.5;
  docs.push_back(train_run(resolve_spec(locked), nullptr));
  EXPECT_TRUE(docs.back()["result"]["locked_in"].get<bool>());
  auto diverged = small("diag", "mqar", {{"pairs", 2}, {"length", 16}, {"vocab", 32}}, 20, 2);
  diverged.train.warmup = 0;
  RunSpec exploding = resolve_spec(diverged);
  exploding.train.lr = 1e30;  // past resolve_spec's plausible bounds on purpose: the trainer must record the blow-up
  docs.push_back(train_run(exploding, nullptr));
  EXPECT_EQ(docs.back()["result"]["status"], "diverged");
  EXPECT_TRUE(docs.back()["result"]["divergence"].is_object());
  for (const auto& doc : docs) {
    const auto errors = validator.validate(doc);
    EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors);
  }
  // The validator is not vacuous: an undocumented field, a wrong type and a missing field all fail.
  auto bad = docs[0];
  bad["result"]["surprise"] = 1;
  bad["curve"][0]["accuracy"] = "high";
  bad["result"].erase("locked_in");
  EXPECT_EQ(validator.validate(bad).size(), 3u) << ::testing::PrintToString(validator.validate(bad));
}

}  // namespace
}  // namespace rb
