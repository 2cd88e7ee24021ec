// The speed gate: two Google Benchmark JSON files (`recallbench bench --out`, or any Google Benchmark
// program's --benchmark_out) compared benchmark by benchmark, and the A/A noise calibration.
//
// Decision rule, per benchmark present in both files: the relative change of the median time
// (current / baseline − 1; positive = slower) and a two-sided Mann–Whitney U test on the repetitions.
// Benchmarks with fewer than `min_repetitions` repetitions on either side get no test and are
// "unreliable". The p-values of all tested benchmarks form one family, adjusted (Holm by default). A
// benchmark is
//   regression    when it is slower by more than `threshold` AND its adjusted p ≤ alpha;
//   improvement   when it is faster by more than `threshold` AND its adjusted p ≤ alpha;
//   inconclusive  when it is slower by more than `threshold` but not significant;
//   unreliable    when it has too few repetitions to be tested;
//   no change     otherwise.
// Benchmarks named "ceiling/..." (the machine's GEMM and bandwidth ceilings that `recallbench bench`
// measures in the same run, kernels/bench_extra.h) are shown but not gated: they measure the machine's
// state (memory bandwidth shared with other processes moves by ±20% between runs on a loaded machine),
// not the code.
// Reference normalisation (option `reference`, `recallbench compare --reference NAME`): every time is
// first divided by the median time of the reference benchmark *in the same file* (for example the GEMM
// ceiling that `recallbench bench` measures in every run), so the gate compares ratios to a reference
// measured in the same run rather than raw times taken at different moments on a machine whose speed
// drifts. The reference row itself is shown but not gated.
// The overall verdict is the worst: regression > inconclusive/unreliable > improvement > no change.
// Exit codes are the recall gate's: 0, 1 on a regression, 3 when inconclusive or unreliable and
// --fail-on-inconclusive.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/verdict.h"
#include "reports/bench_json.h"
#include "reports/document.h"
#include "stats/stats.h"

