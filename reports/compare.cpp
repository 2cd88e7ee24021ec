// The regression gate and the contrast tests (see compare.h for the decision rule).
#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "suite/core/errors.h"

namespace rb::reports {
namespace {

constexpr double kEps = 1e-9;  // rates like 4/5 − 1 are compared against 0.2 without rounding surprises

std::vector<double> recalls(const Config& c) {
  std::vector<double> out;
  for (const auto& s : c.seeds) out.push_back(s.final_accuracy);
  return out;
}

int64_t locked(const Config& c) {
  int64_t k = 0;
  for (const auto& s : c.seeds) k += s.locked_in ? 1 : 0;
  return k;
}

// What makes two configs "the same experiment up to recipe and budget": task with options, cell name,
// model shape without the budget.
std::string identity(const Config& c) {
  json model = c.model;
  model.erase("state_budget");
  return json{{"task", c.task}, {"task_options", c.task_options}, {"cell", c.cell}, {"model", model}}.dump();
}

std::string differing_fields(const json& a, const json& b) {
  std::string out;
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  for (const auto& k : keys) {
    const json va = a.contains(k) ? a.at(k) : json(nullptr);
    const json vb = b.contains(k) ? b.at(k) : json(nullptr);
    if (va != vb) out += fmt::format("{}{}: baseline {}, current {}", out.empty() ? "" : "; ", k, va.dump(), vb.dump());
  }
  return out;
}

int severity(Verdict v) { return static_cast<int>(v); }

// Seeds per side for a one-sided Fisher test to detect rates hi vs lo with the target power at `level`.
// Fisher power grows with n apart from small saw-teeth, so probe n = 2, 4, 8, ... up to max_n and then
// bisect between the last two probes: about 2·log2(max_n) exact power evaluations instead of max_n. The
// answer is the smallest n found to reach the target (an "about", given the saw-teeth). Cached: the same
// question recurs across configs with equal counts.
stats::SeedPlan plan_seeds(double hi, double lo, double target, double level, int64_t max_n) {
  static std::mutex mutex;
  static std::map<std::tuple<double, double, double, double, int64_t>, stats::SeedPlan> cache;
  const auto key = std::make_tuple(hi, lo, target, level, max_n);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const auto power = [&](int64_t n) { return stats::fisher_power(hi, lo, n, n, level, stats::Alternative::kGreater); };
  stats::SeedPlan plan;
  int64_t below = 0, above = 0;
  double above_power = 0.0;
  for (int64_t n = 2;; n *= 2) {
    const int64_t probe = std::min(n, max_n);
    const double p = power(probe);
    if (p >= target) {
      above = probe;
      above_power = p;
      break;
    }
    below = probe;
    plan.power = p;
    if (probe == max_n) break;
  }
  if (above > 0) {
    while (above - below > 1) {
      const int64_t mid = below + (above - below) / 2;
      const double p = power(mid);
      if (p >= target) {
        above = mid;
        above_power = p;
      } else {
        below = mid;
      }
    }
    plan.n = above;
    plan.power = above_power;
    plan.reached = true;
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, plan);
  return plan;
}

std::string pct(double x) { return fmt::format("{:+.0f} points", 100.0 * x); }

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kNoChange: return "no change";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kRegression: return "regression";
  }
  return "?";
}

void check_comparable(const std::vector<Config>& baseline, const std::vector<Config>& current) {
  std::set<std::string> base_keys, cur_keys;
  for (const auto& c : baseline) base_keys.insert(c.key);
  for (const auto& c : current) cur_keys.insert(c.key);
  std::multimap<std::string, const Config*> unmatched_base;
  for (const auto& c : baseline)
    if (!cur_keys.count(c.key)) unmatched_base.emplace(identity(c), &c);
  for (const auto& cur : current) {
    if (base_keys.count(cur.key)) continue;
    const auto range = unmatched_base.equal_range(identity(cur));
    for (auto it = range.first; it != range.second; ++it) {
      const Config& base = *it->second;
      const std::string what = fmt::format("{} on {}", cur.cell, cur.task_label());
      if (base.train != cur.train)
        throw UsageError(
            fmt::format("refusing to compare across different training recipes: {} was trained with another "
                        "recipe in the baseline ({})", what, differing_fields(base.train, cur.train)),
            "compare results of the same recipe, or record a new baseline with `recallbench baseline update`");
      if (base.state_budget != cur.state_budget || base.state_size != cur.state_size)
        throw UsageError(
            fmt::format("refusing to compare across different state budgets: {} has state budget {} (state {} "
                        "numbers) in the baseline, got budget {} (state {} numbers) in the current results",
                        what, base.state_budget, base.state_size, cur.state_budget, cur.state_size),
            "recall is only comparable at a matched state budget; record a new baseline with `recallbench "
            "baseline update` if the budget change is intended");
    }
  }
}

