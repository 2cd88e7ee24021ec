// recallbench plan: expands a battery into its runs (stable keys and specs) and contrasts, without
// running anything.
//
//   recallbench plan --battery smoke              one line per run: index, key; then the contrasts
//   recallbench plan --battery smoke --specs      each run's full spec (JSON, one line) under its key
//   recallbench plan --battery smoke --json       the plan document (what the runner writes to DIR/plan.json)
//   recallbench plan --battery smoke --battery-json   the battery itself, canonical (a file to start from)
#include <set>

#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "suite/planner.h"

namespace rb {
namespace {

struct PlanOptions {
  std::string battery = kDefaultBattery;
  std::string shard = "0/1";
  std::string cells;  // --cell: the battery's recipe on these cells only
  bool json = false, battery_json = false, specs = false;
};

int run_plan_command(const PlanOptions& o) {
  Battery battery = load_battery(o.battery);
  if (!o.cells.empty()) restrict_to_cells(battery, o.cells);
  if (o.battery_json) {
    fmt::print("{}\n", battery.to_json().dump(2));
    return kExitOk;
  }
  const Plan plan = make_plan(battery);
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
  fmt::print("battery {}: {} runs ({} configs x {} seeds), {} contrasts; estimated ≤ {}\n", battery.name,
             plan.runs.size(), configs.size(), battery.seeds.size(), plan.contrasts.size(), core_time_text(cost));
  if (!battery.description.empty()) fmt::print("  {}\n", battery.description);
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
  sub.add_option("--battery", o->battery, "Preset name or battery JSON file (default smoke)");
  sub.add_option("--cell", o->cells,
                 "The battery's recipe on these cells only, comma-separated (a new cell's row: script:X.pt, a plugin "
                 "cell, an in-tree name), as run --battery B --cell C");
  sub.add_option("--shard", o->shard, "Show only slice I/N (as run --shard)");
  sub.add_flag("--specs", o->specs, "Print each run's full spec under its key");
  sub.add_flag("--json", o->json, "Print the plan document (JSON)");
  sub.add_flag("--battery-json", o->battery_json, "Print the battery itself as canonical JSON");
  return [o]() { return run_plan_command(*o); };
}

RB_REGISTER(CommandRegistry, plan,
            CommandEntry{"plan", "Print a battery's runs (keys, specs) and contrasts without running them",
                         add_plan_command});

}  // namespace rb
