// The speed gate as typed data: two benchmark files (repetition times per benchmark) compared
// benchmark by benchmark, and the A/A noise calibration. Reading the files, the sentences and the
// JSON: reports/speed_gate.h; the command: `recallbench compare` on benchmark files (README).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/machine.h"
#include "judge/verdict.h"
#include "stats/stats.h"

namespace rb::judge {

// One benchmark file: the per-repetition times of each benchmark, in nanoseconds.
struct BenchFile {
  std::string path;
  std::string time_key;  // "cpu_time" or "real_time"
  // run_name → repetition times (ns), in file order
  std::map<std::string, std::vector<double>> runs;
  nlohmann::json context = nlohmann::json::object();
};

struct SpeedGateOptions {
  double threshold = 0.10;      // a slowdown must exceed this relative change (0.10 = 10%)
  double alpha = 0.05;          // family-wise error rate after adjustment
  int64_t min_repetitions = 9;  // fewer on either side → "unreliable"
  stats::AdjustMethod adjust = stats::AdjustMethod::kHolm;
  std::string reference;  // benchmark whose median, per file, divides every time ("" = raw times)
};

// Name prefix of the machine-ceiling benchmarks (kernels/bench_extra.h), shown but not gated.
inline constexpr const char* kCeilingPrefix = "ceiling/";

// Why a benchmark got its verdict; the numbers are the comparison's fields.
enum class SpeedReason {
  kReference,                   // the reference benchmark: shown, not gated (no change)
  kCeiling,                     // a machine ceiling: shown, not gated (no change)
  kTooFewRepetitions,           // fewer than min_repetitions on a side: not tested (unreliable)
  kSlowerSignificant,           // slower by more than the threshold and significant (regression)
  kFasterSignificant,           // faster by more than the threshold and significant (improvement)
  kSlowerNotSignificant,        // slower by more than the threshold, not significant (inconclusive)
  kSignificantWithinThreshold,  // significant, but the change is within the threshold (no change)
  kWithinThreshold,             // within the threshold and not significant (no change)
};

struct BenchComparison {
  std::string name;
  bool gated = true;  // false for the machine ceilings and the reference
  int64_t n_base = 0, n_cur = 0;
  double median_base = 0.0, median_cur = 0.0;  // ns
  double change = 0.0;      // median_cur / median_base − 1 (positive: slower); with a
                            // reference: of the times relative to the reference
  double raw_change = 0.0;  // of the raw medians (= change without a reference)
  double p = 1.0;           // two-sided Mann–Whitney p (1 when not tested)
  double p_adj = 1.0;       // after adjustment across the tested benchmarks
  bool tested = false;
  SpeedVerdict verdict = SpeedVerdict::kNoChange;
  SpeedReason reason = SpeedReason::kWithinThreshold;
};

struct SpeedComparison {
  SpeedGateOptions options;
  std::string time_key;
  // The reference's median (ns) in each file, when set.
  double reference_base = 0.0, reference_cur = 0.0;
  std::vector<BenchComparison> benchmarks;      // sorted by verdict severity, then name
  std::vector<std::string> missing_in_current;  // baseline benchmarks the current file lacks
  std::vector<std::string> missing_in_baseline;
  int64_t tests = 0;
  SpeedVerdict verdict = SpeedVerdict::kNoChange;
  int64_t regressions = 0, improvements = 0, inconclusive = 0, unreliable = 0, unchanged = 0;
};

// Compares `current` with `baseline`. Per benchmark present in both: the relative change of the
// median time (current / baseline − 1; positive = slower) and a two-sided Mann–Whitney U test on
// the repetitions; with fewer than `min_repetitions` on either side no test ("unreliable"). The
// tested p-values form one family, adjusted (Holm by default). A benchmark is a regression when
// slower by more than `threshold` AND its adjusted p ≤ alpha; an improvement when faster by more
// than `threshold` and significant; inconclusive when slower by more than `threshold` but not
// significant; else no change. "ceiling/..." benchmarks (the machine's GEMM and bandwidth ceilings,
// which move with the machine's load) and the reference are shown, not gated. With `reference`,
// every time is first divided by the reference's median in its own file, so machine drift between
// the two runs cancels. The overall verdict is the worst (judge/verdict.h). Throws UsageError when
// the two use different time keys, share no benchmark, either lacks the reference, or on bad
// options.
SpeedComparison compare_bench(const BenchFile& baseline, const BenchFile& current,
                              const SpeedGateOptions& options = {});

// 0; 1 on a regression; 3 when inconclusive or unreliable and `fail_on_inconclusive`.
int speed_exit_code(const SpeedComparison& c, bool fail_on_inconclusive);

// A context field that differs between two benchmark files: a different machine or build under the
// same benchmark names (the CPU model, core count, OpenBLAS core or library build type).
// The machine fields that differ (empty when none does, or when either file lacks a field).
std::vector<ContextDifference> machine_difference(const BenchFile& baseline,
                                                  const BenchFile& current);

// A/A noise calibration: two runs of the same build. Per benchmark, the change of the median
// between the runs and the spread of the repetitions within each run; and the smallest threshold
// this machine supports.
struct NoiseRow {
  std::string name;
  int64_t n_a = 0, n_b = 0;
  double change = 0.0;  // median_b / median_a − 1
  double spread = 0.0;  // the larger of the two runs' relative interquartile ranges (IQR / median)
  double p = 1.0;       // two-sided Mann–Whitney p between the runs (1 when too few repetitions)
};

struct NoiseCalibration {
  std::vector<NoiseRow> rows;   // by name (the reference is not a row)
  double max_abs_change = 0.0;  // largest |A/A change of the median|
  double max_spread = 0.0;      // largest within-run relative IQR
  // Smallest threshold the A/A run supports: max(|change|) + max(spread), rounded up to the next
  // whole percent and at least 1%. Below it an unchanged build can look like a slowdown.
  double suggested_threshold = 0.0;
  SpeedComparison gate;  // the A/A pair through the gate at the given options (should pass)
};

NoiseCalibration calibrate_noise(const BenchFile& a, const BenchFile& b,
                                 const SpeedGateOptions& options = {});

}  // namespace rb::judge