Comparison compare(const std::vector<Config>& baseline, const std::vector<Config>& current, const GateOptions& o) {
  RB_CHECK_INPUT(o.alpha > 0.0 && o.alpha < 1.0, fmt::format("alpha got {}, expected a value in (0, 1)", o.alpha));
  RB_CHECK_INPUT(o.min_lockin_drop >= 0.0 && o.min_lockin_drop <= 1.0,
                 fmt::format("minimum lock-in effect got {}, expected a fraction in [0, 1]", o.min_lockin_drop));
  RB_CHECK_INPUT(o.min_recall_drop >= 0.0 && o.min_recall_drop <= 1.0,
                 fmt::format("minimum recall effect got {}, expected a value in [0, 1]", o.min_recall_drop));
  check_comparable(baseline, current);
  Comparison cmp;
  cmp.options = o;
  std::map<std::string, const Config*> cur_by_key, base_by_key;
  for (const auto& c : current) cur_by_key[c.key] = &c;
  for (const auto& c : baseline) base_by_key[c.key] = &c;
  for (const auto& b : baseline) {
    auto it = cur_by_key.find(b.key);
    if (it == cur_by_key.end()) {
      cmp.missing_in_current.push_back(b.key);
      continue;
    }
    ConfigComparison cc;
    cc.key = b.key;
    cc.baseline = &b;
    cc.current = it->second;
    cmp.configs.push_back(cc);
  }
  for (const auto& c : current)
    if (!base_by_key.count(c.key)) cmp.missing_in_baseline.push_back(c.key);
  if (cmp.configs.empty()) {
    throw UsageError(
        fmt::format("no configuration in common: got {} baseline configs and {} current configs with no key in "
                    "common, expected at least one shared config key (e.g. baseline {}, current {})",
                    baseline.size(), current.size(), baseline.empty() ? "-" : baseline.front().key,
                    current.empty() ? "-" : current.front().key),
        "compare the battery the baseline was recorded from, or update it with `recallbench baseline update`");
  }

  // Raw one-sided tests per config.
  for (auto& cc : cmp.configs) {
    const Config& b = *cc.baseline;
    const Config& c = *cc.current;
    cc.k_base = locked(b);
    cc.n_base = static_cast<int64_t>(b.seeds.size());
    cc.k_cur = locked(c);
    cc.n_cur = static_cast<int64_t>(c.seeds.size());
    const double rb_ = static_cast<double>(cc.k_base) / static_cast<double>(cc.n_base);
    const double rc = static_cast<double>(cc.k_cur) / static_cast<double>(cc.n_cur);
    cc.rate_change = rc - rb_;
    const stats::Table2x2 t{cc.k_base, cc.n_base - cc.k_base, cc.k_cur, cc.n_cur - cc.k_cur};
    cc.p_lockin_drop = stats::fisher_p_value(t, stats::Alternative::kGreater);
    cc.p_lockin_rise = stats::fisher_p_value(t, stats::Alternative::kLess);
    const auto xb = recalls(b), xc = recalls(c);
    cc.recall_base = spread(xb).median;
    cc.recall_cur = spread(xc).median;
    cc.recall_change = cc.recall_cur - cc.recall_base;
    cc.p_recall_drop = stats::mann_whitney_u(xb, xc, stats::Alternative::kGreater).p_value;
    cc.p_recall_rise = stats::mann_whitney_u(xb, xc, stats::Alternative::kLess).p_value;
    cc.min_attainable_p = stats::min_attainable_p(cc.n_base, cc.n_cur, stats::Alternative::kGreater);
  }

  // Two families (drops gate; rises inform), each adjusted over every test in it.
  const size_t m = cmp.configs.size();
  std::vector<double> drops, rises;
  for (const auto& cc : cmp.configs) {
    drops.push_back(cc.p_lockin_drop);
    drops.push_back(cc.p_recall_drop);
    rises.push_back(cc.p_lockin_rise);
    rises.push_back(cc.p_recall_rise);
  }
  const auto drops_adj = stats::p_adjust(drops, o.adjust);
  const auto rises_adj = stats::p_adjust(rises, o.adjust);
  cmp.tests = static_cast<int64_t>(drops.size());
  const double level_needed = o.alpha / static_cast<double>(cmp.tests);

  for (size_t i = 0; i < m; ++i) {
    auto& cc = cmp.configs[i];
    cc.p_lockin_drop_adj = drops_adj[2 * i];
    cc.p_recall_drop_adj = drops_adj[2 * i + 1];
    cc.p_lockin_rise_adj = rises_adj[2 * i];
    cc.p_recall_rise_adj = rises_adj[2 * i + 1];
    cc.level_needed = level_needed;
    const std::string counts = fmt::format("lock-in {}/{} → {}/{} ({}), median recall {:.3f} → {:.3f}", cc.k_base,
                                           cc.n_base, cc.k_cur, cc.n_cur, pct(cc.rate_change), cc.recall_base,
                                           cc.recall_cur);
    const bool lock_drop = cc.p_lockin_drop_adj <= o.alpha && -cc.rate_change >= o.min_lockin_drop - kEps;
    const bool recall_drop = cc.p_recall_drop_adj <= o.alpha && -cc.recall_change >= o.min_recall_drop - kEps;
    const bool lock_rise = cc.p_lockin_rise_adj <= o.alpha && cc.rate_change >= o.min_lockin_drop - kEps;
    const bool recall_rise = cc.p_recall_rise_adj <= o.alpha && cc.recall_change >= o.min_recall_drop - kEps;
    const bool big_change = std::fabs(cc.rate_change) >= o.min_lockin_drop - kEps ||
                            std::fabs(cc.recall_change) >= o.min_recall_drop - kEps;
    const char* adj = stats::adjust_method_name(o.adjust);
    if (lock_drop || recall_drop) {
      cc.verdict = Verdict::kRegression;
      cc.reason = fmt::format("{}; lock-in drop: one-sided Fisher p = {:.3g} ({}-adjusted {:.3g}), recall drop: "
                              "one-sided Mann–Whitney p = {:.3g} (adjusted {:.3g}); alpha {}",
                              counts, cc.p_lockin_drop, adj, cc.p_lockin_drop_adj, cc.p_recall_drop,
                              cc.p_recall_drop_adj, o.alpha);
    } else if (lock_rise || recall_rise) {
      cc.verdict = Verdict::kImprovement;
      cc.reason = fmt::format("{}; lock-in rise: one-sided Fisher p = {:.3g} (adjusted {:.3g}), recall rise: "
                              "Mann–Whitney p = {:.3g} (adjusted {:.3g})",
                              counts, cc.p_lockin_rise, cc.p_lockin_rise_adj, cc.p_recall_rise, cc.p_recall_rise_adj);
    } else if (cc.min_attainable_p > level_needed + 1e-15) {
      cc.verdict = Verdict::kInconclusive;
      cc.reason = fmt::format("{}; {} vs {} seeds cannot reach significance: the smallest attainable one-sided p is "
                              "{:.3g}, a lone change must reach {:.3g} ({} tests, alpha {}, {})",
                              counts, cc.n_base, cc.n_cur, cc.min_attainable_p, level_needed, cmp.tests, o.alpha, adj);
    } else if (big_change) {
      cc.verdict = Verdict::kInconclusive;
      cc.reason = fmt::format("{}; a change of at least the minimum effect ({:.0f} points lock-in or {:.2f} recall) "
                              "that is not significant after adjustment (lock-in p {:.3g} drop / {:.3g} rise, recall p "
                              "{:.3g} drop / {:.3g} rise)",
                              counts, 100.0 * o.min_lockin_drop, o.min_recall_drop, cc.p_lockin_drop_adj,
                              cc.p_lockin_rise_adj, cc.p_recall_drop_adj, cc.p_recall_rise_adj);
    } else {
      cc.verdict = Verdict::kNoChange;
      cc.reason = fmt::format("{}; no change of at least {:.0f} points lock-in or {:.2f} recall", counts,
                              100.0 * o.min_lockin_drop, o.min_recall_drop);
    }
    if (cc.verdict == Verdict::kInconclusive) {
      // Plan for the larger of the observed change and the minimum effect, in the observed direction
      // (a drop when there was none), from the baseline rate.
      const double from = static_cast<double>(cc.k_base) / static_cast<double>(cc.n_base);
      const double effect = std::max(o.min_lockin_drop, std::fabs(cc.rate_change));
      bool drop = cc.rate_change <= 0.0;
      if (drop && from - o.min_lockin_drop < -kEps) drop = false;  // cannot drop that far: plan a rise
      if (!drop && from + o.min_lockin_drop > 1.0 + kEps) drop = true;
      const double to = std::clamp(drop ? from - effect : from + effect, 0.0, 1.0);
      cc.planned_from = from;
      cc.planned_to = to;
      if (std::fabs(to - from) > kEps) {
        const auto plan = plan_seeds(std::max(from, to), std::min(from, to), o.target_power, level_needed, o.max_seeds);
        cc.seeds_needed = plan.reached ? plan.n : 0;
        cc.planned_power = plan.power;
      }
      if (cc.seeds_needed > 0)
        cc.reason += fmt::format("; about {} seeds per side would detect lock-in {:.2f} → {:.2f} with power {:.2f}",
                                 cc.seeds_needed, from, to, cc.planned_power);
      else
        cc.reason += fmt::format("; no seed count up to {} reaches power {:.2f} for lock-in {:.2f} → {:.2f}",
                                 o.max_seeds, o.target_power, from, to);
    }
  }
  for (const auto& cc : cmp.configs) {
    if (severity(cc.verdict) > severity(cmp.verdict)) cmp.verdict = cc.verdict;
    switch (cc.verdict) {
      case Verdict::kRegression: ++cmp.regressions; break;
      case Verdict::kImprovement: ++cmp.improvements; break;
      case Verdict::kInconclusive: ++cmp.inconclusive; break;
      case Verdict::kNoChange: ++cmp.unchanged; break;
    }
  }
  std::stable_sort(cmp.configs.begin(), cmp.configs.end(), [](const ConfigComparison& a, const ConfigComparison& b) {
    return severity(a.verdict) > severity(b.verdict);
  });
  return cmp;
}

