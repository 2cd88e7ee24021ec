// recallbench gate: the regression gate with seeds added where the answer is open (issue 25).
//
//   recallbench gate --battery smoke --baseline ci/baselines/smoke.json --out gate-results [--stages 5]
//   recallbench gate --battery smoke --baseline-history H.sqlite --record H.sqlite   (the history as baseline)
//
// Runs the battery (look 1: its own seeds, paired with the baseline's), compares with the baseline's runs
// of the same seeds, and, for the configs whose paired sign test neither crossed its boundary nor stopped
// for futility, runs the next block of seeds (the battery's seeds + k × their count) and looks again, up to
// --stages looks; alpha is spent over the looks (Pocock by default: judge/recall_gate.h). A config that is
// clearly fine (every pair tied, the usual commit) or clearly broken stops at the first look, so the usual
// gate costs one battery. The baseline must hold the seeds of every look (record it with the same
// offsets: README "The gate"); with fewer, the cap is what it holds. Then writes the reports like
// `recallbench report DIR --baseline FILE` and exits with the gate's code.
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "history/analysis.h"
#include "history/git.h"
#include "history/history.h"
#include "reports/report.h"
#include "suite/battery.h"
#include "suite/cli.h"
#include "suite/report_command.h"
#include "suite/report_flags.h"
#include "suite/planner.h"
#include "suite/runner.h"

