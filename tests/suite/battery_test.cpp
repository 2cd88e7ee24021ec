// Batteries and the planner: schema validation (each error names its field), presets, round trips,
// contrast expansion, shards.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "suite/battery.h"
#include "core/errors.h"
#include "suite/planner.h"

namespace rb {
namespace {

using nlohmann::json;

json tiny() {
  return json::parse(R"({
    "schema_version": 1, "name": "t", "cells": ["diag", "diag+conv"], "reference": "diag+conv",
    "model": {"d_model": 8, "layers": 1, "mlp": false}, "seeds": "0-1",
    "tasks": [{"name": "mqar", "options": {"vocab": 16}, "grid": {"pairs": [2], "length": [16, 24]}}],
    "recipes": [{"name": "r", "steps": 5, "batch": 4, "eval_examples": 8}],
    "contrasts": ["conv", "reference"]})");
}

// The message of the UsageError that parsing (and planning) `j` throws; "" when it is accepted.
std::string error_of(const json& j) {
  try {
    make_plan(Battery::from_json(j, "battery t.json"));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Battery, AcceptsTheTinyBattery) { EXPECT_EQ(error_of(tiny()), ""); }

TEST(Battery, ErrorsNameTheField) {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"schema version", [](json& j) { j["schema_version"] = 2; }, "field 'schema_version': expected 1, got integer 2"},
      {"missing field", [](json& j) { j.erase("tasks"); }, "missing field 'tasks'"},
      {"unknown field", [](json& j) { j["seed"] = 1; }, "unknown field 'seed'"},
      {"nested unknown", [](json& j) { j["tasks"][0]["grd"] = json::object(); }, "unknown field 'tasks[0].grd'"},
      {"grid scalar", [](json& j) { j["tasks"][0]["grid"]["pairs"] = 2; }, "field 'tasks[0].grid.pairs': expected a non-empty list"},
      {"grid empty", [](json& j) { j["tasks"][0]["grid"]["length"] = json::array(); }, "tasks[0].grid.length"},
      {"grid and option", [](json& j) { j["tasks"][0]["options"]["pairs"] = 2; }, "both in tasks[0].options and tasks[0].grid"},
      {"unregistered cell", [](json& j) { j["cells"][0] = "warp9"; }, "field 'cells[0]': cell 'warp9' is not registered"},
      {"reference not in cells", [](json& j) { j["reference"] = "rank1"; }, "field 'reference'"},
      {"seeds", [](json& j) { j["seeds"] = "3-1"; }, "field 'seeds'"},
      {"duplicate seeds", [](json& j) { j["seeds"] = json::array({1, 1}); }, "field 'seeds': expected distinct seeds"},
      {"steps type", [](json& j) { j["recipes"][0]["steps"] = "many"; }, "field 'recipes[0].steps': expected an integer"},
      {"threshold", [](json& j) { j["threshold"] = 1.5; }, "field 'threshold'"},
      {"contrast kind", [](json& j) { j["contrasts"][0] = "colour"; }, "field 'contrasts[0]'"},
      {"unknown task", [](json& j) { j["tasks"][0]["name"] = "nope"; }, "unknown task 'nope'"},
      {"bad grid point", [](json& j) { j["tasks"][0]["grid"]["pairs"] = json::array({2, 9}); }, "tasks[0] (mqar length:16 pairs:9"},
      {"unknown option", [](json& j) { j["tasks"][0]["options"]["colour"] = 1; }, "unknown option 'colour'"},
      {"cells type", [](json& j) { j["cells"] = "some"; }, "field 'cells': expected \"all\" or a non-empty list"},
      {"duplicate run", [](json& j) { j["tasks"].push_back(j["tasks"][0]); }, "appears twice"},
  };
  for (const auto& c : cases) {
    json j = tiny();
    c.edit(j);
    const std::string msg = error_of(j);
    EXPECT_NE(msg.find(c.expected), std::string::npos) << c.what << ": got \"" << msg << "\", expected it to contain \""
                                                       << c.expected << "\"";
  }
}

