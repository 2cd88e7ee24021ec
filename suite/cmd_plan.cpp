// recallbench plan: expands a battery, or the ad hoc config `run` would train, into its runs (stable keys
// and specs) and contrasts, without running anything. It reads run's flags (suite/run_flags.h).
//
//   recallbench plan --battery smoke              one line per run: index, key; then the contrasts
//   recallbench plan --cell diag --task mqar --pairs 8 --seeds 0-4 --lr 1e-3   what that `run` would train
//   recallbench plan --battery smoke --specs      each run's full spec (JSON, one line) under its key
//   recallbench plan --battery smoke --json       the plan document (what the runner writes to DIR/plan.json)
//   recallbench plan --battery smoke --battery-json   the battery itself, canonical (a file to start from)
#include <set>

#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "suite/planner.h"
#include "suite/run_flags.h"

namespace rb {
namespace {

struct PlanOptions {
  RunPlanFlags what;  // as run reads them; no --battery, --task or --spec: the default battery
  std::string shard = "0/1";
  bool json = false, battery_json = false, specs = false;
};

int run_plan_command(PlanOptions o) {
  if (o.what.battery.empty() && o.what.task.empty() && o.what.spec_file.empty()) o.what.battery = kDefaultBattery;
  const Plan plan = plan_from_flags(o.what);
  if (o.battery_json) {
    fmt::print("{}\n", plan.battery.to_json().dump(2));
    return kExitOk;
  }
  const Shard shard = Shard::parse(o.shard);
  if (o.json) {
    fmt::print("{}\n", plan.to_json().dump(2));
    return kExitOk;
  }
  double cost = 0;
  std::set<std::string> configs;
  for (const auto& r : plan.runs) {
    cost += estimate_run_seconds(r);
    configs.insert(r.config_key());
  }
  fmt::print("battery {}: {} runs ({} configs x {} seeds), {} contrasts; estimated ≤ {}\n", plan.battery.name,
             plan.runs.size(), configs.size(), plan.battery.seeds.size(), plan.contrasts.size(), core_time_text(cost));
  if (!plan.battery.description.empty()) fmt::print("  {}\n", plan.battery.description);
  for (const auto& line : over_budget(plan))
    fmt::print("  over budget: {} (run refuses it with --cell unless --allow-over-budget)\n", line);
  const auto indices = shard_indices(plan.runs.size(), shard);
  if (shard.count > 1) fmt::print("shard {}/{}: {} runs\n", shard.index, shard.count, indices.size());
  fmt::print("\nruns:\n");
  for (size_t i : indices) {
    fmt::print("  {:>5}  {}\n", i, plan.runs[i].key());
    if (o.specs) fmt::print("         {}\n", plan.runs[i].to_json().dump());
  }
  fmt::print("\ncontrasts:\n");
  for (const auto& c : plan.contrasts) fmt::print("  {}\n", c.name);
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
