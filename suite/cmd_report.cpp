// recallbench report DIR [--baseline FILE] --html F --json F --md F: the reports of a results directory.
//
//   recallbench report results --baseline ci/baselines/smoke.json --html report.html --md summary.md
//
// Without output flags it writes DIR/report.html, DIR/report.json and DIR/report.md. With a baseline the
// exit code is the gate's (0, 1, or 3 with --fail-on-inconclusive); bad input exits 2.
#include <filesystem>
#include <memory>

#include "history/analysis.h"
#include "suite/cli.h"
#include "suite/report_command.h"
#include "suite/report_flags.h"

namespace rb {
namespace {

struct ReportOptions {
  std::string dir, baseline, baseline_history;
  GateFlags gate;
  OutputFlags out;
};

CommandFn add_report_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<ReportOptions>();
  sub->add_option("dir", o->dir, "Results directory (recallbench run --out DIR), or a run file or report")->required();
  sub->add_option("--baseline", o->baseline, "Compare with this stored baseline and gate on it");
  sub->add_option("--baseline-history", o->baseline_history,
                  "Compare with the history instead: per config, the pooled runs of the commits since its last change "
                  "(a history database, docs/tracking.md)");
  add_gate_flags(sub, o->gate);
  add_output_flags(sub, o->out);
  return [o]() {
    OutputFlags out = o->out;
    if (out.html.empty() && out.json.empty() && out.md.empty()) {
      const std::filesystem::path base =
          std::filesystem::is_directory(o->dir) ? std::filesystem::path(o->dir) : std::filesystem::path(o->dir).parent_path();
      out.html = (base / "report.html").string();
      out.json = (base / "report.json").string();
      out.md = (base / "report.md").string();
    }
    if (!o->baseline_history.empty()) {
      RB_CHECK_INPUT(o->baseline.empty(), "report: got --baseline and --baseline-history, expected one");
      return run_report(o->dir, "history " + o->baseline_history, o->gate, out, {}, true,
                                 history::history_baseline_source(o->baseline_history, o->gate.gate.alpha));
    }
    return run_report(o->dir, o->baseline, o->gate, out, {}, true);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, report,
            CommandEntry{"report", "Write the HTML, JSON and Markdown reports of a results directory",
                         add_report_command});

}  // namespace rb
