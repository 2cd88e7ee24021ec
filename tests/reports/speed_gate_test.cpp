// judge/speed_gate and reports/speed_gate: the speed gate's decisions, their reasons in words and
// the A/A calibration on planted Google Benchmark JSON (built in memory with seeded noise; untimed).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "reports/speed_gate.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb::reports {
namespace {

using judge::BenchComparison;
using judge::calibrate_noise;
using judge::compare_bench;
using judge::SpeedComparison;
using judge::SpeedGateOptions;
using judge::SpeedReason;
using judge::speed_exit_code;
using nlohmann::json;
namespace fs = std::filesystem;

// A benchmark's planted repetitions: `reps` times around `ms` with multiplicative log-normal noise `sd`,
// written as Google Benchmark writes them (iteration rows, then mean/median/stddev aggregates).
struct Planted {
  std::string name;
  double ms = 1.0;
};

json bench_doc(const std::vector<Planted>& benches, int reps, double sd, uint32_t seed, double slow_factor = 1.0,
               const std::string& slow_name = "", const std::string& time_key = "cpu_time") {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sd);
  json rows = json::array();
  for (const auto& b : benches) {
    const std::string run_name = b.name + "/process_time";
    double sum = 0.0;
    for (int r = 0; r < reps; ++r) {
      const double t = b.ms * std::exp(noise(rng)) * (b.name == slow_name ? slow_factor : 1.0);
      sum += t;
      rows.push_back({{"name", run_name}, {"run_name", run_name}, {"run_type", "iteration"}, {"repetitions", reps},
                      {"repetition_index", r}, {"iterations", 100}, {"real_time", t}, {"cpu_time", t},
                      {"time_unit", "ms"}});
    }
    for (const char* agg : {"mean", "median", "stddev"})
      rows.push_back({{"name", run_name + "_" + agg}, {"run_name", run_name}, {"run_type", "aggregate"},
                      {"aggregate_name", agg}, {"real_time", agg == std::string("stddev") ? 0.01 : sum / reps},
                      {"cpu_time", agg == std::string("stddev") ? 0.01 : sum / reps}, {"time_unit", "ms"}});
  }
  return {{"context", {{"date", "2026-11-29"}, {"num_cpus", 2}}},
          {"benchmarks", rows},
          {"recallbench", {{"time", time_key}}}};
}

std::vector<Planted> battery(int n) {
  std::vector<Planted> out;
  for (int i = 0; i < n; ++i) out.push_back({"kernel" + std::to_string(i) + "/fwd/T:" + std::to_string(64 << (i % 4)),
                                             0.5 + 0.3 * i});
  return out;
}

SpeedComparison run(const json& base, const json& cur, SpeedGateOptions o = {}) {
  return compare_bench(bench_file_from_json(base, "base"), bench_file_from_json(cur, "cur"), o);
}

const BenchComparison& find(const SpeedComparison& c, const std::string& prefix) {
  for (const auto& b : c.benchmarks)
    if (b.name.rfind(prefix, 0) == 0) return b;
  throw std::runtime_error("no benchmark " + prefix);
}

TEST(SpeedGate, ReadsRepetitionsSkipsAggregatesAndConvertsUnits) {
  auto doc = bench_doc({{"a", 2.0}}, 9, 0.0, 1);
  doc["benchmarks"][0]["time_unit"] = "us";
  doc["benchmarks"][0]["cpu_time"] = 2000.0;
  const auto f = bench_file_from_json(doc, "x");
  EXPECT_EQ(f.time_key, "cpu_time");
  ASSERT_EQ(f.runs.size(), 1u);
  const auto& r = f.runs.at("a/process_time");
  ASSERT_EQ(r.size(), 9u);  // the 3 aggregate rows are not repetitions
  for (double t : r) EXPECT_DOUBLE_EQ(t, 2e6);  // ns
  EXPECT_TRUE(is_bench_json(doc));
  EXPECT_FALSE(is_bench_json(json{{"configs", json::array()}}));
}

