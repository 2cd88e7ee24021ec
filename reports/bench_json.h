// The one reader of Google Benchmark JSON (`--benchmark_format=json`, `--benchmark_out`, `recallbench bench
// --out`): its rows as written, and the two views the report layer takes of them, the speed gate's
// repetition times (reports/speed_gate.h read_bench_file) and the report's kernel throughput rows
// (bench_rows).
//
//   for (const BenchRecord& r : read_bench_records(doc, "bench.json")) ...
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::reports {

// One row of a Google Benchmark document: one repetition ("iteration"), or an aggregate of the repetitions
// (mean, median, stddev, cv). Fields the row lacks keep their defaults.
struct BenchRecord {
  std::string name;            // the row's name: "BM_a/T:64/process_time", or "BM_a/T:64/process_time_median"
  std::string run_name;        // the name the repetitions share (`run_name`; `name` when absent)
  std::string run_type = "iteration";  // "iteration" (one repetition) or "aggregate"
  std::string aggregate_name;  // "mean", "median", "stddev", "cv" ("" for a repetition)
  bool error = false;          // error_occurred: the benchmark skipped itself with an error
  double real_time = NAN;      // wall time per iteration, in time_unit; NaN when absent or not a number
  double cpu_time = NAN;       // CPU time per iteration, in time_unit; NaN when absent or not a number
  std::string time_unit = "ns";
  double items_per_second = 0.0;  // the items counter (tokens/s for recallbench's kernels); 0 when absent
};

// The rows of `doc`, in order. UsageError naming `where` when `doc` has no "benchmarks" array, a row is not an
// object or has no name (neither `name` nor `run_name`), or a field has another type.
std::vector<BenchRecord> read_bench_records(const nlohmann::json& doc, const std::string& where);

// Whether `doc` is Google Benchmark JSON (has `benchmarks` and `context`).
bool is_bench_json(const nlohmann::json& doc);

// Kernel throughput rows for the report (--bench): name, items or bytes per second, real time. With
// repetitions, the median aggregate stands for its repetitions (and the other aggregates are left out).
// Malformed input: UsageError.
struct BenchRow {
  std::string name;
  double items_per_second = 0.0;  // tokens/s when the benchmark counts items; 0 when absent
  double real_time = 0.0;         // per iteration, in `time_unit`
  std::string time_unit;
};
std::vector<BenchRow> bench_rows(const nlohmann::json& bench);

}  // namespace rb::reports
