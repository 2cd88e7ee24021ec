// The speed gate's edges: Google Benchmark JSON read into judge/speed_gate.h's BenchFile, and the
// gate's and the A/A calibration's results written as sentences, tables, JSON and documents. The
// command that prints them and returns the exit code: suite/report_command.h.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/speed_gate.h"
#include "judge/verdict.h"
#include "reports/bench_json.h"
#include "reports/document.h"

namespace rb::reports {

// Reads a benchmark file. `time_key` "" takes the file's own choice (recallbench's
// `recallbench.time`, else "real_time"). Aggregate rows (mean, median, stddev, cv) are skipped: the
// gate recomputes them from the repetitions. Throws UsageError when the document is not Google
// Benchmark JSON, a row lacks its time or a field has another type.
judge::BenchFile bench_file_from_json(const nlohmann::json& doc, const std::string& path = "",
                                      const std::string& time_key = "");
judge::BenchFile read_bench_file(const std::string& path, const std::string& time_key = "");

// Whether `path` is a Google Benchmark JSON file (false for a directory, non-JSON or other JSON).
bool is_bench_file(const std::string& path);

// judge/verdict.h: the gates share one severity order, tally and exit code.
using judge::SpeedVerdict;
// "no change", "improvement", "unreliable", "inconclusive", "regression".
using judge::speed_verdict_name;

// One line: why this benchmark got its verdict, with its numbers, e.g. "slower by +30.2% > 10% and
// significant (adjusted p = 0.000123)" (the JSON's "reason").
std::string speed_reason(const judge::BenchComparison& b, const judge::SpeedGateOptions& options);

nlohmann::json speed_comparison_to_json(const judge::SpeedComparison& c);
std::string speed_comparison_table(const judge::SpeedComparison& c);  // the human table (stdout)
// The gate's document (Markdown: a job summary's section; JSON: speed_comparison_to_json).
Document speed_comparison_document(const judge::SpeedComparison& c);
std::string speed_comparison_markdown(const judge::SpeedComparison& c);

// "recallbench.cpu_model "A" → "B"; num_cpus 2 → 4" ("" when nothing differs).
std::string machine_difference_text(const std::vector<judge::ContextDifference>& d);

nlohmann::json noise_calibration_to_json(const judge::NoiseCalibration& c);
std::string noise_calibration_table(const judge::NoiseCalibration& c);
// The A/A calibration's document: its numbers, then the gate's (JSON: noise_calibration_to_json).
Document noise_calibration_document(const judge::NoiseCalibration& c);

}  // namespace rb::reports
