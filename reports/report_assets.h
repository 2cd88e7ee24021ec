// The HTML pages' style sheets and script, files under reports/assets/ embedded at build time by
// reports/assets/embed.cmake into a generated translation unit that defines what is declared here;
// the pages inline them (one self-contained file, no network). Internal to reports/.
#pragma once

namespace rb::reports {

// The report's style sheet (reports/assets/report.css), in every page that html_page writes.
extern const char kReportCss[];

// The report's script (reports/assets/report.js), in every page that html_page writes: a click on
// a th[data-col] of a table.sortable sorts its rows by the cells' data-v; it then sets
// data-report-ready on the root element (the browser test checks that the script ran).
extern const char kReportJs[];

// The history page's own rules (reports/assets/history.css: one rule per line, embedded as one
// line).
extern const char kHistoryCss[];

}  // namespace rb::reports