TEST(SpeedGate, BadInputIsAUsageError) {
  EXPECT_THROW(bench_file_from_json(json{{"runs", 1}}, "x"), UsageError);
  auto doc = bench_doc({{"a", 1.0}}, 3, 0.0, 1);
  doc["benchmarks"][0].erase("cpu_time");
  EXPECT_THROW(bench_file_from_json(doc, "x"), UsageError);
  doc = bench_doc({{"a", 1.0}}, 3, 0.0, 1);
  doc["benchmarks"][1]["time_unit"] = "fortnights";
  EXPECT_THROW(bench_file_from_json(doc, "x"), UsageError);
  // Fields of another type (issue 28: `history add` reads a benchmark file through this function alone).
  for (const auto& [field, value] : {std::pair{"run_type", json(5)}, {"run_name", json::array()}, {"time_unit", json(1)}}) {
    doc = bench_doc({{"a", 1.0}}, 3, 0.0, 1);
    doc["benchmarks"][0][field] = value;
    EXPECT_THROW(bench_file_from_json(doc, "x"), UsageError) << field;
  }
  doc = bench_doc({{"a", 1.0}}, 3, 0.0, 1);
  doc["recallbench"]["time"] = 5;
  EXPECT_THROW(bench_file_from_json(doc, "x"), UsageError);
  // Different time keys, and no shared benchmark.
  EXPECT_THROW(run(bench_doc({{"a", 1.0}}, 9, 0.01, 1), bench_doc({{"a", 1.0}}, 9, 0.01, 2, 1.0, "", "real_time")),
               UsageError);
  EXPECT_THROW(run(bench_doc({{"a", 1.0}}, 9, 0.01, 1), bench_doc({{"b", 1.0}}, 9, 0.01, 2)), UsageError);
  SpeedGateOptions bad;
  bad.threshold = -0.1;
  EXPECT_THROW(run(bench_doc({{"a", 1.0}}, 9, 0.01, 1), bench_doc({{"a", 1.0}}, 9, 0.01, 2), bad), UsageError);
}

TEST(SpeedGate, PlantedThirtyPercentSlowdownIsTheOnlyRegression) {
  const auto benches = battery(12);
  const auto c = run(bench_doc(benches, 9, 0.02, 1), bench_doc(benches, 9, 0.02, 2, 1.3, benches[5].name));
  EXPECT_EQ(c.verdict, SpeedVerdict::kRegression);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.tests, 12);
  const auto& b = find(c, benches[5].name);
  EXPECT_EQ(b.verdict, SpeedVerdict::kRegression) << speed_reason(b, {});
  EXPECT_EQ(b.reason, SpeedReason::kSlowerSignificant);
  EXPECT_NEAR(b.change, 0.3, 0.05);
  EXPECT_LT(b.p_adj, 0.05);
  EXPECT_EQ(c.benchmarks.front().name, b.name);  // most severe first
  EXPECT_EQ(speed_exit_code(c, false), 1);
}

TEST(SpeedGate, AANeverFlaggedOverManyRepeatedComparisons) {
  const auto benches = battery(20);
  for (uint32_t trial = 0; trial < 50; ++trial) {
    const auto c = run(bench_doc(benches, 9, 0.03, 100 + 2 * trial), bench_doc(benches, 9, 0.03, 101 + 2 * trial));
    EXPECT_EQ(c.regressions, 0) << "trial " << trial;
    EXPECT_EQ(speed_exit_code(c, false), 0);
  }
}

TEST(SpeedGate, FewerThanNineRepetitionsAreUnreliable) {
  const auto benches = battery(3);
  const auto c = run(bench_doc(benches, 8, 0.01, 1), bench_doc(benches, 8, 0.01, 2, 2.0, benches[0].name));
  EXPECT_EQ(c.tests, 0);
  EXPECT_EQ(c.unreliable, 3);
  EXPECT_EQ(c.regressions, 0);  // even a doubling is no verdict without repetitions
  EXPECT_EQ(c.verdict, SpeedVerdict::kUnreliable);
  EXPECT_EQ(speed_exit_code(c, false), 0);
  EXPECT_EQ(speed_exit_code(c, true), 3);
  // One side with 9 is not enough either.
  const auto d = run(bench_doc(benches, 9, 0.01, 1), bench_doc(benches, 8, 0.01, 2));
  EXPECT_EQ(d.unreliable, 3);
}