int gate_exit_code(const Comparison& c, bool fail_on_inconclusive) {
  if (c.verdict == Verdict::kRegression) return 1;
  if (c.verdict == Verdict::kInconclusive && fail_on_inconclusive) return 3;
  return 0;
}

json comparison_to_json(const Comparison& c) {
  json configs = json::array();
  for (const auto& cc : c.configs) {
    configs.push_back({
        {"key", cc.key},
        {"cell", cc.current->cell},
        {"task", cc.current->task_label()},
        {"verdict", verdict_name(cc.verdict)},
        {"reason", cc.reason},
        {"baseline", {{"locked_in", cc.k_base}, {"seeds", cc.n_base}, {"median_recall", cc.recall_base}}},
        {"current", {{"locked_in", cc.k_cur}, {"seeds", cc.n_cur}, {"median_recall", cc.recall_cur}}},
        {"lock_in_rate_change", cc.rate_change},
        {"recall_change", cc.recall_change},
        {"p",
         {{"lock_in_drop", cc.p_lockin_drop}, {"lock_in_rise", cc.p_lockin_rise},
          {"recall_drop", cc.p_recall_drop}, {"recall_rise", cc.p_recall_rise}}},
        {"p_adjusted",
         {{"lock_in_drop", cc.p_lockin_drop_adj}, {"lock_in_rise", cc.p_lockin_rise_adj},
          {"recall_drop", cc.p_recall_drop_adj}, {"recall_rise", cc.p_recall_rise_adj}}},
        {"min_attainable_p", cc.min_attainable_p},
        {"level_needed", cc.level_needed},
        {"seeds_needed", cc.seeds_needed > 0 ? json(cc.seeds_needed) : json(nullptr)},
        {"planned_lock_in", cc.verdict == Verdict::kInconclusive
                                ? json{{"from", cc.planned_from}, {"to", cc.planned_to}, {"power", cc.planned_power}}
                                : json(nullptr)},
    });
  }
  return {{"verdict", verdict_name(c.verdict)},
          {"options",
           {{"alpha", c.options.alpha}, {"min_lock_in_drop", c.options.min_lockin_drop},
            {"min_recall_drop", c.options.min_recall_drop}, {"target_power", c.options.target_power},
            {"adjust", stats::adjust_method_name(c.options.adjust)}}},
          {"tests", c.tests},
          {"counts",
           {{"regression", c.regressions}, {"improvement", c.improvements}, {"inconclusive", c.inconclusive},
            {"no_change", c.unchanged}}},
          {"configs", configs},
          {"missing_in_current", c.missing_in_current},
          {"missing_in_baseline", c.missing_in_baseline},
          {"baseline_context", c.baseline_context}};
}