TEST(Battery, RoundTripKeepsTheKeys) {
  for (const auto& entry : BatteryRegistry::instance().entries()) {
    const Battery b = entry.make();
    const Battery again = Battery::from_json(b.to_json(), "round trip");
    EXPECT_EQ(b.to_json(), again.to_json()) << entry.name;
  }
  const Plan a = make_plan(Battery::from_json(tiny(), "t"));
  const Plan b = make_plan(Battery::from_json(a.battery.to_json(), "t"));
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i) EXPECT_EQ(a.runs[i].key(), b.runs[i].key());
}

TEST(Battery, PresetsPlanOrNameTheMissingCell) {
  const auto registered = registered_cells();
  for (const auto& entry : BatteryRegistry::instance().entries()) {
    const Battery b = entry.make();
    bool all_registered = true;
    for (const auto& c : b.cells)
      all_registered = all_registered && std::find(registered.begin(), registered.end(), c) != registered.end();
    if (!all_registered) {  // cells land in other work: the planner must name the missing one
      try {
        make_plan(b);
        ADD_FAILURE() << entry.name << " planned with an unregistered cell";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("is not registered"), std::string::npos) << e.what();
      }
    }
  }
  const Plan first = make_plan(load_battery("first"));
  EXPECT_EQ(first.runs.size(), 6u);
  ASSERT_EQ(first.contrasts.size(), 1u);
  EXPECT_EQ(first.contrasts[0].knob, "conv");
}

// The bidirectional denoiser (issue 45) reads the whole sequence: every causal battery refuses it, by name or
// in "all", and only a battery whose model sets bidirectional runs it.
TEST(Battery, ACausalBatteryRefusesTheDenoiser) {
  json j = tiny();
  j["cells"] = {"bidir-rank1+decay+conv"};
  j.erase("reference");
  j.erase("contrasts");
  const std::string refused = error_of(j);
  EXPECT_NE(refused.find("reads the whole sequence"), std::string::npos) << refused;
  j["model"]["bidirectional"] = true;
  EXPECT_EQ(error_of(j), "");
  const Plan bidirectional = make_plan(Battery::from_json(j, "t"));
  EXPECT_EQ(bidirectional.runs.front().to_json()["model"]["bidirectional"], true);
  j["model"]["bidirectional"] = "yes";
  EXPECT_NE(error_of(j).find("model.bidirectional"), std::string::npos);
  json all = tiny();
  all["cells"] = "all";
  all.erase("reference");
  all.erase("contrasts");
  const auto cells_of = [](const Plan& p) {
    std::set<std::string> out;
    for (const auto& r : p.runs) out.insert(r.cell.name);
    return out;
  };
  EXPECT_EQ(cells_of(make_plan(Battery::from_json(all, "t"))).count("bidir-rank1+decay+conv"), 0u);
  EXPECT_EQ(cells_of(make_plan(Battery::from_json(all, "t"))).count("rank1+decay+conv"), 1u);
  // A causal run's key does not change: "bidirectional" is recorded only when true.
  EXPECT_FALSE(make_plan(Battery::from_json(tiny(), "t")).runs.front().to_json()["model"].contains("bidirectional"));
}

json tuned() {
  json j = tiny();
  j["tuning"] = {{"lr", {1e-2, 1e-3, 3e-3}}, {"seeds", "100-101"}};
  return j;
}

