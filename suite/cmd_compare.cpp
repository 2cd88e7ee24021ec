// recallbench compare --baseline FILE --current DIR|FILE: the regression gate.
//
//   recallbench compare --baseline ci/baselines/smoke.json --current results [--md summary.md]
//
// Matches configs by key (--across-recipes: by cell, task and model, for an A/B of a training option); each is regression / improvement / no change / inconclusive (judge/recall_gate.h).
// Two Google Benchmark files (recallbench bench --out) go to the speed gate instead (judge/speed_gate.h):
//   recallbench compare --baseline ci/baselines/bench-smoke.json --current bench.json [--threshold 0.1]
//   recallbench compare --aa --baseline run1.json --current run2.json      (A/A noise calibration)
//   ... [--reference ceiling/gemm_fp32/N:512]   (times relative to a benchmark of the same run)
// Exit codes: 0 no regression, 1 regression, 2 bad input (malformed or wrong-version baseline, results
// not comparable), 3 inconclusive with --fail-on-inconclusive, 4 internal error.
#include <memory>

#include "history/analysis.h"
#include "reports/speed_gate.h"
#include "suite/cli.h"
#include "suite/report_command.h"
#include "suite/report_flags.h"

namespace rb {
namespace {

struct CompareOptions {
  std::string baseline, current, baseline_history;
  GateFlags gate;
  OutputFlags out;
  double threshold = 0.10;  // benchmark files: the speed gate's slowdown threshold
  bool aa = false;          // benchmark files: A/A noise calibration
  std::string reference;    // benchmark files: compare times relative to this benchmark's median per file
};

CommandFn add_compare_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<CompareOptions>();
  sub->add_option("--baseline", o->baseline, "Stored baseline (ci/baselines/<battery>.json) or a JSON report");
  sub->add_option("--baseline-history", o->baseline_history,
                  "Compare with the history instead (a history database, docs/tracking.md): per config, the pooled runs "
                  "of the commits since its last change, without the current commit");
  sub->add_option("--current", o->current,
                  "Current results: a results directory (recallbench run --out DIR), a run file, or a report")
      ->required();
  add_gate_flags(sub, o->gate);
  add_output_flags(sub, o->out);
  sub->add_option("--threshold", o->threshold,
                  "Benchmark files: a slowdown of the median must exceed this fraction to be a regression (default "
                  "0.10 = 10%)")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--reference", o->reference,
                  "Benchmark files: divide every time by this benchmark's median in the same file before comparing "
                  "(e.g. ceiling/gemm_fp32/N:512, which recallbench bench measures in every run): cancels machine "
                  "speed drift between the two runs; the reference itself is not gated");
  sub->add_flag("--across-recipes", o->gate.gate.across_recipes,
                "An A/B of a training option: pair each baseline config with the current config of the same cell, "
                "task, model and state budget trained with another recipe (another key), and test it like a "
                "regression (both sides on the same seeds are paired); the recipes' step budgets must agree");
  sub->add_flag("--aa", o->aa,
                "Benchmark files: the two are runs of the same build (A/A); report the noise and a threshold");
  return [o]() {
    if (!o->baseline_history.empty()) {
      RB_CHECK_INPUT(o->baseline.empty(), "compare: got --baseline and --baseline-history, expected one");
      return run_report(o->current, "history " + o->baseline_history, o->gate, o->out, {}, false,
                                 history::history_baseline_source(o->baseline_history, o->gate.gate.alpha));
    }
    RB_CHECK_INPUT(!o->baseline.empty(), "compare: --baseline FILE (or --baseline-history DB) is required");
    // Google Benchmark JSON (recallbench bench --out) goes to the speed gate (judge/speed_gate.h).
    const bool base_bench = reports::is_bench_file(o->baseline), cur_bench = reports::is_bench_file(o->current);
    if (base_bench != cur_bench)
      throw UsageError("compare: got one benchmark file and one recall result (" +
                       (base_bench ? o->baseline : o->current) + " is Google Benchmark JSON), expected two of a kind");
    if (!base_bench) {
      if (o->aa) throw UsageError("compare: --aa: got recall results, expected two benchmark files");
      return run_report(o->current, o->baseline, o->gate, o->out, {}, false);
    }
    if (!o->out.html.empty() || !o->out.bench.empty())
      throw UsageError("compare: benchmark files: got --html/--bench, expected only --json and --md");
    SpeedCompareRequest r;
    r.baseline = o->baseline;
    r.current = o->current;
    r.options.threshold = o->threshold;
    r.options.reference = o->reference;
    r.options.alpha = o->gate.gate.alpha;
    r.options.adjust = stats::parse_adjust_method(o->gate.adjust);
    r.fail_on_inconclusive = o->gate.fail_on_inconclusive;
    r.aa = o->aa;
    r.json_out = o->out.json;
    r.md_out = o->out.md;
    return run_speed_compare(r);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, compare,
            CommandEntry{"compare", "Compare results with a stored baseline: exit 1 on a significant regression",
                         add_compare_command});

}  // namespace rb
