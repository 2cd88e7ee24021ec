#include "judge/tuning.h"

#include <map>
#include <set>

#include "core/errors.h"

namespace rb::judge {
namespace {

// True when `a` beats `b` under the rule, with the step that decided it.
bool better(const RateRow& a, const RateRow& b, RateReason* why) {
  if (a.locked_in != b.locked_in) {
    *why = RateReason::kMostLockIns;
    return a.locked_in > b.locked_in;
  }
  if (a.mean_steps != b.mean_steps) {
    *why = RateReason::kShortestTime;
    return a.mean_steps < b.mean_steps;
  }
  if (a.median_recall != b.median_recall) {
    *why = RateReason::kHigherRecall;
    return a.median_recall > b.median_recall;
  }
  *why = RateReason::kLowerRate;
  return a.lr < b.lr;
}

}  // namespace

RateChoice choose_rate(const std::string& cell, const std::vector<Config>& configs,
                       const std::vector<int64_t>& tuning_seeds) {
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
  for (size_t i = 1; i < out.rows.size(); ++i) {
    RateReason why = RateReason::kOnlyRate;
    if (better(out.rows[i], out.rows[best], &why)) best = i;
  }
  // The reason: the deepest step of the rule the winner needs to beat every other rate.
  for (size_t i = 0; i < out.rows.size(); ++i) {
    if (i == best) continue;
    RateReason why = RateReason::kOnlyRate;
    better(out.rows[best], out.rows[i], &why);
    if (out.reason == RateReason::kOnlyRate || static_cast<int>(why) > static_cast<int>(out.reason)) out.reason = why;
  }
  out.lr = out.rows[best].lr;
  return out;
}

std::vector<RateChoice> choose_rates(const std::vector<Config>& configs, const std::vector<int64_t>& tuning_seeds) {
  std::set<std::string> cells;
  for (const auto& c : configs) cells.insert(c.cell);
  std::vector<RateChoice> out;
  for (const auto& cell : cells) out.push_back(choose_rate(cell, configs, tuning_seeds));
  return out;
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
