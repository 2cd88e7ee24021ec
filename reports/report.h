// Reports: the JSON report (versioned; schema in reports/schema/report.schema.json), the self-contained
// HTML page (inline CSS and SVG, no network), the Markdown summary for a pull-request comment or
// $GITHUB_STEP_SUMMARY, and stored baselines (ci/baselines/<battery>.json).
//
//   RunSet runs = load_results("results");
//   ReportInput in{runs, contrasts, &comparison, bench};
//   json doc = report_json(in);  std::string page = report_html(in);  std::string md = report_markdown(in);
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/contrasts.h"
#include "reports/bench_json.h"
#include "reports/gate_text.h"
#include "reports/document.h"
#include "reports/results.h"

namespace rb::reports {

inline constexpr int kReportSchemaVersion = 1;
inline constexpr int kBaselineSchemaVersion = 1;

using judge::ContrastResult;

// Everything a report shows.
struct ReportInput {
  const RunSet* runs = nullptr;                 // the current results (required)
  std::vector<ContrastResult> contrasts;        // tested contrasts (declared by the battery, or inferred)
  const judge::Comparison* comparison = nullptr;       // against a baseline, when one was given
  std::string baseline_path;                    // where the baseline came from
  json bench = nullptr;                         // kernel throughput: a Google Benchmark JSON, when given
  std::string title = "recallbench report";
  json claims = nullptr;                       // verify's verdicts (verdicts_json), when asked for
  Group claims_section{};                       // and their section (verdicts_section); empty without
};

// The overall verdict of a report: the comparison's, or "no baseline" without one.
std::string report_verdict(const ReportInput& in);

// The JSON report: schema_version, kind "recallbench.report", context, runs, configs, contrasts,
// comparison, verdict, bench.
json report_json(const ReportInput& in);

// The "contrasts" array of the JSON report.
json contrasts_to_json(const std::vector<ContrastResult>& contrasts);

// One self-contained HTML page (see the file comment).
std::string report_html(const ReportInput& in);

// A self-contained HTML page around `body` (the report's stylesheet and its sorting script: tables with
// class "sortable" and th data-col sort by the cells' data-v) and HTML escaping, for other pages.
std::string html_page(const std::string& title, const std::string& body);
std::string html_escape(const std::string& text);

// A short Markdown summary: verdict, regressions and inconclusive configs with their reasons, a
// leaderboard table, missing configs.
std::string report_markdown(const ReportInput& in);

// The report's document (document.h), built once for every renderer: the HTML page (report_html), the
// Markdown summary (report_markdown), report_json (JsonRenderer).
Document report_document(const ReportInput& in);

// The comparison as plain text for the terminal: the verdict line, then one line per config that is not
// "no change" (with its reason), then missing configs.
std::string comparison_text(const judge::Comparison& comparison, const std::string& baseline_path);
// The verdict's counts, shared by the page and the summary: "0 model changed, 0 data changed, 1 regression(s),
// 0 inconclusive, 0 improvement(s), 3 unchanged of 4".
std::string verdict_counts(const judge::Comparison& comparison);
// How the gate decided, for a summary line: the adjustment, the family and its tests, the sequential rule.
std::string gate_rule_text(const judge::Comparison& comparison);
// "; data identity not checked for N of M configs (...)" when a side records no data fingerprints, else "".
std::string data_unchecked_note(const judge::Comparison& comparison);
// "; the baseline was recorded on another machine kind (...): ..." when the CPU or BLAS core differs, else "".
std::string machine_note(const judge::Comparison& comparison);

// The current UTC time as 2026-11-30T16:00:00Z (the "created" field of stored files).
std::string utc_now();


// ---------------------------------------------------------------------------------------------------
// Baselines
// ---------------------------------------------------------------------------------------------------

struct Baseline {
  std::string battery;            // the battery it was recorded from ("" when ad hoc)
  std::string created;            // UTC date it was written
  json context = json::object();  // where the results came from (machine, build, commit)
  json commits = json::array();   // distinct commits of its runs
  std::vector<Config> configs;    // per-seed outcomes, no learning curves
};

// The baseline document for `runs` (kind "recallbench.baseline", schema_version 1).
json baseline_json(const RunSet& runs, const std::string& battery);

// A baseline made from the current runs once they are read, instead of a stored file: the history's
// pooled baseline (history/analysis.h history_baseline_source), taken by suite/report_command.h.
using BaselineSource = std::function<Baseline(const RunSet& current)>;

// Reads a baseline. Accepts a baseline document or a report (whose configs have the same form).
// Malformed JSON, a wrong kind or schema_version, or missing fields: UsageError with a clear message
// (the CLI exits 2).
Baseline read_baseline(const std::filesystem::path& path);

// A baseline recorded from one battery compared with the results of another is refused (UsageError naming
// both) unless `allow`: shared config keys would be compared, the rest silently dropped. Either name empty
// (an ad hoc baseline, a results directory without plan.json) is accepted.
void check_same_battery(const Baseline& baseline, const std::string& baseline_path, const std::string& current_battery,
                        bool allow);

}  // namespace rb::reports
