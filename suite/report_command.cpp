// `recallbench report`, `compare` and `gate`: console output and exit codes (report_command.h).
#include "suite/report_command.h"

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/claims.h"
#include "reports/document.h"
#include "reports/gate_text.h"
#include "reports/report.h"
#include "reports/speed_gate.h"
#include "suite/task_chance.h"

namespace rb {
namespace {

// The per-config table of `report` and `gate`: verdict (when compared), cell, task, lock-in, recall.
void print_config_table(const RunSet& runs, const std::optional<judge::Comparison>& cmp) {
  std::printf("%-12s %-24s %-34s %9s %13s %8s %8s\n", "verdict", "cell", "task", "lock-in", "95% CI", "recall",
              "state");
  std::map<std::string, std::string> verdict_of;
  if (cmp)
    for (const auto& cc : cmp->configs) verdict_of[cc.key] = judge::verdict_name(cc.verdict);
  for (const auto& c : runs.configs) {
    const auto s = judge::summarize(c);
    const auto it = verdict_of.find(c.key);
    std::printf("%-12s %-24s %-34s %5lld/%-3lld [%.2f,%.2f] %8.3f %8lld\n",
                it == verdict_of.end() ? "-" : it->second.c_str(), c.cell.c_str(), c.task_label().c_str(),
                static_cast<long long>(s.k), static_cast<long long>(s.n), s.ci.low, s.ci.high, s.recall.median,
                static_cast<long long>(c.state_size));
  }
}

// The configs whose seeds that did not lock in were mostly still learning when the budget ended
// (judge/learning.h): a floor or a failed lock-in there may be the schedule's, not the cell's.
void print_budget_limited(const RunSet& runs) {
  for (const auto& c : runs.configs) {
    const auto s = judge::summarize(c);
    if (!s.learning.budget_limited_config()) continue;
    std::printf("not locked in, still learning: %s: %s; its failures may be the schedule's\n", c.key.c_str(),
                reports::learning_text(s.learning).c_str());
  }
}

void print_contrasts(const std::vector<judge::ContrastResult>& contrasts) {
  for (const auto& r : contrasts)
    if (!r.missing)
      std::printf("contrast %s: %lld/%lld vs %lld/%lld, Fisher p = %.3g, %s %.3g%s\n", r.spec.name.c_str(),
                  static_cast<long long>(r.k_a), static_cast<long long>(r.n_a), static_cast<long long>(r.k_b),
                  static_cast<long long>(r.n_b), r.p, r.adjust.c_str(), r.p_adj, r.significant ? " (significant)" : "");
}

// The report's claims section and JSON, when a claims file is given.
void add_claims(const std::string& claims_path, const RunSet& runs, reports::ReportInput& in) {
  if (claims_path.empty()) return;
  const reports::ClaimSet claims = judge::read_claims(claims_path);
  const auto verdicts = judge::verify_claims(claims, {runs}, task_chance_of);
  in.claims = reports::verdicts_json(claims, verdicts);
  in.claims_section = reports::verdicts_section(verdicts);
}

}  // namespace

int run_report(const std::string& current_path, const std::string& baseline_path, const GateFlags& flags,
               const OutputFlags& out, const std::vector<ContrastSpec>& declared, bool print_configs,
               const reports::BaselineSource& baseline_from) {
  judge::GateOptions gate = flags.resolved();
  gate.power_analysis = true;  // the report states what each config can detect
  // Read everything before writing anything (bad input writes nothing).
  std::optional<reports::Baseline> baseline;
  if (!baseline_path.empty() && !baseline_from) baseline = reports::read_baseline(baseline_path);
  const RunSet runs = reports::load_results(current_path);
  if (!runs.missing_planned.empty())
    std::fprintf(stderr,
                 "warning: %zu of the runs %s/plan.json plans have no result (first: %s); with only the %lld runs present "
                 "a comparison is inconclusive at best: finish them with the same run command\n",
                 runs.missing_planned.size(), current_path.c_str(), runs.missing_planned.front().c_str(),
                 static_cast<long long>(runs.run_count));
  if (baseline && !baseline_from)
    reports::check_same_battery(*baseline, baseline_path, runs.battery, flags.allow_other_battery);
  if (baseline_from) baseline = baseline_from(runs);
  json bench = nullptr;
  if (!out.bench.empty()) {
    bench = read_json_file(out.bench);
    reports::bench_rows(bench);  // validates
  }
  std::optional<judge::Comparison> cmp;
  if (baseline) {
    cmp = judge::compare(baseline->configs, runs.configs, gate);
    cmp->missing_planned = runs.missing_planned;
    cmp->baseline_context = baseline->context;
    cmp->current_context = runs.context;
  }
  std::vector<ContrastSpec> specs = !declared.empty()                  ? declared
                                     : !runs.declared_contrasts.empty() ? runs.declared_contrasts
                                                                        : judge::infer_contrasts(runs.configs);
  reports::ReportInput in;
  add_claims(out.claims, runs, in);
  in.runs = &runs;
  in.contrasts = judge::test_contrasts(runs.configs, specs, gate.alpha, gate.adjust);
  in.comparison = cmp ? &*cmp : nullptr;
  in.baseline_path = baseline_path;
  in.bench = bench;
  if (const reports::OutputPaths paths{out.json, out.html, out.md}; paths.any())
    reports::write_outputs(reports::report_document(in), paths);

  if (print_configs) print_config_table(runs, cmp);
  print_budget_limited(runs);
  print_contrasts(in.contrasts);
  if (cmp) {
    for (const auto& pair : cmp->recipe_pairs) {
      std::string what;
      for (const auto& d : pair.differences)
        what += fmt::format("{}{} {} -> {}", what.empty() ? "" : ", ", d.field, d.baseline.dump(), d.current.dump());
      std::printf("across recipes: %s (baseline %s): %s\n", pair.current_key.c_str(), pair.baseline_key.c_str(),
                  what.empty() ? "same recipe" : what.c_str());
    }
    std::fputs(reports::comparison_text(*cmp, baseline_path).c_str(), stdout);
  }
  else std::printf("verdict: no baseline (results only; pass --baseline FILE to gate)\n");
  for (const auto* p : {&out.html, &out.json, &out.md})
    if (!p->empty()) std::printf("wrote %s\n", p->c_str());
  std::fflush(stdout);
  return cmp ? judge::gate_exit_code(cmp->effect(), flags.fail_on_inconclusive) : 0;
}

int run_speed_compare(const SpeedCompareRequest& r) {
  const judge::BenchFile base = reports::read_bench_file(r.baseline);
  const judge::BenchFile cur = reports::read_bench_file(r.current);
  const std::string diff = reports::machine_difference_text(judge::machine_difference(base, cur));
  if (!diff.empty())
    std::fprintf(stderr, "warning: the two benchmark files come from different machines or builds (%s): every time "
                         "shifts; --reference (times relative to a ceiling of the same run) cancels part of it\n",
                 diff.c_str());
  if (r.aa) {
    const judge::NoiseCalibration cal = judge::calibrate_noise(base, cur, r.options);
    std::fputs(reports::noise_calibration_table(cal).c_str(), stdout);
    reports::write_outputs(reports::noise_calibration_document(cal), {r.json_out, "", r.md_out});
    std::fflush(stdout);
    return kExitOk;
  }
  const judge::SpeedComparison c = judge::compare_bench(base, cur, r.options);
  std::fputs(reports::speed_comparison_table(c).c_str(), stdout);
  reports::write_outputs(reports::speed_comparison_document(c), {r.json_out, "", r.md_out});
  std::fflush(stdout);
  return judge::speed_exit_code(c, r.fail_on_inconclusive);
}

}  // namespace rb