TEST(BatteryTuning, ErrorsNameTheField) {
  EXPECT_EQ(error_of(tuned()), "");
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"scoring seed", [](json& j) { j["tuning"]["seeds"] = "1-2"; }, "field 'tuning.seeds': seed 1 is also a scoring seed"},
      {"one rate", [](json& j) { j["tuning"]["lr"] = {1e-3}; }, "field 'tuning.lr': expected a list of at least two"},
      {"same rate twice", [](json& j) { j["tuning"]["lr"] = {1e-3, 0.001}; }, "field 'tuning.lr': expected distinct"},
      {"rate out of range", [](json& j) { j["tuning"]["lr"] = {1e-3, 20.0}; }, "field 'tuning.lr': expected learning rates in"},
      {"rate type", [](json& j) { j["tuning"]["lr"] = {1e-3, "fast"}; }, "field 'tuning.lr'"},
      {"no seeds", [](json& j) { j["tuning"].erase("seeds"); }, "missing field 'tuning.seeds'"},
      {"bad seeds", [](json& j) { j["tuning"]["seeds"] = "9-3"; }, "field 'tuning.seeds'"},
      {"unknown rule", [](json& j) { j["tuning"]["rule"] = "best-recall"; }, "field 'tuning.rule': expected one of lock-ins-then-recall"},
      {"unknown field", [](json& j) { j["tuning"]["budget"] = 0.5; }, "unknown field 'tuning.budget'"},
      {"not an object", [](json& j) { j["tuning"] = json::array(); }, "field 'tuning': expected an object"},
  };
  for (const auto& c : cases) {
    json j = tuned();
    c.edit(j);
    const std::string msg = error_of(j);
    EXPECT_NE(msg.find(c.expected), std::string::npos) << c.what << ": got \"" << msg << "\"";
  }
}

// The tuning stage is every config of the battery at each rate, on the tuning seeds only, without contrasts;
// the scoring plan trains each cell at its chosen rate and keeps the battery's contrasts.
TEST(BatteryTuning, TuningPlanAndScoringAtTheChosenRates) {
  const Battery b = Battery::from_json(tuned(), "t");
  EXPECT_EQ(Battery::from_json(b.to_json(), "again").to_json(), b.to_json());
  ASSERT_TRUE(b.tuning.has_value());
  EXPECT_EQ(b.tuning->lrs, (std::vector<double>{1e-3, 3e-3, 1e-2}));  // ascending

  const Plan tuning = make_tuning_plan(b);
  EXPECT_EQ(tuning.stage, PlanStage::kTuning);
  EXPECT_TRUE(tuning.contrasts.empty());
  EXPECT_EQ(tuning.runs.size(), 2u * 2u * 3u * 2u);  // cells × lengths × rates × tuning seeds
  std::set<double> rates;
  for (const auto& r : tuning.runs) {
    EXPECT_TRUE(r.seed == 100 || r.seed == 101) << r.key();
    rates.insert(r.train.lr);
  }
  EXPECT_EQ(rates, (std::set<double>{1e-3, 3e-3, 1e-2}));

  const Plan unchosen = make_plan(b);  // what `plan` costs: the recipes' rate
  EXPECT_EQ(unchosen.stage, PlanStage::kScoring);
  Battery chosen = b;
  chosen.rates = {{"diag", 1e-2}, {"diag+conv", 1e-3}};
  const Plan scoring = make_plan(chosen);
  EXPECT_EQ(scoring.runs.size(), unchosen.runs.size());
  EXPECT_EQ(scoring.contrasts.size(), unchosen.contrasts.size());
  for (const auto& r : scoring.runs) {
    EXPECT_TRUE(r.seed == 0 || r.seed == 1);
    EXPECT_EQ(r.train.lr, r.cell.name == "diag" ? 1e-2 : 1e-3) << r.key();
  }
  // The scoring runs at the chosen rate are the tuning stage's configs at that rate, on other seeds.
  std::set<std::string> tuning_configs;
  for (const auto& r : tuning.runs) tuning_configs.insert(r.config_key());
  for (const auto& r : scoring.runs) EXPECT_TRUE(tuning_configs.count(r.config_key())) << r.key();
  EXPECT_EQ(scoring.to_json()["rates"], json({{"diag", 1e-2}, {"diag+conv", 1e-3}}));
  EXPECT_EQ(scoring.to_json()["stage"], "scoring");
  // A battery without tuning: no stage, no rates in its plan document (plan.json unchanged).
  const json plain = make_plan(Battery::from_json(tiny(), "t")).to_json();
  EXPECT_FALSE(plain.contains("stage"));
  EXPECT_FALSE(plain.contains("rates"));
  EXPECT_THROW(make_tuning_plan(Battery::from_json(tiny(), "t")), UsageError);
}