// ---------------------------------------------------------------------------------------------------
// Contrasts
// ---------------------------------------------------------------------------------------------------

namespace {

std::set<std::string> knobs_of(const std::string& cell) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= cell.size()) {
    const size_t plus = cell.find('+', start);
    const size_t end = plus == std::string::npos ? cell.size() : plus;
    if (end > start) out.insert(cell.substr(start, end - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return out;
}

std::string same_setting(const Config& c) {
  return json{{"task", c.task}, {"task_options", c.task_options}, {"model", c.model}, {"train", c.train}}.dump();
}

}  // namespace

std::vector<ContrastSpec> infer_contrasts(const std::vector<Config>& configs) {
  std::vector<ContrastSpec> out;
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t j = i + 1; j < configs.size(); ++j) {
      const Config& x = configs[i];
      const Config& y = configs[j];
      if (same_setting(x) != same_setting(y)) continue;
      const auto kx = knobs_of(x.cell), ky = knobs_of(y.cell);
      std::vector<std::string> only_x, only_y;
      std::set_difference(kx.begin(), kx.end(), ky.begin(), ky.end(), std::back_inserter(only_x));
      std::set_difference(ky.begin(), ky.end(), kx.begin(), kx.end(), std::back_inserter(only_y));
      ContrastSpec s;
      if (only_x.size() + only_y.size() == 1) {
        const bool x_has = only_x.size() == 1;
        s.knob = x_has ? only_x[0] : only_y[0];
        s.a = x_has ? x.key : y.key;
        s.b = x_has ? y.key : x.key;
      } else if (only_x.size() == 1 && only_y.size() == 1 &&
                 std::set<std::string>{only_x[0], only_y[0]} == std::set<std::string>{"diag", "rank1"}) {
        s.knob = "transition";
        s.a = only_x[0] == "rank1" ? x.key : y.key;
        s.b = only_x[0] == "rank1" ? y.key : x.key;
      } else {
        continue;
      }
      const Config& a = s.a == x.key ? x : y;
      const Config& b = s.a == x.key ? y : x;
      s.name = fmt::format("{}: {} vs {}, {}", s.knob, a.cell, b.cell, a.task_label());
      out.push_back(s);
    }
  }
  return out;
}

