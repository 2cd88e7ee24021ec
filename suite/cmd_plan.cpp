// recallbench plan: expands a battery, or the ad hoc config `run` would train, into its runs (stable keys
// and specs) and contrasts, without running anything. It reads run's flags (suite/run_flags.h).
//
//   recallbench plan --battery smoke              one line per run: index, key; then the contrasts
//   recallbench plan --cell diag --task mqar --pairs 8 --seeds 0-4 --lr 1e-3   what that `run` would train
//   recallbench plan --battery smoke --specs      each run's full spec (JSON, one line) under its key
//   recallbench plan --battery smoke --json       the plan document (what the runner writes to DIR/plan.json)
//   recallbench plan --battery smoke --battery-json   the battery itself, canonical (a file to start from)
// A battery with a tuning stage shows both stages (its tuning runs, then the scoring runs) and their costs.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"
#include "judge/learning.h"
#include "judge/standing.h"
#include "judge/summary.h"
#include "reports/gate_text.h"
#include "reports/leaderboard.h"
#include "suite/battery.h"
#include "suite/cli.h"
#include "suite/context.h"
#include "suite/planner.h"
#include "suite/run_flags.h"

namespace rb {
namespace {

struct PlanOptions {
  RunPlanFlags what;  // as run reads them; no --battery, --task or --spec: the default battery
  std::string shard = "0/1";
  bool json = false, battery_json = false, specs = false;
};

// A battery whose stored board (suite/context.h find_leaderboard) names a reference cell and has the reference's
// row: per task point, what the reference measured against the point's budget, so a point whose
// ceiling fails is seen before anything runs (the board does not rank it: judge/standing.h).
void print_reference(const Battery& battery) {
  const std::string file = find_leaderboard();
  if (file.empty()) return;
  const reports::Leaderboard board = reports::read_leaderboard(file);
  const judge::BoardReference ref = board.reference();
  if (board.battery != battery.name || ref.cell.empty()) return;
  const reports::LeaderboardRow* row = board.row(ref.cell);
  if (row == nullptr) {
    fmt::print("\nreference {}: no row on the stored board ({})\n", ref.cell, file);
    return;
  }
  fmt::print("\nreference {} on the stored board ({}), per task point (ranked where it locks in on {:.0f}% of seeds):\n",
             ref.cell, file, 100 * ref.min_rate);
  for (const auto& c : row->configs) {
    const judge::ConfigSummary s = judge::summarize(c);
    const int64_t budget = judge::LearningSchedule::of(c).steps;
    std::string measured = fmt::format("no seed locked in in a {}-step budget", budget);
    if (s.median_lock_in_step >= 0) {
      int64_t first = budget, last = 0;
      for (const auto& seed : c.seeds)
        if (seed.locked_in()) first = std::min(first, seed.lock_in_step), last = std::max(last, seed.lock_in_step);
      measured = fmt::format("lock-in step median {:g} (range {}-{}) of a {}-step budget", s.median_lock_in_step, first,
                             last, budget);
    }
    fmt::print("  {}\n      {}/{}, {}{}{}\n", judge::point_label(c), s.k, s.n, measured,
               s.learning.not_locked_in > 0 ? "; not locked in: " + reports::learning_text(s.learning) : "",
               ref.solves(s.k, s.n) ? "" : "; not ranked");
  }
}

int run_plan_command(PlanOptions o) {
  if (o.what.battery.empty() && o.what.task.empty() && o.what.spec_file.empty()) o.what.battery = kDefaultBattery;
  const Plan plan = plan_from_flags(o.what);
  if (o.battery_json) {
    fmt::print("{}\n", plan.battery.to_json().dump(2));
    return kExitOk;
  }
  const Shard shard = Shard::parse(o.shard);
  // A battery with a tuning stage is two plans: the tuning runs, then the scoring runs at the chosen rates (their
  // keys follow the choice; the count and cost do not depend on it).
  const std::optional<Plan> tuning = plan.battery.tuning ? std::optional<Plan>(make_tuning_plan(plan.battery)) : std::nullopt;
  if (o.json) {
    if (tuning) fmt::print("{}\n", nlohmann::json{{"tuning", tuning->to_json()}, {"scoring", plan.to_json()}}.dump(2));
    else fmt::print("{}\n", plan.to_json().dump(2));
    return kExitOk;
  }
  const auto cost_of = [](const Plan& p, std::set<std::string>* configs) {
    double cost = 0;
    for (const auto& r : p.runs) {
      cost += estimate_run_seconds(r);
      configs->insert(r.config_key());
    }
    return cost;
  };
  std::set<std::string> configs, tuning_configs;
  const double cost = cost_of(plan, &configs);
  if (tuning) {
    const double tuning_cost = cost_of(*tuning, &tuning_configs);
    const auto& t = *plan.battery.tuning;
    fmt::print("battery {}: {} runs in two stages; estimated ≤ {} in all\n", plan.battery.name,
               tuning->runs.size() + plan.runs.size(), core_time_text(cost + tuning_cost));
    fmt::print("  tuning: {} runs ({} configs x {} tuning seeds: every config at {} learning rates, {}), estimated ≤ "
               "{}; into DIR/tuning\n",
               tuning->runs.size(), tuning_configs.size(), t.seeds.size(), t.lrs.size(), fmt::join(t.lrs, ", "),
               core_time_text(tuning_cost));
    fmt::print("  scoring: {} runs ({} configs x {} seeds, each cell at the rate its tuning chooses), {} contrasts; "
               "estimated ≤ {}\n",
               plan.runs.size(), configs.size(), plan.battery.seeds.size(), plan.contrasts.size(), core_time_text(cost));
  } else {
    fmt::print("battery {}: {} runs ({} configs x {} seeds), {} contrasts; estimated ≤ {}\n", plan.battery.name,
               plan.runs.size(), configs.size(), plan.battery.seeds.size(), plan.contrasts.size(), core_time_text(cost));
  }
  if (!plan.battery.description.empty()) fmt::print("  {}\n", plan.battery.description);
  for (const auto& line : over_budget(plan))
    fmt::print("  over budget: {} (run refuses it with --cell unless --allow-over-budget)\n", line);
  const auto indices = shard_indices(plan.runs.size(), shard);
  if (shard.count > 1) fmt::print("shard {}/{}: {} runs\n", shard.index, shard.count, indices.size());
  if (tuning) {
    const auto tuning_indices = shard_indices(tuning->runs.size(), shard);
    fmt::print("\ntuning runs:\n");
    for (size_t i : tuning_indices) {
      fmt::print("  {:>5}  {}\n", i, tuning->runs[i].key());
      if (o.specs) fmt::print("         {}\n", tuning->runs[i].to_json().dump());
    }
  }
  fmt::print(tuning ? "\nscoring runs (shown at the recipes' rates; each cell's key follows its chosen rate):\n" : "\nruns:\n");
  for (size_t i : indices) {
    fmt::print("  {:>5}  {}\n", i, plan.runs[i].key());
    if (o.specs) fmt::print("         {}\n", plan.runs[i].to_json().dump());
  }
  fmt::print("\ncontrasts:\n");
  for (const auto& c : plan.contrasts) fmt::print("  {}\n", c.name);
  print_reference(plan.battery);
  return kExitOk;
}

}  // namespace

CommandFn add_plan_command(CLI::App& sub) {
  auto o = std::make_shared<PlanOptions>();
  add_run_plan_flags(sub, o->what);
  sub.footer(sub.get_footer() + "\nWith no --battery, --task or --spec: the default battery (" +
             std::string(kDefaultBattery) + "); with --battery B --cell C, B's recipe on cell C (a new cell's row).");
  sub.add_option("--shard", o->shard, "Show only slice I/N (as run --shard)");
  sub.add_flag("--specs", o->specs, "Print each run's full spec under its key");
  sub.add_flag("--json", o->json, "Print the plan document (JSON)");
  sub.add_flag("--battery-json", o->battery_json, "Print the battery itself as canonical JSON");
  return [o]() { return run_plan_command(*o); };
}

RB_REGISTER(CommandRegistry, plan,
            CommandEntry{"plan", "Print the runs of a battery or of an ad hoc run (keys, specs, cost) and its contrasts, without running them",
                         add_plan_command});

}  // namespace rb
