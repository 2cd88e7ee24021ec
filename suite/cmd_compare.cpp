// recallbench compare --baseline FILE --current DIR|FILE: the regression gate.
//
//   recallbench compare --baseline ci/baselines/smoke.json --current results [--md summary.md]
//
// Matches configs by key; each is regression / improvement / no change / inconclusive (reports/compare.h).
// Exit codes: 0 no regression, 1 regression, 2 bad input (malformed or wrong-version baseline, results
// not comparable), 3 inconclusive with --fail-on-inconclusive, 4 internal error.
#include <memory>

#include "reports/cli_options.h"
#include "suite/cli.h"

namespace rb {
namespace {

struct CompareOptions {
  std::string baseline, current;
  reports::GateFlags gate;
  reports::OutputFlags out;
};

CommandFn add_compare_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<CompareOptions>();
  sub->add_option("--baseline", o->baseline, "Stored baseline (ci/baselines/<battery>.json) or a JSON report")
      ->required();
  sub->add_option("--current", o->current,
                  "Current results: a results directory (recallbench run --out DIR), a run file, or a report")
      ->required();
  reports::add_gate_flags(sub, o->gate);
  reports::add_output_flags(sub, o->out);
  return [o]() { return reports::run_report(o->current, o->baseline, o->gate, o->out, {}, false); };
}

}  // namespace

RB_REGISTER(CommandRegistry, compare,
            CommandEntry{"compare", "Compare results with a stored baseline: exit 1 on a significant regression",
                         add_compare_command});

}  // namespace rb