std::vector<ContrastResult> test_contrasts(const std::vector<Config>& configs, const std::vector<ContrastSpec>& specs,
                                           double alpha) {
  std::map<std::string, const Config*> by_key;
  for (const auto& c : configs) by_key[c.key] = &c;
  std::vector<ContrastResult> out;
  std::vector<double> ps;
  std::vector<size_t> tested;
  for (const auto& spec : specs) {
    ContrastResult r;
    r.spec = spec;
    const auto ia = by_key.find(spec.a), ib = by_key.find(spec.b);
    if (ia == by_key.end() || ib == by_key.end()) {
      r.missing = true;
      out.push_back(r);
      continue;
    }
    const Config& a = *ia->second;
    const Config& b = *ib->second;
    r.k_a = locked(a);
    r.n_a = static_cast<int64_t>(a.seeds.size());
    r.k_b = locked(b);
    r.n_b = static_cast<int64_t>(b.seeds.size());
    r.rate_diff = static_cast<double>(r.k_a) / r.n_a - static_cast<double>(r.k_b) / r.n_b;
    const auto f = stats::fisher_exact({r.k_a, r.n_a - r.k_a, r.k_b, r.n_b - r.k_b});
    r.p = f.p_value;
    r.odds_ratio = f.conditional_odds_ratio;
    r.or_low = f.ci_low;
    r.or_high = f.ci_high;
    const auto ra = recalls(a), rbv = recalls(b);
    r.recall_diff = spread(ra).median - spread(rbv).median;
    r.p_recall = stats::mann_whitney_u(ra, rbv).p_value;
    ps.push_back(r.p);
    tested.push_back(out.size());
    out.push_back(r);
  }
  const auto adj = stats::p_adjust(ps, stats::AdjustMethod::kHolm);
  for (size_t i = 0; i < tested.size(); ++i) {
    out[tested[i]].p_adj = adj[i];
    out[tested[i]].significant = adj[i] <= alpha;
  }
  return out;
}

json contrasts_to_json(const std::vector<ContrastResult>& contrasts) {
  const auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json out = json::array();
  for (const auto& r : contrasts) {
    json j = {{"name", r.spec.name}, {"knob", r.spec.knob}, {"a", r.spec.a}, {"b", r.spec.b},
              {"declared", r.spec.declared}, {"missing", r.missing}};
    if (!r.missing) {
      j["a_locked_in"] = r.k_a;
      j["a_seeds"] = r.n_a;
      j["b_locked_in"] = r.k_b;
      j["b_seeds"] = r.n_b;
      j["lock_in_rate_diff"] = r.rate_diff;
      j["recall_median_diff"] = r.recall_diff;
      j["fisher_p"] = r.p;
      j["fisher_p_holm"] = r.p_adj;
      j["odds_ratio"] = num(r.odds_ratio);
      j["odds_ratio_ci"] = {num(r.or_low), num(r.or_high)};
      j["mann_whitney_p"] = r.p_recall;
      j["significant"] = r.significant;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace rb::reports
