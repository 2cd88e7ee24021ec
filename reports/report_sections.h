// The report's document in two parts (internal to reports/): the HTML page's sections (html.cpp) and the
// Markdown summary's (report.cpp), which report_document (report.cpp) puts together. The two forms show
// different things (the page every chart and table, the summary what a pull request's reader needs), so each
// part's blocks are shown by one renderer.
#pragma once

#include "reports/document.h"
#include "reports/report.h"

namespace rb::reports {

// The page: header, verdict, results by cell, sweeps, the lottery, contrasts, claims, survival, learning
// curves, kernels, configurations, context (HTML only).
void add_page_sections(Document& d, const ReportInput& in);

// The summary: verdict and counts, per-verdict lists, what the gate detects, missing and new configs, the
// configs table, contrasts, claims (Markdown only).
void add_summary_sections(Document& d, const ReportInput& in);

}  // namespace rb::reports
