// recallbench score CELL: a new cell's leaderboard row in one command (issue 29).
//
//   recallbench score script:mycell.pt                      # or a plugin cell (--plugin lib.so), or an in-tree name
//   recallbench score mycell --reference diag+conv --yes --html board.html
//
// 1. check-cell at the battery's sizes (its width, state budget and longest sequence), the budget first:
//    a cell that fails a check, reads the future, or is over the budget is stopped before any training;
// 2. the plan and its estimated cost, then confirmation (a terminal prompt; --yes without a terminal);
// 3. the battery's runs for the cell, with progress and ETA, into --out (resumable: the same command again
//    finishes the rest and retrains nothing); on a battery with a tuning stage (the leaderboard's), first the
//    tuning runs into OUT/tuning, the rate chosen on them alone, then the scoring runs at that rate;
// 4. the board: the stored rows (ci/leaderboard/leaderboard.json, found from the checkout or the installed
//    package) with the new row highlighted, and, with --reference, the new cell against that cell at every
//    task point (two-sided Fisher on lock-in counts, Holm over the task points).
// Exit codes: 0 scored, 1 a check failed, 2 bad input (or declined, or over the budget), 130 interrupted.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cells/conformance.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "reports/leaderboard.h"
#include "reports/report.h"
#include "stats/stats.h"
#include "suite/battery.h"
#include "suite/cli.h"
#include "suite/context.h"
#include "suite/planner.h"
#include "suite/runner.h"
#include "suite/runner_stages.h"
#include "reports/tuning_text.h"
#include "suite/spec.h"