TEST(SpeedGate, SignificantButBelowThresholdIsNoChange) {
  const auto benches = battery(4);
  const auto c = run(bench_doc(benches, 15, 0.005, 1), bench_doc(benches, 15, 0.005, 2, 1.05, benches[1].name));
  const auto& b = find(c, benches[1].name);
  EXPECT_LT(b.p_adj, 0.05);  // clearly slower ...
  EXPECT_EQ(b.verdict, SpeedVerdict::kNoChange) << speed_reason(b, {});  // ... but by 5% < 10%
  EXPECT_EQ(b.reason, SpeedReason::kSignificantWithinThreshold);
  SpeedGateOptions tight;
  tight.threshold = 0.03;
  EXPECT_EQ(find(run(bench_doc(benches, 15, 0.005, 1), bench_doc(benches, 15, 0.005, 2, 1.05, benches[1].name), tight),
                 benches[1].name)
                .verdict,
            SpeedVerdict::kRegression);
}

TEST(SpeedGate, LargeButNoisySlowdownIsInconclusive) {
  // Two repetitions per side land far away: median +30%, but the rank test cannot separate them.
  auto base = bench_doc({{"a", 1.0}}, 9, 0.0, 1);
  auto cur = bench_doc({{"a", 1.0}}, 9, 0.0, 1);
  const std::vector<double> b{0.7, 0.8, 0.9, 1.0, 1.0, 1.1, 1.2, 1.5, 1.6};
  const std::vector<double> c{0.75, 0.85, 1.0, 1.25, 1.3, 1.35, 1.4, 1.45, 1.55};
  for (int i = 0; i < 9; ++i) {
    base["benchmarks"][i]["cpu_time"] = b[i];
    cur["benchmarks"][i]["cpu_time"] = c[i];
  }
  const auto r = run(base, cur);
  ASSERT_EQ(r.benchmarks.size(), 1u);
  EXPECT_GT(r.benchmarks[0].change, 0.1);
  EXPECT_GT(r.benchmarks[0].p_adj, 0.05);
  EXPECT_EQ(r.verdict, SpeedVerdict::kInconclusive) << speed_reason(r.benchmarks[0], {});
  EXPECT_EQ(r.benchmarks[0].reason, SpeedReason::kSlowerNotSignificant);
  EXPECT_EQ(speed_exit_code(r, false), 0);
  EXPECT_EQ(speed_exit_code(r, true), 3);
}

TEST(SpeedGate, ImprovementIsNotARegression) {
  const auto benches = battery(3);
  const auto c = run(bench_doc(benches, 9, 0.01, 1), bench_doc(benches, 9, 0.01, 2, 0.5, benches[2].name));
  EXPECT_EQ(find(c, benches[2].name).verdict, SpeedVerdict::kImprovement);
  EXPECT_EQ(c.verdict, SpeedVerdict::kImprovement);
  EXPECT_EQ(speed_exit_code(c, true), 0);
}

TEST(SpeedGate, HolmCorrectionAcrossBenchmarksDecides) {
  // 9 vs 9 fully separated: the smallest two-sided exact p is 2 / C(18, 9) ≈ 4.1e-5. Alone that is a
  // regression; among 1300 tested benchmarks Holm needs p ≤ 0.05 / 1300 ≈ 3.8e-5, so it is not.
  const std::vector<Planted> one{{"slow", 1.0}};
  const auto alone = run(bench_doc(one, 9, 0.01, 1), bench_doc(one, 9, 0.01, 2, 1.5, "slow"));
  EXPECT_EQ(alone.verdict, SpeedVerdict::kRegression);
  auto many = battery(1299);
  many.push_back({"slow", 1.0});
  const auto c = run(bench_doc(many, 9, 0.01, 1), bench_doc(many, 9, 0.01, 2, 1.5, "slow"));
  const auto& b = find(c, "slow");
  EXPECT_LT(b.p, 0.05 / 1000);
  EXPECT_GT(b.p_adj, 0.05);
  EXPECT_EQ(b.verdict, SpeedVerdict::kInconclusive);
  EXPECT_EQ(c.regressions, 0);
}

TEST(SpeedGate, MachineCeilingsAreShownNotGated) {
  const std::vector<Planted> b{{"ceiling/triad/N:16777216", 20.0}, {"k", 1.0}};
  const auto c = run(bench_doc(b, 9, 0.01, 1), bench_doc(b, 9, 0.01, 2, 1.5, "ceiling/triad/N:16777216"));
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.tests, 1);
  const auto& t = find(c, "ceiling/");
  EXPECT_FALSE(t.gated);
  EXPECT_NEAR(t.change, 0.5, 0.05);
  EXPECT_EQ(c.verdict, SpeedVerdict::kNoChange);
}

