#include "judge/tuning.h"

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "core/errors.h"

namespace rb::judge {
namespace {

// The rule's steps in order (the last, the lower rate, always decides).
std::vector<RateReason> steps(TuningRule rule) {
  if (rule == TuningRule::kLockInsThenTime)
    return {RateReason::kMostLockIns, RateReason::kShortestTime, RateReason::kHigherRecall, RateReason::kLowerRate};
  return {RateReason::kMostLockIns, RateReason::kHigherRecall, RateReason::kShortestTime, RateReason::kLowerRate};
}

// True when `a` beats `b` under the rule; *why is the step that decided, *depth its place in the rule.
bool better(const RateRow& a, const RateRow& b, TuningRule rule, RateReason* why, size_t* depth) {
  const auto order = steps(rule);
  for (size_t i = 0; i < order.size(); ++i) {
    *why = order[i];
    *depth = i;
    switch (order[i]) {
      case RateReason::kMostLockIns:
        if (a.locked_in != b.locked_in) return a.locked_in > b.locked_in;
        break;
      case RateReason::kShortestTime:
        if (a.mean_steps != b.mean_steps) return a.mean_steps < b.mean_steps;
        break;
      case RateReason::kHigherRecall: {
        const auto recall = [](double x) { return std::isnan(x) ? -HUGE_VAL : x; };  // no recall: the lowest
        if (recall(a.median_recall) != recall(b.median_recall)) return recall(a.median_recall) > recall(b.median_recall);
        break;
      }
      case RateReason::kLowerRate:
      case RateReason::kOnlyRate:
        return a.lr < b.lr;
    }
  }
  return a.lr < b.lr;
}

}  // namespace

RateChoice choose_rate(const std::string& cell, const std::vector<Config>& configs,
                       const std::vector<int64_t>& tuning_seeds, TuningRule rule) {
  const std::set<int64_t> tuning(tuning_seeds.begin(), tuning_seeds.end());
  RB_CHECK_INPUT(!tuning.empty(), "choosing a learning rate: no tuning seeds");
  RateChoice out;
  out.cell = cell;
  struct Pool {
    int64_t runs = 0, locked_in = 0;
    double steps = 0.0;
    std::vector<double> recalls;
  };
  std::map<double, Pool> by_rate;
  for (const auto& c : configs) {
    if (c.cell != cell) continue;
    const double lr = c.learning_rate();
    RB_CHECK_INPUT(std::isfinite(lr) && lr > 0.0, "choosing a learning rate for " + cell + ": config " + c.key +
                                                      " records no learning rate");
    Pool& p = by_rate[lr];
    for (const auto& s : c.seeds) {
      if (!tuning.count(s.seed)) {
        ++out.left_out;
        continue;
      }
      ++p.runs;
      p.locked_in += s.locked_in() ? 1 : 0;
      p.steps += s.time_to_lock_in(c.step_budget()).time;
      p.recalls.push_back(s.final_accuracy);
    }
  }
  for (const auto& [lr, p] : by_rate)
    if (p.runs > 0) out.rows.push_back({lr, p.runs, p.locked_in, p.steps / static_cast<double>(p.runs), spread(p.recalls).median});
  RB_CHECK_INPUT(!out.rows.empty(), "choosing a learning rate for " + cell + ": no run of a tuning seed");
  size_t best = 0;
  out.reason = RateReason::kOnlyRate;
  RateReason why = RateReason::kOnlyRate;
  size_t depth = 0;
  for (size_t i = 1; i < out.rows.size(); ++i)
    if (better(out.rows[i], out.rows[best], rule, &why, &depth)) best = i;
  // The reason: the deepest step of the rule the winner needs to beat every other rate.
  size_t deepest = 0;
  for (size_t i = 0; i < out.rows.size(); ++i) {
    if (i == best) continue;
    better(out.rows[best], out.rows[i], rule, &why, &depth);
    if (out.reason == RateReason::kOnlyRate || depth > deepest) out.reason = why, deepest = depth;
  }
  out.lr = out.rows[best].lr;
  return out;
}

std::vector<RateChoice> choose_rates(const std::vector<Config>& configs, const std::vector<int64_t>& tuning_seeds,
                                     TuningRule rule) {
  std::set<std::string> cells;
  for (const auto& c : configs) cells.insert(c.cell);
  std::vector<RateChoice> out;
  for (const auto& cell : cells) out.push_back(choose_rate(cell, configs, tuning_seeds, rule));
  return out;
}

const char* tuning_rule_name(TuningRule rule) {
  switch (rule) {
    case TuningRule::kLockInsThenRecall: return "lock-ins-then-recall";
    case TuningRule::kLockInsThenTime: return "lock-ins-then-time";
  }
  return "?";
}

std::optional<TuningRule> parse_tuning_rule(const std::string& name) {
  for (auto rule : {TuningRule::kLockInsThenRecall, TuningRule::kLockInsThenTime})
    if (name == tuning_rule_name(rule)) return rule;
  return std::nullopt;
}

const char* rate_reason_name(RateReason r) {
  switch (r) {
    case RateReason::kOnlyRate: return "only rate";
    case RateReason::kMostLockIns: return "most lock-ins";
    case RateReason::kShortestTime: return "shortest mean steps to lock-in";
    case RateReason::kHigherRecall: return "higher median recall";
    case RateReason::kLowerRate: return "lower rate (a tie)";
  }
  return "?";
}

}  // namespace rb::judge
