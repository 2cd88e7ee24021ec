// The trend page of `recallbench history report`: the history report document (built from the history
// database by suite/cmd_history.cpp) rendered as one self-contained HTML page (inline CSS and SVG, no
// network, the report stylesheet of html_page) or as a short Markdown summary for a CI job summary.
//
//   json doc = ...;  // kind "recallbench.history_report", schema_version 1
//   write_outputs(history_document(doc), {"", "history.html", "history.md"});
//   write_text_atomic(std::getenv("GITHUB_STEP_SUMMARY"), history_markdown(doc));
//
// The document (readers ignore unknown fields; every field but the arrays may be absent, numbers may be null):
//   {"kind":"recallbench.history_report","schema_version":1,"database":PATH,"battery":NAME,"generated":ISO,
//    "alpha":0.05,"method":TEXT,
//    "commits":[{"commit":HEX,"short":"abc1234","date":ISO,"subject":TEXT,"branch":NAME,"index":0}],  // oldest first
//    "configs":[{"config":KEY,"label":TEXT,"budget":STEPS,
//                "points":[{"commit":HEX,"index":3,"n":10,"locked_in":7,"rate":0.7,"ci":[lo,hi],
//                           "median_time":STEPS|null,"rmst":STEPS,"recall_median":R,"recall_q1":R,"recall_q3":R}],
//                "changes":[CHANGE]}],
//    "benchmarks":[{"benchmark":NAME,"points":[{"commit":HEX,"index":2,"value":V}],"changes":[CHANGE]}],
//                // V: kernel time relative to the same run's GEMM ceiling (lower is faster)
//    "claims":[{"claim":NAME,"points":[{"commit":HEX,"index":1,"verdict":"reproduced"|"contradicted"|"no effect"|"undecided"}]}],
//    "changes":[CHANGE]}  // all changes, most significant first
//   CHANGE = {"config":KEY or benchmark name,"metric":"lock-in"|"time"|"recall"|"speed","kind":"step"|"drift",
//             "commit":HEX,"first_commit":HEX,"last_commit":HEX (optional: a range),"before":X,"after":X,
//             "effect":X,"effect_label":"x1.62 slower","p":P,"p_adjusted":P,
//             "direction":"regression"|"improvement"|"none" (optional; else judge::direction_of the metric,
//             before and after)}
// A point's x position is its commit's position in "commits" (its "index" when the commit is not listed).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "judge/change.h"
#include "reports/document.h"

namespace rb::reports {

// A change's effect as the changes lists state it: "+12 points" (lock-in), "x1.62 slower" / "x0.60 faster"
// (time, speed), "-0.040 recall"; "n/a" for a ratio that is not finite.
std::string effect_label(judge::Metric metric, double effect);

// The trend document of `doc`, built once for every renderer: the HTML page (HtmlRenderer: history_html) and
// the Markdown summary (MarkdownRenderer: history_markdown); its JSON form (JsonRenderer) is `doc` itself.
Document history_document(const nlohmann::json& doc);

// The trend page: header (battery, database, commits covered, method), the changes table (regressions
// first), per config three small charts along the commit axis (lock-in rate with its exact interval, time to
// lock-in as the Kaplan–Meier median and the restricted mean, recall median with its q1–q3 band) with the
// change points marked, kernel speed per benchmark, the claims table (claim × commit), the commits. Every
// point carries data-commit, links to its commit's row and has an SVG <title> (commit, date, subject, values).
// Lean enough for 500 commits × 50 configs (one path per series, one circle per point, no per-point labels).
std::string history_html(const nlohmann::json& doc);

// A short Markdown summary for $GITHUB_STEP_SUMMARY: counts, the changes table (short hashes), and per config
// the latest point (lock-in k/n, median time to lock-in, median recall).
std::string history_markdown(const nlohmann::json& doc);

}  // namespace rb::reports