// The machine is 25% slower in the current run (every benchmark, the GEMM ceiling included): raw times
// flag every kernel; relative to the ceiling of the same run nothing changed. A real 30% slowdown of one
// kernel on top of that drift is still flagged, by about 30%.
TEST(SpeedGate, ReferenceFromTheSameRunCancelsMachineDrift) {
  const std::string ref = "ceiling/gemm_fp32/N:512/process_time";
  std::vector<Planted> b{{"ceiling/gemm_fp32/N:512", 2.0}, {"k0", 1.0}, {"k1", 3.0}, {"k2", 0.5}};
  auto slower = b;
  for (auto& p : slower) p.ms *= 1.25;
  const auto base = bench_doc(b, 9, 0.01, 1);
  EXPECT_EQ(run(base, bench_doc(slower, 9, 0.01, 2)).regressions, 3);
  SpeedGateOptions o;
  o.reference = ref;
  const auto drift = run(base, bench_doc(slower, 9, 0.01, 2), o);
  EXPECT_EQ(drift.regressions, 0);
  EXPECT_EQ(drift.verdict, SpeedVerdict::kNoChange);
  EXPECT_NEAR(find(drift, "k1").raw_change, 0.25, 0.03);
  EXPECT_NEAR(find(drift, "k1").change, 0.0, 0.03);
  EXPECT_FALSE(find(drift, "ceiling/gemm").gated);
  EXPECT_NEAR(drift.reference_cur / drift.reference_base, 1.25, 0.03);
  const auto planted = run(base, bench_doc(slower, 9, 0.01, 3, 1.3, "k1"), o);
  EXPECT_EQ(planted.regressions, 1);
  EXPECT_EQ(find(planted, "k1").verdict, SpeedVerdict::kRegression);
  EXPECT_NEAR(find(planted, "k1").change, 0.3, 0.04);
  EXPECT_EQ(speed_comparison_to_json(planted)["options"]["reference"], ref);
  const auto cal = calibrate_noise(bench_file_from_json(base, "a"), bench_file_from_json(bench_doc(slower, 9, 0.01, 2), "b"), o);
  EXPECT_LT(cal.max_abs_change, 0.03);
  EXPECT_EQ(cal.rows.size(), 3u);  // the reference itself is not a row
  o.reference = "ceiling/nope";
  EXPECT_THROW(run(base, base, o), UsageError);
}

TEST(SpeedGate, MissingBenchmarksAreListed) {
  const auto c = run(bench_doc({{"a", 1.0}, {"b", 1.0}}, 9, 0.01, 1), bench_doc({{"a", 1.0}, {"c", 1.0}}, 9, 0.01, 2));
  EXPECT_EQ(c.missing_in_current, std::vector<std::string>{"b/process_time"});
  EXPECT_EQ(c.missing_in_baseline, std::vector<std::string>{"c/process_time"});
  const auto j = speed_comparison_to_json(c);
  EXPECT_EQ(j["kind"], "speed_gate");
  EXPECT_EQ(j["benchmarks"].size(), 1u);
  EXPECT_EQ(j["options"]["threshold"], 0.10);
  EXPECT_NE(speed_comparison_table(c).find("missing in current: b/process_time"), std::string::npos);
  EXPECT_NE(speed_comparison_markdown(c).find("| `a/process_time` |"), std::string::npos);
}

