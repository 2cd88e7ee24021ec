// Command-line pieces shared by `recallbench report`, `compare` and `baseline` (header-only: the CLI
// links CLI11, rb_reports does not). Declares the gate's options on a subcommand and finds a battery's
// contrasts.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "reports/compare.h"
#include "stats/stats.h"

namespace rb::reports {

// The gate's options as the command line spells them.
struct GateFlags {
  GateOptions gate;
  std::string adjust = "holm";
  bool fail_on_inconclusive = false;

  // Parses the adjustment name into `gate` (UsageError on an unknown name).
  GateOptions resolved() const {
    GateOptions g = gate;
    g.adjust = stats::parse_adjust_method(adjust);
    return g;
  }
};

inline void add_gate_flags(CLI::App* sub, GateFlags& f) {
  sub->add_option("--alpha", f.gate.alpha, "Family-wise error rate of the regression tests (default 0.05)")
      ->check(CLI::Range(1e-12, 0.999999));
  sub->add_option("--min-lockin-drop", f.gate.min_lockin_drop,
                  "Smallest lock-in rate change that counts, as a fraction (default 0.2 = 20 points)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--min-recall-drop", f.gate.min_recall_drop,
                  "Smallest change in median per-seed recall that counts (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--min-slowdown", f.gate.min_slowdown,
                  "Smallest increase of the restricted mean steps to lock-in that counts, as a fraction (default "
                  "0.3 = 30% slower); tested with the exact log-rank test")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_flag("--allow-model-change", f.gate.allow_model_change,
                "Compare configs whose model changed under the same key (state size, parameters, architecture); "
                "without it such a config is 'model changed' and the exit code is 2");
  sub->add_option("--power", f.gate.target_power,
                  "Power the 'seeds needed' calculation aims for (default 0.8)")
      ->check(CLI::Range(0.01, 0.999));
  sub->add_option("--adjust", f.adjust,
                  "Multiple-comparison adjustment across the compared configs: holm (default), hochberg, "
                  "bonferroni, bh, by");
  sub->add_flag("--fail-on-inconclusive", f.fail_on_inconclusive,
                "Exit 3 when the verdict is inconclusive (default: exit 0)");
}

}  // namespace rb::reports

#include <cstdio>
#include <optional>

#include "reports/report.h"
#include "suite/core/json_io.h"

namespace rb::reports {

// Where `report` and `compare` write their documents ("" = not written).
struct OutputFlags {
  std::string html, json, md, bench;
};

inline void add_output_flags(CLI::App* sub, OutputFlags& o) {
  sub->add_option("--html", o.html, "Write the self-contained HTML report here");
  sub->add_option("--json", o.json, "Write the JSON report here (schema: reports/schema/report.schema.json)");
  sub->add_option("--md", o.md, "Write the Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)");
  sub->add_option("--bench", o.bench, "Kernel throughput: a Google Benchmark JSON file to show in the report");
}

// Loads, compares (when a baseline is given), writes what was asked for, prints the verdict, and returns
// the exit code (0, 1, or 3 with --fail-on-inconclusive).
inline int run_report(const std::string& current_path, const std::string& baseline_path, const GateFlags& flags,
                      const OutputFlags& out, const std::vector<ContrastSpec>& declared, bool print_configs) {
  GateOptions gate = flags.resolved();
  gate.power_analysis = true;  // the report states what each config can detect
  // Read everything before writing anything (bad input writes nothing).
  std::optional<Baseline> baseline;
  if (!baseline_path.empty()) baseline = read_baseline(baseline_path);
  const RunSet runs = load_results(current_path);
  json bench = nullptr;
  if (!out.bench.empty()) {
    bench = read_json_file(out.bench);
    bench_rows(bench);  // validates
  }
  std::optional<Comparison> cmp;
  if (baseline) {
    cmp = compare(baseline->configs, runs.configs, gate);
    cmp->baseline_context = baseline->context;
    cmp->current_context = runs.context;
  }
  std::vector<ContrastSpec> specs = !declared.empty()                  ? declared
                                     : !runs.declared_contrasts.empty() ? runs.declared_contrasts
                                                                        : infer_contrasts(runs.configs);
  ReportInput in;
  in.runs = &runs;
  in.contrasts = test_contrasts(runs.configs, specs, gate.alpha);
  in.comparison = cmp ? &*cmp : nullptr;
  in.baseline_path = baseline_path;
  in.bench = bench;
  if (!out.json.empty()) write_json_atomic(out.json, report_json(in));
  if (!out.html.empty()) write_text_file(out.html, report_html(in));
  if (!out.md.empty()) write_text_file(out.md, report_markdown(in));

  if (print_configs) {
    std::printf("%-12s %-24s %-34s %9s %13s %8s %8s\n", "verdict", "cell", "task", "lock-in", "95% CI", "recall",
                "state");
    std::map<std::string, std::string> verdict_of;
    if (cmp)
      for (const auto& cc : cmp->configs) verdict_of[cc.key] = verdict_name(cc.verdict);
    for (const auto& c : runs.configs) {
      const auto s = summarize(c);
      const auto it = verdict_of.find(c.key);
      std::printf("%-12s %-24s %-34s %5lld/%-3lld [%.2f,%.2f] %8.3f %8lld\n",
                  it == verdict_of.end() ? "-" : it->second.c_str(), c.cell.c_str(), c.task_label().c_str(),
                  static_cast<long long>(s.k), static_cast<long long>(s.n), s.ci.low, s.ci.high, s.recall.median,
                  static_cast<long long>(c.state_size));
    }
  }
  for (const auto& r : in.contrasts)
    if (!r.missing)
      std::printf("contrast %s: %lld/%lld vs %lld/%lld, Fisher p = %.3g, Holm %.3g%s\n", r.spec.name.c_str(),
                  static_cast<long long>(r.k_a), static_cast<long long>(r.n_a), static_cast<long long>(r.k_b),
                  static_cast<long long>(r.n_b), r.p, r.p_adj, r.significant ? " (significant)" : "");
  if (cmp) std::fputs(comparison_text(*cmp, baseline_path).c_str(), stdout);
  else std::printf("verdict: no baseline (results only; pass --baseline FILE to gate)\n");
  for (const auto* p : {&out.html, &out.json, &out.md})
    if (!p->empty()) std::printf("wrote %s\n", p->c_str());
  std::fflush(stdout);
  return cmp ? gate_exit_code(*cmp, flags.fail_on_inconclusive) : 0;
}

}  // namespace rb::reports
