// recallbench list [cells|tasks|batteries|kernels]
#include <algorithm>

#include <fmt/format.h>

#include "cells/catalog.h"
#include "kernels/catalog.h"
#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "suite/planner.h"
#include "suite/train/train_api.h"
#include "tasks/task.h"

namespace rb {
namespace {

struct ListOptions {
  std::string kind = "all";
  int64_t d_model = 64;
  int64_t budget = 0;
  int64_t length = 64;
  bool json = false;
  bool parameters = false;
};

// {"a": 1, "b": true} → "a=1 b=yes" (a compact column for the cells table).
std::string key_values(const nlohmann::json& j) {
  std::string out;
  for (const auto& [k, v] : j.items()) {
    const std::string value = v.is_boolean() ? (v.get<bool>() ? "yes" : "no") : v.is_string() ? v.get<std::string>() : v.dump();
    out += (out.empty() ? "" : " ") + k + "=" + value;
  }
  return out;
}

int run_list(const ListOptions& o) {
  nlohmann::json out;
  const bool all = o.kind == "all";
  if (all || o.kind == "cells") {
    auto cells = cell_catalog(o.d_model, o.budget, o.length, o.parameters);
    nlohmann::json arr = nlohmann::json::array();
    if (!o.json) {
      fmt::print("cells (d_model {}, state budget {}, length {}):\n", o.d_model,
                 o.budget ? std::to_string(o.budget) : "default", o.length);
      fmt::print("  {:<18} {:>7}{}  {:<36} {:<36} {}\n", "name", "state", o.parameters ? fmt::format(" {:>7}", "params") : "",
                 "knobs", "sizing", "description");
    }
    for (const auto& c : cells) {
      arr.push_back({{"name", c.name}, {"description", c.description}, {"knobs", c.knobs}, {"options", c.options},
                     {"state_size", c.state_size},
                     {"parameters", c.parameters >= 0 ? nlohmann::json(c.parameters) : nlohmann::json(nullptr)}});
      if (!o.json)
        fmt::print("  {:<18} {:>7}{}  {:<36} {:<36} {}\n", c.name, c.state_size,
                   o.parameters ? fmt::format(" {:>7}", c.parameters) : "", key_values(c.knobs), key_values(c.options),
                   c.description);
    }
    out["cells"] = arr;
  }
  if (all || o.kind == "tasks") {
    nlohmann::json arr = nlohmann::json::array();
    if (!o.json) fmt::print("tasks:\n");
    for (const auto& t : TaskRegistry::instance().entries()) {
      arr.push_back({{"name", t.name}, {"description", t.description}, {"defaults", t.defaults}});
      if (!o.json) fmt::print("  {:<12} {}\n  {:<12} options: {}\n", t.name, t.description, "", t.defaults.dump());
    }
    out["tasks"] = arr;
  }
  if (all || o.kind == "batteries") {
    // Every row is costed before any is printed: a battery naming a cell only LibTorch can size throws
    // NeedsLibTorch here, and the whole command is handed to recallbench-torch with nothing said twice.
    struct Row {
      std::string name, runs = "?", cost = "?", description, note;
    };
    std::vector<Row> rows;
    nlohmann::json arr = nlohmann::json::array();
    size_t width = 12;  // the name column: as wide as the longest name (a user's file may add a longer one)
    for (const auto& b : BatteryRegistry::instance().entries()) {
      width = std::max(width, b.name.size());
      // Run count and an upper-bound cost (suite/planner.h); a preset naming a cell this build lacks says so.
      Row row{b.name, "?", "?", b.description, ""};
      nlohmann::json entry = {{"name", b.name}, {"description", b.description}};
      try {
        set_costing_only(true);  // costing every preset is not planning one
        const Plan plan = make_plan(b.make());
        double seconds = 0;
        for (const auto& r : plan.runs) seconds += estimate_run_seconds(r);
        row.runs = std::to_string(plan.runs.size());
        row.cost = fmt::format("{:.1f}", seconds / 3600.0);
        entry["runs"] = plan.runs.size();
        entry["estimated_core_hours"] = seconds / 3600.0;
      } catch (const UsageError& e) {
        row.note = std::string("  [cannot plan here: ") + e.what() + "]";
        entry["error"] = e.what();
      }
      arr.push_back(entry);
      rows.push_back(std::move(row));
    }
    if (!o.json) {
      fmt::print("batteries:\n");
      for (const auto& r : rows)
        fmt::print("  {:<{}} {:>5} runs  ≤{:>7} core-h  {}{}\n", r.name, width, r.runs, r.cost, r.description, r.note);
    }
    out["batteries"] = arr;
  }
  if (all || o.kind == "kernels") {
    const auto kernels = kernel_catalog();  // before printing: the front end hands this over to LibTorch's side
    nlohmann::json arr = nlohmann::json::array();
    if (!o.json) fmt::print("kernels:\n");
    for (const auto& k : kernels) {
      arr.push_back({{"name", k.name}, {"recurrence", k.recurrence}, {"impl", k.impl}, {"backend", k.backend},
                     {"description", k.description}, {"available", k.unavailable.empty()}});
      if (!o.json)
        fmt::print("  {:<28} {:<8} {:<5} {}{}\n", k.name, k.impl, k.backend, k.description,
                   k.unavailable.empty() ? "" : " [unavailable here: " + k.unavailable + "]");
    }
    out["kernels"] = arr;
  }
  if (o.json) fmt::print("{}\n", out.dump(2));
  return kExitOk;
}

}  // namespace

CommandFn add_list_command(CLI::App& s) {
  auto* sub = &s;
  auto opts = std::make_shared<ListOptions>();
  sub->add_option("kind", opts->kind, "What to list: cells, tasks, batteries, kernels (default: all)")
      ->check(CLI::IsMember({"all", "cells", "tasks", "batteries", "kernels"}));
  sub->add_option("--d-model", opts->d_model, "Model width at which cells are sized (default 64)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--parameters", opts->parameters,
                "Also count each cell's parameters (builds every module: about 1 s, on LibTorch's side); without it "
                "the in-tree cells are listed from their sizing rules, in milliseconds");
  sub->add_option("--budget", opts->budget, "State budget per layer in numbers; 0 = each cell's default")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--length", opts->length, "Sequence length (attention's state grows with it; default 64)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", opts->json, "One JSON object on stdout");
  return [opts]() { return run_list(*opts); };
}

RB_REGISTER(CommandRegistry, list,
            CommandEntry{"list", "List registered cells, tasks, batteries or kernels", add_list_command});

}  // namespace rb