TEST(SpeedGate, NoiseCalibrationSuggestsAThresholdAboveTheNoise) {
  // Exact planted values: run A 1.0 .. 1.08 (IQR 0.04 / median 1.04), run B the same times 1.02.
  auto a = bench_doc({{"x", 1.0}}, 9, 0.0, 1);
  auto b = bench_doc({{"x", 1.0}}, 9, 0.0, 1);
  for (int i = 0; i < 9; ++i) {
    a["benchmarks"][i]["cpu_time"] = 1.0 + 0.01 * i;
    b["benchmarks"][i]["cpu_time"] = 1.02 * (1.0 + 0.01 * i);
  }
  const auto cal = calibrate_noise(bench_file_from_json(a), bench_file_from_json(b));
  ASSERT_EQ(cal.rows.size(), 1u);
  EXPECT_NEAR(cal.rows[0].change, 0.02, 1e-12);
  EXPECT_NEAR(cal.max_spread, 0.04 / 1.04, 1e-9);
  EXPECT_NEAR(cal.suggested_threshold, 0.06, 1e-12);  // 2% + 3.85% → 6%
  EXPECT_EQ(cal.gate.regressions, 0);
  const auto j = noise_calibration_to_json(cal);
  EXPECT_EQ(j["kind"], "speed_noise_calibration");
  EXPECT_NE(noise_calibration_table(cal).find("suggested --threshold 0.06"), std::string::npos);
  // A quiet machine still gets at least 1%.
  EXPECT_NEAR(calibrate_noise(bench_file_from_json(a), bench_file_from_json(a)).suggested_threshold, 0.04, 1e-12);
}

TEST(SpeedGate, IsBenchFileTellsBenchmarkJsonFromOtherFiles) {
  const auto dir = fs::temp_directory_path() / ("rb_speed_gate_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_json_atomic(dir / "base.json", bench_doc(battery(2), 9, 0.02, 1));
  write_json_atomic(dir / "recall.json", json{{"configs", json::array()}});
  EXPECT_TRUE(is_bench_file((dir / "base.json").string()));
  EXPECT_FALSE(is_bench_file((dir / "recall.json").string()));
  EXPECT_FALSE(is_bench_file(dir.string()));
  fs::remove_all(dir);
}

// Each reason code in words, with the numbers of the comparison and the options.
TEST(SpeedGate, ReasonSentences) {
  BenchComparison b;
  b.n_base = 9;
  b.n_cur = 8;
  b.change = 0.302;
  b.raw_change = -0.05;
  b.p_adj = 0.000123;
  SpeedGateOptions o;
  const auto say = [&](SpeedReason r) {
    b.reason = r;
    return speed_reason(b, o);
  };
  EXPECT_EQ(say(SpeedReason::kReference), "-5.0% (the reference: shown, not gated)");
  EXPECT_EQ(say(SpeedReason::kCeiling), "-5.0% (machine ceiling: shown, not gated)");
  EXPECT_EQ(say(SpeedReason::kTooFewRepetitions),
            "9 vs 8 repetitions; at least 9 per side are needed for a test");
  EXPECT_EQ(say(SpeedReason::kSlowerSignificant),
            "slower by +30.2% > 10% and significant (adjusted p = 0.000123)");
  EXPECT_EQ(say(SpeedReason::kSlowerNotSignificant),
            "slower by +30.2% > 10% but not significant (adjusted p = 0.000123 > 0.05)");
  EXPECT_EQ(say(SpeedReason::kSignificantWithinThreshold),
            "significant (adjusted p = 0.000123) but +30.2% is within the 10% threshold");
  EXPECT_EQ(say(SpeedReason::kWithinThreshold),
            "+30.2% within the 10% threshold or not significant");
  b.change = -0.5;
  EXPECT_EQ(say(SpeedReason::kFasterSignificant),
            "faster by -50.0% and significant (adjusted p = 0.000123)");
}

TEST(SpeedGate, MachineDifferenceNamesTheFieldsThatDiffer) {
  auto a = bench_doc({{"a", 1.0}}, 9, 0.01, 1);
  auto b = a;
  a["context"]["recallbench.cpu_model"] = "Xeon";
  b["context"]["recallbench.cpu_model"] = "EPYC";
  b["context"]["num_cpus"] = 4;
  b["context"]["library_build_type"] = "debug";  // absent in the baseline: not compared
  const auto d = judge::machine_difference(bench_file_from_json(a), bench_file_from_json(b));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key, "recallbench.cpu_model");
  EXPECT_EQ(d[1].key, "num_cpus");
  EXPECT_EQ(machine_difference_text(d),
            "recallbench.cpu_model \"Xeon\" → \"EPYC\"; num_cpus 2 → 4");
  EXPECT_TRUE(judge::machine_difference(bench_file_from_json(a), bench_file_from_json(a)).empty());
}

}  // namespace
}  // namespace rb::reports