namespace rb {
namespace {

namespace fs = std::filesystem;

struct ScoreOptions {
  std::string cell, battery = "leaderboard", out, board, reference, html, md, json;
  int jobs = 0;
  bool yes = false, allow_over_budget = false;
  double alpha = 0.05;
};

// check-cell at the battery's sizes; returns false when a check failed (printed).
bool check_at_battery_sizes(const ScoreOptions& o, const Plan& plan) {
  NamedSpec cell{o.cell, nlohmann::json::object(), ""};
  prepare_script_cell(cell);
  ConformanceOptions c;
  c.cell = cell.name;
  c.path = cell.path;
  c.options = cell.options;
  c.d_model = plan.battery.model.d_model;
  c.state_budget = plan.battery.model.state_budget;
  c.check_budget = c.state_budget > 0 && !o.allow_over_budget;
  for (const auto& r : plan.runs) c.length = std::max<int64_t>(c.length, r.task.options.value("length", int64_t{0}));
  const auto checks = check_cell(c);
  fmt::print("1. check-cell {} at the battery's sizes (d_model {}, budget {}, length {})\n", o.cell, c.d_model,
             c.state_budget, c.length);
  const std::string failed = print_checks(checks);
  if (failed == "budget")  // the one condition run refuses too: the same exit code (2) and the same hint
    throw UsageError("score: " + o.cell + " is over the battery's state budget: not a matched-state entrant (nothing "
                     "was trained)", over_budget_hint(cell.name, c.state_budget));
  if (!failed.empty()) fmt::print("score: {} failed: {}; nothing was trained\n", o.cell, failed);
  return failed.empty();
}

bool confirm(const std::string& question) {
  if (!isatty(STDIN_FILENO))
    throw UsageError("score: not confirmed (standard input is not a terminal)", "pass --yes to start without asking");
  fmt::print("{} [y/N] ", question);
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

// The new cell against the reference cell at every task point both rows have.
void print_against_reference(const reports::Leaderboard& board, const std::string& cell, const std::string& reference,
                             double alpha) {
  const reports::LeaderboardRow* mine = nullptr;
  const reports::LeaderboardRow* ref = nullptr;
  for (const auto& r : board.rows) {
    if (r.cell == cell) mine = &r;
    if (r.cell == reference) ref = &r;
  }
  if (!ref) {
    std::string names;
    for (const auto& r : board.rows) names += (names.empty() ? "" : ", ") + r.cell;
    throw UsageError("score: --reference " + reference + " has no row on the board", "rows: " + names);
  }
  if (!mine) return;
  struct Line {
    std::string label;
    int64_t k1, n1, k2, n2;
    double p;
  };
  std::vector<Line> lines;
  for (const auto& c : mine->configs)
    for (const auto& r : ref->configs)
      if (setting_key(c, board.rates()) == setting_key(r, board.rates())) {
        const auto a = judge::summarize(c), b = judge::summarize(r);
        const double p = stats::fisher_exact({a.k, a.n - a.k, b.k, b.n - b.k}).p_value;
        lines.push_back({c.task_label(), a.k, a.n, b.k, b.n, p});
      }
  std::vector<double> ps;
  for (const auto& l : lines) ps.push_back(l.p);
  const auto adj = ps.empty() ? ps : stats::p_adjust(ps, stats::AdjustMethod::kHolm);
  fmt::print("\n{} against {} (lock-in, two-sided Fisher, Holm over {} task points):\n", cell, reference, lines.size());
  for (size_t i = 0; i < lines.size(); ++i)
    fmt::print("  {:<44} {:>3}/{:<3} vs {:>3}/{:<3}  p = {:.3g}, Holm {:.3g}{}\n", lines[i].label, lines[i].k1,
               lines[i].n1, lines[i].k2, lines[i].n2, lines[i].p, adj[i], adj[i] <= alpha ? "  (differs)" : "");
}

int run_score(const ScoreOptions& o) {
  Battery battery = load_battery(o.battery);
  restrict_to_cells(battery, o.cell);
  Plan plan = make_plan(battery);  // resolves every run: unknown names, options and leaky cells stop here
  // A battery with a tuning stage (the leaderboard's): the cell's rate is chosen on the tuning seeds first.
  const std::optional<Plan> tuning = battery.tuning ? std::optional<Plan>(make_tuning_plan(battery)) : std::nullopt;
  const std::string cell_name = plan.runs.empty() ? o.cell : plan.runs.front().cell.name;
  // The board is read before anything is trained, so a missing or bad one costs nothing.
  const std::string board_path = o.board.empty() ? find_leaderboard() : o.board;
  if (board_path.empty())
    throw UsageError("score: the stored leaderboard (ci/leaderboard/leaderboard.json) was found neither in the "
                     "current directory, nor in the checkout this recallbench was built from, nor installed",
                     "pass --board FILE");
  reports::Leaderboard board = reports::read_leaderboard(board_path);

  if (!check_at_battery_sizes(o, plan)) return kExitRegression;
  if (const auto over = over_budget(plan); !over.empty()) {
    for (const auto& line : over) fmt::print("  over budget: {}\n", line);
    if (!o.allow_over_budget)
      throw UsageError("score: over the battery's state budget: not a matched-state entrant (nothing was trained)",
                       over_budget_hint(cell_name, plan.battery.model.state_budget));
  }

  // results/score-mine for script:mine.pt (no ':' in the folder's name)
  const std::string plain = is_script_cell(cell_name) ? cell_name.substr(std::string(kScriptCellPrefix).size()) : cell_name;
  const std::string out = o.out.empty() ? "results/score-" + fs::path(plain).stem().string() : o.out;
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  double cost = 0, tuning_cost = 0;
  std::set<std::string> configs;
  for (const auto& r : plan.runs) {
    cost += estimate_run_seconds(r);
    configs.insert(r.config_key());
  }
  if (tuning)
    for (const auto& r : tuning->runs) tuning_cost += estimate_run_seconds(r);
  const std::string tuning_text =
      tuning ? fmt::format(" after {} tuning runs (every task point at {} learning rates on {} tuning seeds, {})",
                           tuning->runs.size(), battery.tuning->lrs.size(), battery.tuning->seeds.size(),
                           core_time_text(tuning_cost))
             : "";
  fmt::print("\n2. plan: battery {}, {} runs ({} task point{} x {} seeds){}; estimated at most {} in all, "
             "about {:.1f} minutes on {} worker{} (runs that lock in stop early); results in {}\n",
             battery.name, plan.runs.size(), configs.size(), configs.size() == 1 ? "" : "s", battery.seeds.size(),
             tuning_text, core_time_text(cost + tuning_cost), (cost + tuning_cost) / 60.0 / jobs, jobs,
             jobs == 1 ? "" : "s", out);
  if (!o.yes && !confirm("start training?")) {
    fmt::print("score: not started\n");
    return kExitUsage;
  }

  fmt::print("\n3. training (the same command again resumes; finished runs are kept)\n");
  std::fflush(stdout);
  RunnerOptions ro;
  ro.out = out;
  ro.jobs = jobs;
  if (tuning) {
    RunnerOptions tro = ro;
    tro.out = tuning_dir(out);
    fmt::print("   tuning: {} runs into {}\n", tuning->runs.size(), tro.out.string());
    std::fflush(stdout);
    const RunnerSummary ts = run_plan(*tuning, tro);
    if (ts.interrupted) {
      fmt::print(stderr, "score: interrupted; run the same command again to finish the rest\n");
      return 130;
    }
    if (ts.failed > 0) {
      fmt::print(stderr, "score: {} tuning run(s) failed (logs in {}/logs); run the same command again to retry them\n",
                 ts.failed, tro.out.string());
      return kExitInternal;
    }
    const Selection selection = finish_selection(battery, *tuning, tro.out);
    fmt::print("   the rate chosen on the tuning seeds:\n{}", reports::tuning_table(selection.choices));
    plan = make_plan(with_rates(battery, selection));
    fmt::print("   scoring: {} runs at lr {:g}\n", plan.runs.size(), selection.choices.front().lr);
    std::fflush(stdout);
  }
  const RunnerSummary sum = run_plan(plan, ro);
  if (sum.interrupted) {
    fmt::print(stderr, "score: interrupted; run the same command again to finish the rest\n");
    return 130;
  }
  if (sum.failed > 0) {
    fmt::print(stderr, "score: {} run(s) failed (logs in {}/logs); run the same command again to retry them\n",
               sum.failed, out);
    return kExitInternal;
  }

  fmt::print("\n4. the board ({}), the new row marked\n", board_path);
  reports::add_results(board, reports::load_results(out), true);
  const reports::Standing st = reports::rank_cells(board, o.alpha);
  fmt::print("{}", reports::leaderboard_text(board, st));
  if (!o.reference.empty()) print_against_reference(board, cell_name, o.reference, o.alpha);
  if (const reports::OutputPaths paths{o.json, o.html, o.md}; paths.any())
    reports::write_outputs(reports::leaderboard_document(board, st), paths);
  for (const auto* p : {&o.html, &o.md, &o.json})
    if (!p->empty()) fmt::print("wrote {}\n", *p);
  fmt::print("to store the row (a pull request): recallbench leaderboard --add {}\n", out);
  return kExitOk;
}

CommandFn add_score_command(CLI::App& sub) {
  auto o = std::make_shared<ScoreOptions>();
  sub.add_option("cell", o->cell,
                 "The cell: script:FILE.pt (TorchScript), a plugin cell's name (load it with --plugin lib.so before the "
                 "command), or an in-tree name (recallbench list cells)")
      ->required();
  sub.add_option("--battery", o->battery, "The battery of the board (default leaderboard)");
  sub.add_option("--out", o->out, "Results directory (default results/score-<cell>, e.g. results/score-mine for script:mine.pt; reused when resuming)");
  sub.add_option("--board", o->board,
                 "The stored leaderboard (default: ci/leaderboard/leaderboard.json here, in the checkout recallbench "
                 "was built from, or installed)");
  sub.add_option("--reference", o->reference, "Also test the cell against this row at every task point");
  sub.add_option("--jobs,-j", o->jobs, "Worker processes (default: the number of cores)")->check(CLI::Range(1, 1024));
  sub.add_flag("--yes,-y", o->yes, "Start training without asking");
  sub.add_flag("--allow-over-budget", o->allow_over_budget, "Score a cell over the battery's state budget anyway");
  sub.add_option("--alpha", o->alpha, "Family-wise level (top groups, the reference tests; default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  sub.add_option("--html", o->html, "Write the board as a self-contained HTML page here");
  sub.add_option("--md", o->md, "Write the board as Markdown here");
  sub.add_option("--json", o->json, "Write the ranking as JSON here");
  return [o]() { return run_score(*o); };
}

}  // namespace

RB_REGISTER(CommandRegistry, score,
            CommandEntry{"score", torch_side_help("score"), add_score_command});

}  // namespace rb