TEST(Battery, LoadBatteryErrors) {
  try {
    load_battery("nope");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.hint()).find("smoke"), std::string::npos);
  }
  EXPECT_THROW(load_battery("/nonexistent/b.json"), UsageError);
}

TEST(Planner, OrderKeysAndContrasts) {
  const Plan p = make_plan(Battery::from_json(tiny(), "t"));
  ASSERT_EQ(p.runs.size(), 8u);  // 2 lengths x 1 recipe x 2 cells x 2 seeds
  std::set<std::string> keys;
  for (const auto& r : p.runs) keys.insert(r.key());
  EXPECT_EQ(keys.size(), 8u);
  // Order: grid point, then cell, then seed.
  EXPECT_EQ(p.runs[0].cell.name, "diag");
  EXPECT_EQ(p.runs[1].seed, 1);
  EXPECT_EQ(p.runs[2].cell.name, "diag+conv");
  EXPECT_EQ(p.runs[4].task.options["length"], 24);
  // conv (diag+conv vs diag) at each of the 2 lengths; the reference contrast (diag vs diag+conv) is the same
  // pair, so it is not tested a second time.
  ASSERT_EQ(p.contrasts.size(), 2u);
  size_t conv = 0;
  for (const auto& c : p.contrasts) {
    if (c.knob == "conv") {
      ++conv;
      EXPECT_NE(c.a.find("/diag+conv/"), std::string::npos) << c.a;
      EXPECT_NE(c.b.find("/diag/"), std::string::npos) << c.b;
    }
    EXPECT_NE(c.a, c.b);
  }
  EXPECT_EQ(conv, 2u);
}

TEST(Planner, KnobContrastsFromNames) {
  json j = tiny();
  const auto registered = registered_cells();
  std::vector<std::string> want = {"diag", "diag+conv", "rank1", "rank1+conv", "diag+decay", "diag+decay+conv"};
  for (const auto& c : want)
    if (std::find(registered.begin(), registered.end(), c) == registered.end())
      GTEST_SKIP() << "cell " << c << " is not registered in this build";
  j["cells"] = want;
  j["contrasts"] = {"conv", "decay", "transition", "reference"};
  j["tasks"][0]["grid"]["length"] = {16};
  const Plan p = make_plan(Battery::from_json(j, "t"));
  std::map<std::string, int> count;
  for (const auto& c : p.contrasts) ++count[c.knob];
  EXPECT_EQ(count["conv"], 3);        // diag, rank1, diag+decay
  EXPECT_EQ(count["decay"], 2);       // diag, diag+conv
  EXPECT_EQ(count["transition"], 2);  // diag, diag+conv
  // Against the reference (diag+conv, tiny()'s): the five others, less diag (conv), diag+decay+conv (decay)
  // and rank1+conv (transition), which a knob contrast already tests.
  EXPECT_EQ(count["reference"], 2);
}

TEST(Planner, ShardsPartitionThePlan) {
  for (size_t n : {0u, 1u, 7u, 12u}) {
    for (int count : {1, 2, 3, 5}) {
      std::vector<int> seen(n, 0);
      for (int i = 0; i < count; ++i)
        for (size_t k : shard_indices(n, Shard{i, count})) ++seen[k];
      for (size_t k = 0; k < n; ++k) EXPECT_EQ(seen[k], 1) << "n " << n << " shards " << count << " run " << k;
    }
  }
  EXPECT_EQ(Shard::parse("2/3").index, 2);
  for (const char* bad : {"3/3", "-1/3", "1", "a/b", "1/0", "1/3x"}) EXPECT_THROW(Shard::parse(bad), UsageError) << bad;
}

TEST(Planner, CostEstimateGrowsWithWork) {
  RunSpec a;
  a.task.options = {{"length", 64}};
  RunSpec b = a;
  b.train.steps *= 2;
  EXPECT_GT(estimate_run_seconds(a), 0.0);
  EXPECT_NEAR(estimate_run_seconds(b), 2 * estimate_run_seconds(a), 1e-9);
}

}  // namespace
}  // namespace rb
