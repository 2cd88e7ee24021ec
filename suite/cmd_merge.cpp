// recallbench merge: gathers the runs of one or more results stores (shards, Slurm array tasks, other
// machines) into one store and writes its aggregate.
//
//   recallbench merge DIR...  [--out DIR] [--battery NAME|FILE]
//
// Every run file is validated (suite/store.h); invalid ones are reported and skipped. The same run found
// in two stores must have identical metrics (store.h run_metrics), else the merge fails (exit 2). Runs
// are copied into OUT/runs/ (OUT defaults to the first DIR) and OUT/aggregate.json is written; with a plan
// (--battery, or the first DIR's plan.json) the runs missing from it are listed and the exit code is 2.
// With --battery only its runs are merged; with a store's plan.json every valid run is kept and the plan
// extended by the runs beyond it (other seeds of a config, runs of another command into a shard's store).
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "suite/battery.h"
#include "suite/cli.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "suite/planner.h"
#include "suite/runner_stages.h"
#include "suite/runner.h"
#include "suite/store.h"

namespace rb {
namespace {

namespace fs = std::filesystem;

// What the merge and the aggregate read of a store's plan.json (its battery's name, its runs' keys), checked
// before anything is written: a hand-edited file is bad input naming it (exit 2). A plan that is not an
// object is ignored, as before.
void check_plan(const json& plan, const std::string& where) {
  if (!plan.is_object()) return;
  require_field<std::string>(require_field<json>(plan, "battery", where), "name", where + ": battery");
  const json runs = require_field<json>(plan, "runs", where);
  if (!runs.is_array()) throw UsageError(where + ": field 'runs' got " + runs.type_name() + ", expected an array");
  for (size_t i = 0; i < runs.size(); ++i)
    require_field<std::string>(runs[i], "key", fmt::format("{}: runs[{}]", where, i));
}

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out, battery;
};

int run_merge(const MergeOptions& o) {
  for (const auto& d : o.dirs)
    if (!fs::is_directory(d)) throw UsageError("merge: '" + d + "' is not a directory", "give results directories");
  const fs::path out = o.out.empty() ? fs::path(o.dirs.front()) : fs::path(o.out);
  // OUT inside an input store (e.g. DIR/runs) would write the merge into what it reads.
  for (const auto& d : o.dirs) {
    std::error_code ec;
    const fs::path in = fs::weakly_canonical(d, ec), to = fs::weakly_canonical(out, ec);
    const auto rel = to.lexically_relative(in);
    if (!rel.empty() && rel != "." && *rel.begin() != "..")
      throw UsageError("merge: --out " + out.string() + " lies inside the input store " + d,
                       "give an --out beside the inputs, or omit it to merge into the first DIR");
  }

  json plan = nullptr;
  if (!o.battery.empty()) {
    const Battery battery = load_battery(o.battery);
    if (battery.tuning) {  // its scoring runs are at the rates its tuning stage chose: read the choice
      Selection selection;
      for (const auto& d : o.dirs) {
        selection = read_selection(make_tuning_plan(battery), tuning_dir(d), tuning_rule(battery));
        if (selection.complete()) break;
      }
      if (!selection.complete())
        throw UsageError("merge: battery " + battery.name + " chooses each cell's rate in its tuning stage, and no DIR "
                         "holds a complete tuning stage (DIR/tuning)",
                         "merge the scoring runs without --battery (their plan.json names the rates), or finish the "
                         "tuning stage: recallbench run --battery " + o.battery + " --stage tuning");
      plan = make_plan(with_rates(battery, selection)).to_json();
    } else {
      plan = make_plan(battery).to_json();
    }
  } else {
    for (const auto& d : o.dirs)
      if (fs::exists(fs::path(d) / "plan.json")) {
        plan = read_json_file(fs::path(d) / "plan.json");
        check_plan(plan, (fs::path(d) / "plan.json").string());
        break;
      }
  }

  std::map<std::string, json> merged;
  std::map<std::string, std::string> source;
  size_t invalid = 0;
  for (const auto& d : o.dirs) {
    for (auto& [key, doc] : read_store(d, &invalid)) {
      auto it = merged.find(key);
      if (it == merged.end()) {
        merged.emplace(key, doc);
        source[key] = d;
      } else if (run_metrics(it->second) != run_metrics(doc)) {
        throw UsageError("merge: run " + key + " has different metrics in " + source[key] + " and " + d,
                         "the same run key must give the same numbers; were these built from different commits?");
      }
    }
  }
  if (merged.empty())
    throw UsageError("merge: no valid run documents in " + std::to_string(o.dirs.size()) + " store(s)" +
                         (invalid ? " (" + std::to_string(invalid) + " invalid file(s) skipped)" : ""),
                     "a results store holds DIR/runs/*.json, written by `recallbench run --out DIR`");
  if (plan.is_object() && o.battery.empty()) {
    // A store's plan.json: every valid run is kept (an earlier command's other seeds, another store's
    // runs); the merged plan lists them too, so the aggregate and `report OUT` count the same runs.
    std::set<std::string> in_plan;
    for (const auto& r : plan["runs"]) in_plan.insert(r["key"].get<std::string>());
    size_t extra = 0;
    for (const auto& [key, doc] : merged)
      if (!in_plan.count(key)) {
        plan["runs"].push_back(
            {{"key", key}, {"file", RunSpec::from_json(doc.at("spec")).file_name()}, {"spec", doc.at("spec")}});
        ++extra;
      }
    if (extra) fmt::print(stderr, "note: {} run(s) beyond battery {}'s plan.json are kept and added to its plan\n",
                          extra, plan["battery"]["name"].get<std::string>());
  } else if (plan.is_object()) {  // --battery: keep only its runs
    std::set<std::string> in_plan;
    for (const auto& r : plan["runs"]) in_plan.insert(r["key"].get<std::string>());
    size_t extra = 0;
    for (auto it = merged.begin(); it != merged.end();) {
      if (!in_plan.count(it->first)) {
        ++extra;
        it = merged.erase(it);
      } else {
        ++it;
      }
    }
    if (extra) fmt::print(stderr, "note: {} run(s) outside battery {} were left out of the aggregate\n", extra,
                          plan["battery"]["name"].get<std::string>());
  }

  // OUT's own results conflict like an input's would (checked before anything is written).
  const Store store(out);
  std::vector<ResultCheck> held;
  for (auto& [key, doc] : merged) {
    held.push_back(store.check(RunSpec::from_json(doc["spec"])));
    if (held.back().state == ResultCheck::State::kValid && run_metrics(held.back().document) != run_metrics(doc))
      throw UsageError("merge: run " + key + " has different metrics in the output folder " + out.string() + " and " +
                           source[key],
                       "the same run key must give the same numbers; merge into an empty --out, or remove the "
                       "output folder's result if it is the stale one");
  }
  size_t copied = 0;
  std::vector<json> docs;
  size_t i = 0;
  for (auto& [key, doc] : merged) {
    const RunSpec spec = RunSpec::from_json(doc["spec"]);
    const ResultCheck& c = held[i++];
    if (c.state != ResultCheck::State::kValid) {
      if (c.state == ResultCheck::State::kCorrupt) store.quarantine(spec);
      store.write(spec, doc);
      ++copied;
    }
    docs.push_back(doc);
  }
  if (plan.is_object()) write_json_atomic(out / "plan.json", plan);
  const json agg = aggregate_runs(docs, plan);
  write_json_atomic(out / "aggregate.json", agg);
  print_aggregate_table(agg);
  fmt::print("\nmerged {} runs from {} store(s) ({} copied, {} invalid file(s) skipped); aggregate: {}\n",
             merged.size(), o.dirs.size(), copied, invalid, fs::absolute(out / "aggregate.json").string());
  if (!agg["missing"].empty()) {
    fmt::print(stderr, "incomplete: {} run(s) of battery {} are missing, e.g. {}\n", agg["missing"].size(),
               agg["battery"].dump(), agg["missing"][0].get<std::string>());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

CommandFn add_merge_command(CLI::App& sub) {
  auto o = std::make_shared<MergeOptions>();
  sub.add_option("dirs", o->dirs, "Results directories to merge")->required();
  sub.add_option("--out", o->out, "Where the merged store goes (default: the first DIR)");
  sub.add_option("--battery", o->battery, "Check completeness against this battery (default: DIR/plan.json)");
  return [o]() { return run_merge(*o); };
}

RB_REGISTER(CommandRegistry, merge,
            CommandEntry{"merge", "Merge results stores (shards, Slurm tasks) and write their aggregate",
                         add_merge_command});

}  // namespace rb
