// recallbench tune DIR... --seeds S [--json F] [--by-point]: each cell's learning rate chosen on its tuning seeds
// (judge/tuning.h; docs/leaderboard.md "Learning rates"). DIR holds the cells' runs at several rates (a
// battery whose recipes differ in lr, or `run --cell C --task T --lr X` runs); runs of other seeds are left
// out and counted. Exit codes: 0, 2 bad input.
#include <cstdio>
#include <map>
#include <memory>

#include "core/json_io.h"
#include "judge/tuning.h"
#include "reports/results.h"
#include "reports/tuning_text.h"
#include "suite/battery.h"
#include "suite/cli.h"

namespace rb {
namespace {

struct TuneOptions {
  std::vector<std::string> dirs;
  std::string seeds, json, rule = "lock-ins-then-recall";
  bool by_point = false;
};

CommandFn add_tune_command(CLI::App& s) {
  auto o = std::make_shared<TuneOptions>();
  s.add_option("dirs", o->dirs, "Results directories (or run files) holding the tuning runs")->required();
  s.add_option("--seeds", o->seeds, "The tuning seeds (\"100-102\"): only their runs choose; any other is left out")
      ->required();
  s.add_option("--json", o->json, "Also write the choices here (kind recallbench.tuning)");
  s.add_option("--rule", o->rule, std::string("The rule (judge/tuning.h): ") + judge::kTuningRuleNames +
                                       " (default lock-ins-then-recall)")
      ->check(CLI::IsMember({"lock-ins-then-recall", "lock-ins-then-time"}));
  s.add_flag("--by-point", o->by_point,
             "Also choose at each task point on its own (does the best rate move between points?)");
  return [o]() {
    const std::vector<int64_t> seeds = parse_seeds(o->seeds);
    std::vector<Config> configs;
    for (const auto& d : o->dirs) {
      RunSet runs = reports::load_results(d);
      for (auto& c : runs.configs) configs.push_back(std::move(c));
    }
    RB_CHECK_INPUT(!configs.empty(), "tune: no runs in " + o->dirs.front());
    const judge::TuningRule rule = *judge::parse_tuning_rule(o->rule);
    const auto choices = judge::choose_rates(configs, seeds, rule);
    std::fputs(reports::tuning_table(choices).c_str(), stdout);
    if (o->by_point) {
      std::map<std::string, std::vector<Config>> points;  // task label (with its options) → its configs
      for (const auto& c : configs) points[c.task_label()].push_back(c);
      for (const auto& [point, at] : points) {
        std::printf("\nat %s alone:\n", point.c_str());
        std::fputs(reports::tuning_table(judge::choose_rates(at, seeds, rule)).c_str(), stdout);
      }
    }
    if (!o->json.empty()) {
      write_json_atomic(o->json, reports::tuning_json(choices, seeds), 2);
      std::printf("wrote %s\n", o->json.c_str());
    }
    return kExitOk;
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, tune,
            CommandEntry{"tune", "Each cell's learning rate chosen on tuning seeds (runs of several rates)",
                         add_tune_command});

}  // namespace rb
