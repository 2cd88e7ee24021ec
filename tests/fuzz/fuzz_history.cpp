// libFuzzer target: the history's JSON Lines interchange (history/history.h parse_jsonl) as `history import`
// reads it, then everything downstream of an accepted file: the ingest into a fresh in-memory SQLite database,
// the export, the change-point analysis and the trend page. Bad input must end in UsageError, never in a
// crash, a hang or another exception.
#include <cstdint>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "history/analysis.h"
#include "history/history.h"
#include "reports/history_page.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const rb::history::Batch batch = rb::history::parse_jsonl(in, "fuzz");
    rb::history::History h(":memory:", rb::history::History::Mode::kWrite);
    h.ingest(batch);
    std::ostringstream out;
    h.export_jsonl(out);
    rb::history::AnalysisOptions o;
    o.permutation.permutations = 19;
    o.permutation.max_permutations = 199;
    const auto a = rb::history::analyse(h, o);
    (void)rb::reports::history_html(rb::history::analysis_json(a, h, o)).size();
  } catch (const rb::UsageError&) {
    // bad input, reported as such: fine
  }
  return 0;
}