namespace rb::reports {

// One benchmark file: the per-repetition times of each benchmark, in nanoseconds.
struct BenchFile {
  std::string path;
  std::string time_key;                             // "cpu_time" or "real_time"
  std::map<std::string, std::vector<double>> runs;  // run_name → repetition times (ns), in file order
  nlohmann::json context = nlohmann::json::object();
};

// Reads a benchmark file. `time_key` "" takes the file's own choice (recallbench's `recallbench.time`,
// else "real_time"). Aggregate rows (mean, median, stddev, cv) are skipped: the gate recomputes them
// from the repetitions. Throws UsageError when the document is not Google Benchmark JSON, a row lacks
// its time or a field has another type.
BenchFile bench_file_from_json(const nlohmann::json& doc, const std::string& path = "",
                               const std::string& time_key = "");
BenchFile read_bench_file(const std::string& path, const std::string& time_key = "");

struct SpeedGateOptions {
  double threshold = 0.10;       // a slowdown must exceed this relative change (0.10 = 10%)
  double alpha = 0.05;           // family-wise error rate after adjustment
  int64_t min_repetitions = 9;   // fewer on either side → "unreliable"
  stats::AdjustMethod adjust = stats::AdjustMethod::kHolm;
  std::string reference;         // benchmark whose median, per file, divides every time ("" = raw times)
};

using judge::SpeedVerdict;  // judge/verdict.h: the gates share one severity order, tally and exit code
// "no change", "improvement", "unreliable", "inconclusive", "regression".
using judge::speed_verdict_name;

// Name prefix of the machine-ceiling benchmarks, shown but not gated.
inline constexpr const char* kCeilingPrefix = "ceiling/";

struct BenchComparison {
  std::string name;
  bool gated = true;                           // false for the machine ceilings
  int64_t n_base = 0, n_cur = 0;
  double median_base = 0.0, median_cur = 0.0;  // ns
  double change = 0.0;                         // median_cur / median_base − 1 (positive: slower); with a
                                               // reference: of the times relative to the reference
  double raw_change = 0.0;                     // of the raw medians (= change without a reference)
  double p = 1.0;                              // two-sided Mann–Whitney p (1 when not tested)
  double p_adj = 1.0;                          // after adjustment across the tested benchmarks
  bool tested = false;
  SpeedVerdict verdict = SpeedVerdict::kNoChange;
  std::string reason;
};

struct SpeedComparison {
  SpeedGateOptions options;
  std::string time_key;
  double reference_base = 0.0, reference_cur = 0.0;  // the reference's median (ns) in each file, when set
  std::vector<BenchComparison> benchmarks;     // sorted by verdict severity, then name
  std::vector<std::string> missing_in_current; // baseline benchmarks the current file lacks
  std::vector<std::string> missing_in_baseline;
  int64_t tests = 0;
  SpeedVerdict verdict = SpeedVerdict::kNoChange;
  int64_t regressions = 0, improvements = 0, inconclusive = 0, unreliable = 0, unchanged = 0;
};

// Compares `current` with `baseline` (see the file comment). Throws UsageError when the two use
// different time keys, when they share no benchmark, when the reference is missing from either, or on
// bad options.
SpeedComparison compare_bench(const BenchFile& baseline, const BenchFile& current, const SpeedGateOptions& options = {});

// 0; 1 on a regression; 3 when inconclusive or unreliable and `fail_on_inconclusive`.
int speed_exit_code(const SpeedComparison& c, bool fail_on_inconclusive);

nlohmann::json speed_comparison_to_json(const SpeedComparison& c);
std::string speed_comparison_table(const SpeedComparison& c);     // the human table (stdout)
// The gate's document (Markdown: a job summary's section; JSON: speed_comparison_to_json), built once.
Document speed_comparison_document(const SpeedComparison& c);
std::string speed_comparison_markdown(const SpeedComparison& c);

// ---------------------------------------------------------------------------------------------------
// A/A noise calibration: two runs of the same build. Per benchmark, the change of the median between
// the runs and the spread of the repetitions within each run; and the smallest threshold this machine
// supports.
// ---------------------------------------------------------------------------------------------------

struct NoiseRow {
  std::string name;
  int64_t n_a = 0, n_b = 0;
  double change = 0.0;      // median_b / median_a − 1
  double spread = 0.0;      // the larger of the two runs' relative interquartile ranges (IQR / median)
  double p = 1.0;           // two-sided Mann–Whitney p between the runs (1 when too few repetitions)
};

struct NoiseCalibration {
  std::vector<NoiseRow> rows;      // by name
  double max_abs_change = 0.0;     // largest |A/A change of the median|
  double max_spread = 0.0;         // largest within-run relative IQR
  // Smallest threshold the A/A run supports: max(|change|) + max(spread), rounded up to the next whole
  // percent and at least 1%. Below it an unchanged build can look like a slowdown.
  double suggested_threshold = 0.0;
  SpeedComparison gate;            // the A/A pair through the gate at the given options (should pass)
};

NoiseCalibration calibrate_noise(const BenchFile& a, const BenchFile& b, const SpeedGateOptions& options = {});
nlohmann::json noise_calibration_to_json(const NoiseCalibration& c);
std::string noise_calibration_table(const NoiseCalibration& c);
// The A/A calibration's document: its numbers, then the gate's document (JSON: noise_calibration_to_json).
Document noise_calibration_document(const NoiseCalibration& c);

// ---------------------------------------------------------------------------------------------------
// `recallbench compare` on benchmark files
// ---------------------------------------------------------------------------------------------------

// Whether the file at `path` is Google Benchmark JSON (false for a directory, a non-JSON or other JSON).
bool is_bench_file(const std::string& path);

struct SpeedCompareRequest {
  std::string baseline, current;  // benchmark files
  SpeedGateOptions options;
  bool fail_on_inconclusive = false;
  bool aa = false;                // A/A calibration instead of the gate
  std::string json_out, md_out;   // written when not empty
};

// Reads both files (before writing anything), compares or calibrates, prints the table, writes the
// requested documents, and returns the exit code (A/A: always 0).
int run_speed_compare(const SpeedCompareRequest& request);

}  // namespace rb::reports
