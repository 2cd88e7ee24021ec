// recallbench baseline update BATTERY --results DIR [--out FILE]: record a stored baseline.
// recallbench baseline show FILE: what a baseline holds.
//
// Baselines live in the repository (ci/baselines/<battery>.json) and are reviewed like code. A baseline
// keeps per-seed outcomes (no learning curves) and the context the results came from.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "reports/report.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb {
namespace {

struct BaselineOptions {
  std::string battery, results, out;
  std::string file;
  bool allow_partial = false;
};

// Whether `path` lies in a git checkout (a .git in one of its folders): only then is "git add" the next step.
bool inside_git_checkout(const std::string& path) {
  std::error_code ec;
  for (auto dir = std::filesystem::absolute(path, ec).parent_path(); !ec && !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return true;
    if (dir == dir.root_path()) break;
  }
  return false;
}

int run_update(const BaselineOptions& o) {
  if (!std::regex_match(o.battery, std::regex("[A-Za-z0-9_.-]+")))
    throw UsageError("baseline name got '" + o.battery + "', expected letters, digits, '.', '_' or '-'",
                     "use the battery's name, e.g. smoke");
  const rb::RunSet runs = reports::load_results(o.results);
  if (!runs.battery.empty() && runs.battery != o.battery)
    throw UsageError("baseline update " + o.battery + ": the results in " + o.results + " come from battery '" +
                         runs.battery + "' (their plan.json)",
                     "a baseline is named after its battery: recallbench baseline update " + runs.battery +
                         " --results " + o.results);
  if (!runs.missing_planned.empty() && !o.allow_partial)
    throw UsageError(fmt::format("baseline update {}: {} of the runs {}/plan.json plans have no result (first: {}); a "
                                 "baseline from {} run(s) would gate every later commit on fewer seeds than planned",
                                 o.battery, runs.missing_planned.size(), o.results, runs.missing_planned.front(),
                                 runs.run_count),
                     "finish them with the same run command, or pass --allow-partial to record only the runs present");
  const std::string out = o.out.empty() ? "ci/baselines/" + o.battery + ".json" : o.out;
  std::set<std::string> before;
  enum class Previous { kNone, kRead, kUnreadable } previous = Previous::kNone;
  if (std::filesystem::exists(out)) {
    try {
      for (const auto& c : reports::read_baseline(out).configs) before.insert(c.key);
      previous = Previous::kRead;
    } catch (const UsageError&) {
      previous = Previous::kUnreadable;  // an unreadable old baseline is replaced, and the message says so
    }
  }
  write_json_atomic(out, reports::baseline_json(runs, o.battery));
  int64_t failed = 0, added = 0;
  std::set<std::string> now;
  for (const auto& c : runs.configs) {
    now.insert(c.key);
    added += before.count(c.key) ? 0 : 1;
    failed += judge::summarize(c).failed;
  }
  int64_t removed = 0;
  for (const auto& k : before) removed += now.count(k) ? 0 : 1;
  const std::string since = previous == Previous::kRead
                                ? fmt::format("{} new, {} dropped since the previous baseline", added, removed)
                            : previous == Previous::kUnreadable ? "it replaces an unreadable file"
                                                                : "a new baseline (there was none)";
  fmt::print("wrote {}: {} configs, {} runs from {} (commit {}); {}\n", out, runs.configs.size(), runs.run_count,
             runs.source, string_or(runs.context, "git_commit", "unknown"), since);
  if (!runs.missing_planned.empty())
    fmt::print("warning: recorded without {} planned run(s) (--allow-partial)\n", runs.missing_planned.size());
  if (failed) fmt::print("warning: {} runs did not finish normally (diverged or error); they count as not locked in\n", failed);
  if (inside_git_checkout(out)) fmt::print("review it and commit it: git add {}\n", out);
  return kExitOk;
}

int run_show(const BaselineOptions& o) {
  const reports::Baseline b = reports::read_baseline(o.file);
  fmt::print("baseline {} (battery '{}', created {}, commit {})\n", o.file, b.battery, b.created,
             string_or(b.context, "git_commit", "unknown"));
  for (const auto& c : b.configs) {
    const auto s = judge::summarize(c);
    fmt::print("  {:>3}/{:<3} [{:.2f}, {:.2f}] recall {:.3f}  {}\n", s.k, s.n, s.ci.low, s.ci.high, s.recall.median, c.key);
  }
  return kExitOk;
}

CommandFn add_baseline_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<BaselineOptions>();
  sub->require_subcommand(1);
  auto* update = sub->add_subcommand("update", "Write ci/baselines/BATTERY.json from a results directory");
  update->add_option("battery", o->battery, "Battery name (the file is ci/baselines/<battery>.json)")->required();
  update->add_option("--results", o->results, "Results directory (recallbench run --out DIR) or a report")->required();
  update->add_option("--out", o->out, "Write here instead of ci/baselines/<battery>.json");
  update->add_flag("--allow-partial", o->allow_partial,
                   "Record even when runs the results' plan.json lists have no result (refused otherwise: exit 2)");
  auto* show = sub->add_subcommand("show", "Print what a baseline holds");
  show->add_option("file", o->file, "Baseline file")->required();
  return [o, update, show]() {
    if (update->parsed()) return run_update(*o);
    if (show->parsed()) return run_show(*o);
    throw UsageError("baseline needs a subcommand: update or show");
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, baseline,
            CommandEntry{"baseline", "Record (update) or show a stored baseline", add_baseline_command});

}  // namespace rb
