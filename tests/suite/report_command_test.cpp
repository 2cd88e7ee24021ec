// suite/report_command: `compare` on two benchmark files returns the gate's exit code and writes
// the requested documents; A/A calibration never gates; a recall result is refused before anything
// is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/report_command.h"

namespace rb {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Google Benchmark JSON with 9 repetitions per benchmark: `ms` × (1.00, 1.01, ..., 1.08).
json bench_doc(const std::vector<std::pair<std::string, double>>& benches) {
  json rows = json::array();
  for (const auto& [name, ms] : benches)
    for (int r = 0; r < 9; ++r) {
      const double t = ms * (1.0 + 0.01 * r);
      rows.push_back({{"name", name},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", 9},
                      {"repetition_index", r},
                      {"iterations", 100},
                      {"real_time", t},
                      {"cpu_time", t},
                      {"time_unit", "ms"}});
    }
  return {{"context", {{"num_cpus", 2}}},
          {"benchmarks", rows},
          {"recallbench", {{"time", "cpu_time"}}}};
}

TEST(SpeedCompare, RunSpeedCompareOnFilesReturnsTheExitCode) {
  const auto dir = fs::temp_directory_path() / ("rb_speed_compare_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_json_atomic(dir / "base.json", bench_doc({{"a", 1.0}, {"b", 2.0}}));
  write_json_atomic(dir / "slow.json", bench_doc({{"a", 1.3}, {"b", 2.0}}));
  write_json_atomic(dir / "recall.json", json{{"configs", json::array()}});
  SpeedCompareRequest r;
  r.baseline = (dir / "base.json").string();
  r.current = (dir / "slow.json").string();
  r.json_out = (dir / "out.json").string();
  r.md_out = (dir / "out.md").string();
  EXPECT_EQ(run_speed_compare(r), 1);
  const json out = read_json_file(dir / "out.json");
  EXPECT_EQ(out["verdict"], "regression");
  EXPECT_EQ(out["benchmarks"][0]["name"], "a");
  EXPECT_EQ(out["benchmarks"][0]["reason"],
            "slower by +30.0% > 10% and significant (adjusted p = 8.23e-05)");
  EXPECT_TRUE(fs::exists(dir / "out.md"));
  r.aa = true;
  EXPECT_EQ(run_speed_compare(r), 0);  // calibration reports, never gates
  EXPECT_EQ(read_json_file(dir / "out.json")["kind"], "speed_noise_calibration");
  r.current = (dir / "recall.json").string();
  fs::remove(dir / "out.json");
  EXPECT_THROW(run_speed_compare(r), UsageError);
  EXPECT_FALSE(fs::exists(dir / "out.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rb