namespace rb {
namespace {

struct GateCommandOptions {
  std::string battery = "smoke", baseline, out = "gate-results";
  std::string baseline_history;  // a history database: the pooled baseline instead of a file
  std::string record;            // a history database to record this commit's runs into afterwards
  int jobs = 0;
  GateFlags gate;
  OutputFlags outputs;
  int64_t stages = 5;
};

// Runs `plan` into the store; the exit code when it did not finish (interrupt: 130, failures: 4), else -1.
int run_stage(const Plan& plan, const RunnerOptions& ro) {
  const RunnerSummary sum = run_plan(plan, ro);
  if (sum.interrupted) {
    fmt::print(stderr, "gate: interrupted: finished runs are kept; run the same command again to finish the rest\n");
    return 130;
  }
  if (sum.failed > 0) {
    fmt::print(stderr, "gate: {} run(s) failed; run the same command again to retry them\n", sum.failed);
    return kExitInternal;
  }
  return -1;
}

// Records the gate's runs under their commit (history add); a failure is reported and, when the gate passed,
// turns its exit code into 2 (the history would silently have a gap).
int record_into_history(const GateCommandOptions& o, int rc) {
  try {
    const rb::RunSet runs = reports::load_results(o.out);
    const std::string recorded = runs.commits.size() == 1 ? runs.commits.front().get<std::string>() : "";
    history::CommitInfo commit = history::commit_of_results(".", recorded, "", false, o.out);
    commit.context = runs.context;
    history::History h(o.record, history::History::Mode::kWrite);
    const auto s = h.ingest(history::batch_from_runs(runs, commit));
    fmt::print("gate: recorded commit {} into {}: {} outcomes added, {} already there\n", commit.hash.substr(0, 12),
               h.path(), s.outcomes, s.unchanged);
    return rc;
  } catch (const UsageError& e) {
    fmt::print(stderr, "gate: not recorded into the history {}: {}\n", o.record, e.what());
    if (!e.hint().empty()) fmt::print(stderr, "  hint: {}\n", e.hint());
    return rc == kExitOk || rc == kExitInconclusive ? kExitUsage : rc;
  }
}

int run_gate(const GateCommandOptions& o) {
  RB_CHECK_INPUT(o.baseline.empty() != o.baseline_history.empty(),
                 "gate: expected one of --baseline FILE (e.g. ci/baselines/smoke.json) and --baseline-history DB");
  const Battery battery = load_battery(o.battery);
  const reports::BaselineSource from_history =
      o.baseline_history.empty() ? reports::BaselineSource{}
                                 : history::history_baseline_source(o.baseline_history, o.gate.gate.alpha);
  const std::string baseline_label = o.baseline_history.empty() ? o.baseline : "history " + o.baseline_history;
  // A file baseline is read before anything runs (bad input costs nothing); the history's pool needs the
  // current runs' configs and commit, so it is made after the first look.
  std::optional<reports::Baseline> baseline;
  if (!from_history) {
    baseline = reports::read_baseline(o.baseline);
    reports::check_same_battery(*baseline, o.baseline, battery.name, o.gate.allow_other_battery);
  }

  RunnerOptions ro;
  ro.out = o.out;
  ro.jobs = o.jobs;
  const Plan first = make_plan(battery);
  json plan_doc = first.to_json();
  if (const int rc = run_stage(first, ro); rc >= 0) return rc;
  if (from_history) baseline = from_history(reports::load_results(o.out));

  const auto per_look = static_cast<int64_t>(battery.seeds.size());
  // The cap: the looks asked for, as far as the baseline holds the seeds for them.
  std::set<int64_t> base_seeds;
  for (const auto& c : baseline->configs)
    for (const auto& s : c.seeds) base_seeds.insert(s.seed);
  int64_t stages = 1;
  while (stages < o.stages) {
    bool held = true;
    for (int64_t s : battery.seeds) held = held && base_seeds.count(s + stages * per_look) > 0;
    if (!held) break;
    ++stages;
  }
  if (stages < o.stages)
    fmt::print(stderr, "gate: the baseline holds the seeds of {} look(s) of {}, not {}: the cap is {} seeds per config\n",
               stages, per_look, o.stages, stages * per_look);
  GateFlags flags = o.gate;
  flags.gate.stage_seeds = per_look;
  flags.gate.max_stages = stages;
  const judge::GateOptions options = flags.resolved();

  json stages_doc = json::array({{{"look", 1}, {"seeds", battery.seeds}, {"configs", "all"}}});
  for (int64_t look = 2; look <= stages; ++look) {
    const rb::RunSet current = reports::load_results(o.out);
    const judge::Comparison cmp = judge::compare(baseline->configs, current.configs, options);
    std::set<std::string> open;
    for (const auto& cc : cmp.configs)
      if (cc.primary_open() && cc.primary_looks() == look - 1)
        open.insert(cc.key);
    if (open.empty()) break;
    Battery next = battery;
    for (auto& s : next.seeds) s += (look - 1) * per_look;
    Plan plan = make_plan(next);
    std::vector<RunSpec> runs;
    for (auto& r : plan.runs)
      if (open.count(r.config_key())) runs.push_back(std::move(r));
    plan.runs = std::move(runs);
    fmt::print(stderr, "gate: look {} of {}: {} config(s) open, running seeds {}-{} for them ({} runs)\n", look - 1,
               stages, open.size(), next.seeds.front(), next.seeds.back(), plan.runs.size());
    for (const auto& k : open) fmt::print(stderr, "  open: {}\n", k);
    if (const int rc = run_stage(plan, ro); rc >= 0) return rc;
    const json more = plan.to_json();
    for (const auto& r : more.at("runs")) plan_doc["runs"].push_back(r);
    stages_doc.push_back({{"look", look}, {"seeds", next.seeds}, {"configs", json(open)}});
  }
  // The store's plan: every run of every look, so `report DIR` and `merge DIR` see the whole gate.
  plan_doc["gate_looks"] = stages_doc;
  write_json_atomic(std::filesystem::path(o.out) / "plan.json", plan_doc);
  OutputFlags out = o.outputs;
  if (out.html.empty() && out.json.empty() && out.md.empty()) {
    out.html = (std::filesystem::path(o.out) / "report.html").string();
    out.json = (std::filesystem::path(o.out) / "report.json").string();
    out.md = (std::filesystem::path(o.out) / "summary.md").string();
  }
  int rc = run_report(o.out, baseline_label, flags, out, {}, true,
                     from_history ? reports::BaselineSource([&](const rb::RunSet&) { return *baseline; })
                                  : reports::BaselineSource{});
  if (!o.record.empty()) rc = record_into_history(o, rc);
  return rc;
}

CommandFn add_gate_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<GateCommandOptions>();
  sub->add_option("--battery", o->battery, "Battery to run (default smoke)");
  sub->add_option("--baseline", o->baseline, "The stored baseline to gate on (e.g. ci/baselines/smoke.json)");
  sub->add_option("--baseline-history", o->baseline_history,
                  "Gate on the history instead: per config, the pooled runs of the commits since its last change "
                  "(a history database, docs/tracking.md)");
  sub->add_option("--record", o->record,
                  "Afterwards record this commit's runs into this history database (a dirty tree is refused)");
  sub->add_option("--out", o->out, "Results and reports (default gate-results)");
  sub->add_option("--jobs,-j", o->jobs, "Worker processes (default: the number of cores)")->check(CLI::Range(1, 1024));
  add_gate_flags(sub, o->gate);
  // --stages here is the number of looks this command may run (the option add_gate_flags declares sets it).
  sub->get_option("--stages")->description(
      "Looks up to the cap: each adds the battery's seed count to the open configs (default 5; the baseline must hold their seeds)");
  o->gate.gate.max_stages = 5;
  add_output_flags(sub, o->outputs);
  return [o, sub]() {
    RB_CHECK_INPUT(sub->count("--stage-seeds") == 0,
                   "gate: --stage-seeds is set by the battery (its seed count per look); use --stages for the number "
                   "of looks");
    GateCommandOptions run = *o;
    run.stages = o->gate.gate.max_stages;
    return run_gate(run);
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, gate,
            CommandEntry{"gate", torch_side_help("gate"), add_gate_command});

}  // namespace rb
