// `history changes` and `history log` as text: the CLI's narration of the typed analysis (history/analysis.h),
// beside the trend page's (reports/history_page.h).
#pragma once

#include <string>

#include "history/analysis.h"

namespace rb {

std::string changes_table(const history::Analysis& a);  // the human list of `history changes`
// `history log`: one row per commit, one column per selected config (or benchmark for speed).
std::string log_table(const history::Analysis& a, history::Metric metric);

}  // namespace rb
