// Test-only: renders a history report document (tests/reports/data/history_report.json) to the trend page
// and its Markdown summary, for the browser test until `recallbench history report` writes them itself.
//   history_page_render DOC.json OUT.html [OUT.md]
#include <cstdio>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/history_page.h"
#include "reports/report.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: history_page_render DOC.json OUT.html [OUT.md]\n");
    return rb::kExitUsage;
  }
  try {
    const rb::json doc = rb::read_json_file(argv[1]);
    rb::reports::write_text_file(argv[2], rb::reports::history_html(doc));
    if (argc == 4) rb::reports::write_text_file(argv[3], rb::reports::history_markdown(doc));
  } catch (const rb::UsageError& e) {
    std::fprintf(stderr, "history_page_render: %s\n", e.what());
    return rb::kExitUsage;
  }
  return 0;
}
