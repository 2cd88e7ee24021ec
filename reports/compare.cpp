// The regression gate (see compare.h for the decision rule).
#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"

namespace rb::reports {
namespace {

constexpr double kEps = 1e-9;  // rates like 4/5 − 1 are compared against 0.2 without rounding surprises
// In the paired test on time to lock-in, a pair where only one run locks in counts this many times a pair where
// both lock in at different steps (reports/compare.h; chosen by tests/reports/gate_power_test.cpp).
constexpr int64_t kLockInWeight = 5;

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
    case Verdict::kDataStreamChanged: return "data stream changed";
    case Verdict::kTaskChanged: return "task changed";
    case Verdict::kModelChanged: return "model changed";
    case Verdict::kSeedsNotIndependent: return "seeds not independent";
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
      if (base.train() != cur.train())
        throw UsageError(
            fmt::format("refusing to compare across different training recipes: {} was trained with another "
                        "recipe in the baseline ({})", what, differing_fields(base.train(), cur.train())),
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

std::string model_difference(const Config& b, const Config& c) {
  std::vector<std::string> parts;
  if (b.state_size != c.state_size) parts.push_back(fmt::format("state_size {} → {}", b.state_size, c.state_size));
  if (b.parameters > 0 && c.parameters > 0 && b.parameters != c.parameters)
    parts.push_back(fmt::format("parameters {} → {}", b.parameters, c.parameters));
  if (!b.architecture.empty() && !c.architecture.empty() && b.architecture != c.architecture)
    parts.push_back(fmt::format("architecture {} → {}", b.architecture, c.architecture));
  if (b.cell_options != c.cell_options)
    parts.push_back(fmt::format("cell options {} → {}", b.cell_options.dump(), c.cell_options.dump()));
  return fmt::format("{}", fmt::join(parts, "; "));
}

namespace {

std::string seed_list(const std::vector<int64_t>& seeds) {
  std::vector<std::string> parts;
  for (int64_t s : seeds) parts.push_back(std::to_string(s));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// Seeds of one side that share a training fingerprint with another seed of the same config: "seeds 0, 1, 2"
// ("" when every recorded fingerprint is distinct).
std::string shared_fingerprints(const Config& c) {
  std::map<std::string, std::vector<int64_t>> by_fingerprint;
  for (const auto& s : c.seeds)
    if (!s.train_fingerprint.empty()) by_fingerprint[s.train_fingerprint].push_back(s.seed);
  std::vector<int64_t> shared;
  for (const auto& [fp, seeds] : by_fingerprint)
    if (seeds.size() > 1) shared.insert(shared.end(), seeds.begin(), seeds.end());
  std::sort(shared.begin(), shared.end());
  return shared.empty() ? "" : "seeds " + seed_list(shared);
}

}  // namespace

void data_difference(ConfigComparison& cc) {
  const Config& b = *cc.baseline;
  const Config& c = *cc.current;
  if (const std::string cur = shared_fingerprints(c); !cur.empty())
    cc.dependent_seeds = "current: " + cur + " saw the same training batches";
  else if (const std::string base = shared_fingerprints(b); !base.empty())
    cc.dependent_seeds = "baseline: " + base + " saw the same training batches";
  std::map<int64_t, std::string> base_stream;
  for (const auto& s : b.seeds)
    if (!s.train_fingerprint.empty()) base_stream[s.seed] = s.train_fingerprint;
  std::vector<int64_t> changed;
  int64_t paired = 0;
  for (const auto& s : c.seeds) {
    const auto it = base_stream.find(s.seed);
    if (it == base_stream.end() || s.train_fingerprint.empty()) continue;
    ++paired;
    if (it->second != s.train_fingerprint) changed.push_back(s.seed);
  }
  if (!changed.empty())
    cc.stream_change = fmt::format("seeds {} of {} with the same seed number", seed_list(changed), paired);
  const bool eval_recorded = !b.eval_fingerprint.empty() && !c.eval_fingerprint.empty();
  if (eval_recorded && b.eval_fingerprint != c.eval_fingerprint)
    cc.task_change = fmt::format("held-out set {} → {}", b.eval_fingerprint, c.eval_fingerprint);
  // A seed-shift replicate pairs no seed with the baseline: the held-out set alone is then the check.
  cc.data_checked = eval_recorded;
}

DetectableEffect detectable_effect(const Config& baseline, int64_t n_current, double level, const GateOptions& o) {
  DetectableEffect d;
  const Tally base_tally = tally(baseline);
  const int64_t n_base = base_tally.n;
  if (n_base == 0 || n_current <= 0) return d;
  d.lock_in_from = base_tally.rate();
  // Lock-in: lower the current rate in steps of 0.01 until the exact power reaches the target.
  for (double to = d.lock_in_from - o.min_lockin_drop; to >= -kEps; to -= 0.01) {
    const double power = stats::fisher_power(d.lock_in_from, std::max(to, 0.0), n_base, n_current, level,
                                             stats::Alternative::kGreater);
    if (power >= o.target_power) {
      d.lock_in_to = std::max(to, 0.0);
      break;
    }
  }
  // Time to lock-in: draw current sides from the baseline's own seeds (with replacement), every lock-in
  // step multiplied by the factor and censored at the budget, and count how often the gate would flag
  // them (exact log-rank p ≤ level and the minimum slowdown). Fixed seed: the same answer every time.
  const int64_t budget = judge::censoring_budget(baseline);
  const auto base = judge::lock_in_times(baseline, budget);
  if (base_tally.k == 0 || budget <= 0) return d;
  const double tau = static_cast<double>(budget);
  const double base_mean = stats::restricted_mean(base, tau);
  // The same draws for every factor (common random numbers), so power grows with the factor and a
  // bisection over the grid 1.1, 1.2, ..., 4.0 finds the smallest factor that reaches the target.
  constexpr int64_t kDraws = 100;
  d.draws = kDraws;
  std::mt19937_64 rng(0x5eed5105u);
  std::uniform_int_distribution<size_t> pick(0, base.size() - 1);
  std::vector<std::vector<size_t>> draws(kDraws, std::vector<size_t>(static_cast<size_t>(n_current)));
  for (auto& draw : draws)
    for (auto& i : draw) i = pick(rng);
  // Lock-in is only seen at an evaluation: a slowed seed locks in at the next one.
  const double grid = std::max(1.0, baseline.eval_every());
  const auto reaches = [&](double factor) {
    int64_t flagged = 0;
    for (const auto& draw : draws) {
      std::vector<stats::SurvivalObservation> cur;
      for (size_t i : draw) {
        auto obs = base[i];
        if (obs.event) obs.time = std::ceil(obs.time * factor / grid - 1e-9) * grid;  // next evaluation
        if (obs.time > tau) obs = {tau, false};
        cur.push_back(obs);
      }
      const bool big = stats::restricted_mean(cur, tau) >= (1.0 + o.min_slowdown - kEps) * base_mean;
      if (big && stats::log_rank(base, cur, stats::Alternative::kGreater).p_value <= level) ++flagged;
    }
    return static_cast<double>(flagged) >= o.target_power * static_cast<double>(kDraws);
  };
  const auto factor_at = [](int i) { return 1.1 + 0.1 * i; };
  int lo = -1, hi = 29;  // factor_at(hi) reaches the target; factor_at(lo) does not (lo = -1: none tried)
  if (!reaches(factor_at(hi))) return d;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (reaches(factor_at(mid)) ? hi : lo) = mid;
  }
  d.slowdown = factor_at(hi);
  return d;
}

namespace {

// Matches configs by key; configs on one side only are listed as missing or new.
// The config restricted to `seeds` (sorted), as its own copy.
std::shared_ptr<const Config> with_seeds(const Config& c, const std::set<int64_t>& seeds) {
  auto out = std::make_shared<Config>(c);
  out->seeds.clear();
  for (const auto& s : c.seeds)
    if (seeds.count(s.seed)) out->seeds.push_back(s);
  return out;
}

// Paired rule: both sides of a matched config restricted to the seeds they share (runs are deterministic
// per seed, so seed s on both sides is one pair); no shared seed (a seed-shift replicate): unpaired.
void pair_seeds(ConfigComparison& cc) {
  std::set<int64_t> base, common;
  for (const auto& s : cc.baseline->seeds) base.insert(s.seed);
  for (const auto& s : cc.current->seeds)
    if (base.count(s.seed)) common.insert(s.seed);
  cc.pairs = static_cast<int64_t>(common.size());
  cc.paired = !common.empty();
  if (!cc.paired) return;
  cc.unpaired_current = static_cast<int64_t>(cc.current->seeds.size()) - cc.pairs;
  cc.paired_baseline = with_seeds(*cc.baseline, common);
  cc.paired_current = with_seeds(*cc.current, common);
  cc.baseline = cc.paired_baseline.get();
  cc.current = cc.paired_current.get();
}

void match(Comparison& cmp, const std::vector<Config>& baseline, const std::vector<Config>& current) {
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
    cc.model_change = model_difference(b, *it->second);
    data_difference(cc);
    if (cmp.options.rule == GateOptions::Rule::kPaired) pair_seeds(cc);
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
}

// The raw one-sided tests of one config: lock-in counts, recall, time to lock-in.
void measure(ConfigComparison& cc) {
  const Config& b = *cc.baseline;
  const Config& c = *cc.current;
  const Tally base_tally = tally(b), cur_tally = tally(c);
  cc.k_base = base_tally.k, cc.n_base = base_tally.n, cc.k_cur = cur_tally.k, cc.n_cur = cur_tally.n;
  cc.rate_change = cur_tally.rate() - base_tally.rate();
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

  // Time to lock-in. Both sides share a recipe (same key), so one budget; a baseline without it (0) is
  // censored at the last step any seed reached.
  cc.budget = std::max(judge::censoring_budget(b), judge::censoring_budget(c));
  const auto tb = judge::lock_in_times(b, cc.budget), tc = judge::lock_in_times(c, cc.budget);
  // kGreater: the baseline's lock-ins come sooner, i.e. the current side is slower.
  cc.p_slower = stats::log_rank(tb, tc, stats::Alternative::kGreater).p_value;
  cc.p_faster = stats::log_rank(tb, tc, stats::Alternative::kLess).p_value;
  const auto budget = static_cast<double>(cc.budget);
  cc.time_base = stats::restricted_mean(tb, budget);
  cc.time_cur = stats::restricted_mean(tc, budget);
  cc.time_ratio = cc.time_base > 0.0 ? cc.time_cur / cc.time_base : 1.0;
  cc.median_time_base = stats::kaplan_meier_median(tb);
  cc.median_time_cur = stats::kaplan_meier_median(tc);
}

std::string steps_text(double median) { return std::isfinite(median) ? fmt::format("{:.0f}", median) : "never"; }

void note_allowed_changes(ConfigComparison& cc);

// "lock-in 10/10 → 5/10 (-50 points), median recall ..., steps to lock in (median) 300 → 650 (...)".
std::string counts_text(const ConfigComparison& cc) {
  return fmt::format(
      "lock-in {}/{} → {}/{} ({}), median recall {:.3f} → {:.3f}, steps to lock in (median) {} → {} (restricted "
      "mean {:.0f} → {:.0f}, {:+.0f}%)",
      cc.k_base, cc.n_base, cc.k_cur, cc.n_cur, pct(cc.rate_change), cc.recall_base, cc.recall_cur,
      steps_text(cc.median_time_base), steps_text(cc.median_time_cur), cc.time_base, cc.time_cur,
      100.0 * (cc.time_ratio - 1.0));
}

// The verdict and its one-line reason, from the adjusted p-values.
void judge(ConfigComparison& cc, const GateOptions& o, int64_t tests) {
  const double level_needed = o.alpha / static_cast<double>(tests);
  cc.level_needed = level_needed;
  const std::string counts = counts_text(cc);
  const bool slow_enough = cc.time_ratio >= 1.0 + o.min_slowdown - kEps;
  const bool fast_enough = cc.time_ratio > 0.0 && 1.0 / cc.time_ratio >= 1.0 + o.min_slowdown - kEps;
  const bool lock_drop = cc.p_lockin_drop_adj <= o.alpha && -cc.rate_change >= o.min_lockin_drop - kEps;
  const bool recall_drop = cc.p_recall_drop_adj <= o.alpha && -cc.recall_change >= o.min_recall_drop - kEps;
  const bool slower = cc.p_slower_adj <= o.alpha && slow_enough;
  const bool lock_rise = cc.p_lockin_rise_adj <= o.alpha && cc.rate_change >= o.min_lockin_drop - kEps;
  const bool recall_rise = cc.p_recall_rise_adj <= o.alpha && cc.recall_change >= o.min_recall_drop - kEps;
  const bool faster = cc.p_faster_adj <= o.alpha && fast_enough;
  const bool big_change = std::fabs(cc.rate_change) >= o.min_lockin_drop - kEps ||
                          std::fabs(cc.recall_change) >= o.min_recall_drop - kEps || slow_enough || fast_enough;
  const char* adj = stats::adjust_method_name(o.adjust);
  if (lock_drop || recall_drop || slower) {
    cc.verdict = Verdict::kRegression;
    cc.reason = fmt::format("{}; lock-in drop: one-sided Fisher p = {:.3g} ({}-adjusted {:.3g}), recall drop: "
                            "one-sided Mann–Whitney p = {:.3g} (adjusted {:.3g}), slower: exact log-rank p = {:.3g} "
                            "(adjusted {:.3g}); alpha {}",
                            counts, cc.p_lockin_drop, adj, cc.p_lockin_drop_adj, cc.p_recall_drop, cc.p_recall_drop_adj,
                            cc.p_slower, cc.p_slower_adj, o.alpha);
  } else if (lock_rise || recall_rise || faster) {
    cc.verdict = Verdict::kImprovement;
    cc.reason = fmt::format("{}; lock-in rise: one-sided Fisher p = {:.3g} (adjusted {:.3g}), recall rise: "
                            "Mann–Whitney p = {:.3g} (adjusted {:.3g}), faster: log-rank p = {:.3g} (adjusted {:.3g})",
                            counts, cc.p_lockin_rise, cc.p_lockin_rise_adj, cc.p_recall_rise, cc.p_recall_rise_adj,
                            cc.p_faster, cc.p_faster_adj);
  } else if (cc.min_attainable_p > level_needed + 1e-15) {
    cc.verdict = Verdict::kInconclusive;
    cc.reason = fmt::format("{}; {} vs {} seeds cannot reach significance: the smallest attainable one-sided p is "
                            "{:.3g}, a lone change must reach {:.3g} ({} tests, alpha {}, {})",
                            counts, cc.n_base, cc.n_cur, cc.min_attainable_p, level_needed, tests, o.alpha, adj);
  } else if (big_change) {
    cc.verdict = Verdict::kInconclusive;
    cc.reason = fmt::format("{}; a change of at least the minimum effect ({:.0f} points lock-in, {:.2f} recall or "
                            "{:.0f}% time to lock in) that is not significant after adjustment (lock-in p {:.3g} drop / "
                            "{:.3g} rise, recall p {:.3g} drop / {:.3g} rise, log-rank p {:.3g} slower / {:.3g} faster)",
                            counts, 100.0 * o.min_lockin_drop, o.min_recall_drop, 100.0 * o.min_slowdown,
                            cc.p_lockin_drop_adj, cc.p_lockin_rise_adj, cc.p_recall_drop_adj, cc.p_recall_rise_adj,
                            cc.p_slower_adj, cc.p_faster_adj);
  } else {
    cc.verdict = Verdict::kNoChange;
    cc.reason = fmt::format("{}; no change of at least {:.0f} points lock-in, {:.2f} recall or {:.0f}% time to lock in",
                            counts, 100.0 * o.min_lockin_drop, o.min_recall_drop, 100.0 * o.min_slowdown);
  }
  note_allowed_changes(cc);
}

// Identity before statistics, the most severe first (outcomes cannot show any of these): sets the verdict
// and reason and returns true when the config is not to be compared.
bool identity_verdict(ConfigComparison& cc, const GateOptions& o) {
  constexpr const char* kAccept = "; not compared (review the change, then re-record the baseline, or pass ";
  struct Check {
    bool changed;
    Verdict verdict;
    std::string reason;
  };
  const Check checks[] = {
      {!cc.dependent_seeds.empty(), Verdict::kSeedsNotIndependent,
       "seeds not independent: " + cc.dependent_seeds +
           "; every count, interval and p-value assumes independent draws of the data, so nothing is compared (the "
           "seed no longer reaches the training stream: a bug to fix, not to accept)"},
      {!cc.model_change.empty() && !o.allow_model_change, Verdict::kModelChanged,
       "the model under this key changed: " + cc.model_change + kAccept + "--allow-model-change)"},
      {!cc.task_change.empty() && !o.allow_data_change, Verdict::kTaskChanged,
       "the task under this key changed: " + cc.task_change + " (its generator no longer makes the baseline's "
       "examples)" + kAccept + "--allow-data-change)"},
      {!cc.stream_change.empty() && !o.allow_data_change, Verdict::kDataStreamChanged,
       "the training data stream changed: " + cc.stream_change + " saw other first training batches than in the "
       "baseline" + kAccept + "--allow-data-change)"},
  };
  for (const auto& c : checks) {
    if (!c.changed) continue;
    cc.verdict = c.verdict;
    cc.reason = c.reason;
    return true;
  }
  return false;
}

// Prefixes the reason of a config compared in spite of a changed identity (--allow-model-change,
// --allow-data-change) with what changed.
void note_allowed_changes(ConfigComparison& cc) {
  if (!cc.model_change.empty())
    cc.reason = "model changed (" + cc.model_change + "), compared anyway (--allow-model-change); " + cc.reason;
  if (!cc.task_change.empty() || !cc.stream_change.empty())
    cc.reason = "data changed (" + (cc.task_change.empty() ? "" : "task: " + cc.task_change) +
                (cc.task_change.empty() || cc.stream_change.empty() ? "" : "; ") +
                (cc.stream_change.empty() ? "" : "data stream: " + cc.stream_change) +
                "), compared anyway (--allow-data-change); " + cc.reason;
}

// One sequential sign test over the pairs in seed order: sign_of[i] is +1 when pair i's current run is worse,
// −1 better, 0 tied; a pair with heavy[i] counts `weight` (sequential_weighted_sign_test). Looks of
// `per_look` pairs up to `stages`, the last taking every pair there is.
struct PairedLooks {
  stats::SequentialResult sequential;
  stats::SignTestResult sign;  // over the pairs the stopping look used
};
PairedLooks sequential_over_pairs(const std::vector<int>& sign_of, const std::vector<bool>& heavy, int64_t weight,
                                  int64_t per_look, int64_t stages, double level, const GateOptions& o) {
  const auto pairs = static_cast<int64_t>(sign_of.size());
  const double cap = static_cast<double>(per_look * stages);
  std::vector<stats::WeightedLookCounts> looks;
  std::vector<double> information;
  std::vector<int64_t> used;  // pairs each look uses
  for (int64_t k = 1; k <= stages; ++k) {
    const int64_t upto = k == stages ? pairs : std::min(pairs, k * per_look);  // the last look takes every pair
    stats::WeightedLookCounts c;
    for (int64_t i = 0; i < upto; ++i) {
      const int s = sign_of[static_cast<size_t>(i)];
      if (s == 0) continue;
      const bool h = heavy[static_cast<size_t>(i)];
      (h ? c.heavy_pairs : c.light_pairs) += 1;
      (h ? c.heavy_later : c.light_later) += s > 0 ? 1 : 0;
    }
    looks.push_back(c);
    used.push_back(upto);
    information.push_back(std::min(1.0, static_cast<double>(upto) / cap));
    if (upto == pairs) break;  // no more pairs than these yet
  }
  PairedLooks out;
  out.sequential = stats::sequential_weighted_sign_test(looks, weight, information, level, o.spending, o.futility_p);
  const auto& last = out.sequential.looks.back();
  out.sign = stats::sign_test(last.later, last.pairs - last.later, used[out.sequential.looks.size() - 1] - last.pairs);
  return out;
}

// The primary test of one config (GateOptions::Rule::kPaired), at `level` (alpha / tested configs) for the
// sequential stopping rule. The endpoint is chosen from the baseline alone: time to lock-in (censored at
// the budget) when any baseline seed locked in, else the final recall. Paired on time to lock-in, a pair
// where exactly one run locks in counts kLockInWeight times (the co-primary lock-in question, McNemar's
// discordant pairs, asked of the same pairs without splitting alpha): a lock-in rate 30 points lower is
// otherwise lost in the time noise of the pairs where both lock in.
void primary_test(ConfigComparison& cc, const GateOptions& o, double level) {
  const Config& b = *cc.baseline;
  const Config& c = *cc.current;
  const bool by_time = tally(b).k > 0;
  cc.endpoint = by_time ? "time to lock-in" : "recall";
  cc.primary_level = level;
  cc.co_primary = false;
  if (!cc.paired) {  // seeds that do not pair: the unpaired test of the endpoint, one look
    cc.p_primary = by_time ? cc.p_slower : cc.p_recall_drop;
    cc.p_primary_rise = by_time ? cc.p_faster : cc.p_recall_rise;
    return;
  }
  // Pairs in seed order (both sides hold exactly the shared seeds, sorted): +1 current later (or lower).
  std::vector<int> sign_of;
  std::vector<bool> heavy;
  int64_t lost = 0, gained = 0;
  const auto tb = judge::lock_in_times(b, cc.budget), tc = judge::lock_in_times(c, cc.budget);
  const auto xb = recalls(b), xc = recalls(c);
  for (size_t i = 0; i < b.seeds.size(); ++i) {
    if (by_time) {
      const int s = stats::later_of_pair(tb[i], tc[i]);
      const bool base_locked = b.seeds[i].locked_in();
      const bool discordant = base_locked != c.seeds[i].locked_in();
      const int lock_sign = base_locked ? 1 : -1;
      sign_of.push_back(s);
      heavy.push_back(discordant && s == lock_sign);
      if (discordant) (lock_sign > 0 ? lost : gained) += 1;
    } else {
      const double x = xb[i], y = xc[i];
      sign_of.push_back(y < x ? 1 : y > x ? -1 : 0);
      heavy.push_back(false);
    }
  }
  const auto pairs = static_cast<int64_t>(sign_of.size());
  const int64_t per_look = o.stage_seeds > 0 ? o.stage_seeds : pairs;
  const int64_t stages = o.stage_seeds > 0 ? std::max<int64_t>(1, o.max_stages) : 1;
  cc.stages_cap = stages;
  cc.co_primary = by_time;
  cc.lock_in_weight = by_time ? kLockInWeight : 1;
  auto test = sequential_over_pairs(sign_of, heavy, cc.lock_in_weight, per_look, stages, level, o);
  cc.sequential = std::move(test.sequential);
  cc.sign = test.sign;
  cc.lost = lost;
  cc.gained = gained;
  cc.primary_open = cc.sequential.open;
  cc.primary_looks = static_cast<int64_t>(cc.sequential.looks.size());
  cc.p_primary = cc.sequential.open ? 1.0 : cc.sequential.p_value;  // an open look is not a final answer
  if (by_time) {  // the same weighted statistic the other way
    std::vector<int> flipped;
    for (int s : sign_of) flipped.push_back(-s);
    const auto rise = sequential_over_pairs(flipped, heavy, cc.lock_in_weight, pairs, 1, level, o);
    cc.p_primary_rise = rise.sequential.looks.back().p_nominal;
  } else {
    cc.p_primary_rise = cc.sign.p_sooner;
  }
}

// The verdict from the primary test (adjusted over the tested configs) and the minimum effects; the
// unpaired tests are secondary: shown, not gated.
void judge_primary(ConfigComparison& cc, const GateOptions& o) {
  const std::string counts = counts_text(cc);
  const bool slow_enough = cc.time_ratio >= 1.0 + o.min_slowdown - kEps;
  const bool fast_enough = cc.time_ratio > 0.0 && 1.0 / cc.time_ratio >= 1.0 + o.min_slowdown - kEps;
  const bool worse_enough = slow_enough || -cc.rate_change >= o.min_lockin_drop - kEps ||
                            -cc.recall_change >= o.min_recall_drop - kEps;
  const bool better_enough = fast_enough || cc.rate_change >= o.min_lockin_drop - kEps ||
                             cc.recall_change >= o.min_recall_drop - kEps;
  const char* adj = stats::adjust_method_name(o.adjust);
  std::string test;
  if (cc.paired) {
    test = fmt::format("primary: paired sign test on {} over {} seed pairs ({} current {}, {} {}, {} tied), look {} "
                       "of {} ({} spending at {:.3g}): p = {:.3g}",
                       cc.endpoint, cc.sign.later + cc.sign.sooner + cc.sign.ties, cc.sign.later,
                       cc.endpoint == "recall" ? "lower" : "later", cc.sign.sooner,
                       cc.endpoint == "recall" ? "higher" : "sooner", cc.sign.ties, cc.sequential.looks.size(),
                       cc.stages_cap, stats::spending_name(o.spending), cc.primary_level, cc.sequential.p_value);
    if (cc.co_primary)
      test += fmt::format(" with the pairs where only one run locks in counted {}× ({} lost, {} gained)",
                          cc.lock_in_weight, cc.lost, cc.gained);
    test += fmt::format(", {}-adjusted {:.3g}", adj, cc.p_primary_adj);
  } else {
    test = fmt::format("primary: unpaired {} on {} (no seed in common), p = {:.3g}, {}-adjusted {:.3g}",
                       cc.endpoint == "recall" ? "Mann–Whitney test" : "exact log-rank test", cc.endpoint, cc.p_primary,
                       adj, cc.p_primary_adj);
  }
  const std::string secondary = fmt::format(
      "secondary (not gated): lock-in Fisher p = {:.3g}, recall Mann–Whitney p = {:.3g}, log-rank p = {:.3g}",
      cc.p_lockin_drop, cc.p_recall_drop, cc.p_slower);
  const bool all_tied = cc.paired && cc.sign.later + cc.sign.sooner == 0;
  if (cc.p_primary_adj <= o.alpha && worse_enough) {
    cc.verdict = Verdict::kRegression;
    cc.reason = fmt::format("{}; {}; alpha {}; {}", counts, test, o.alpha, secondary);
  } else if (cc.paired && cc.primary_open) {
    cc.verdict = Verdict::kInconclusive;
    const int64_t next = cc.primary_looks + 1;
    cc.reason = fmt::format("{}; {}; open at look {} of {}: `recallbench gate` runs seeds for look {} ({} per look); "
                            "{}",
                            counts, test, cc.primary_looks, cc.stages_cap, next, o.stage_seeds, secondary);
  } else if (cc.p_primary_rise_adj <= o.alpha && better_enough) {
    cc.verdict = Verdict::kImprovement;
    cc.reason = fmt::format("{}; {}; better: p = {:.3g} (adjusted {:.3g}); {}", counts, test, cc.p_primary_rise,
                            cc.p_primary_rise_adj, secondary);
  } else if (!all_tied && cc.paired && std::ldexp(1.0, -static_cast<int>(std::min<int64_t>(cc.pairs, 60))) >
                                           cc.primary_level + 1e-15) {
    cc.verdict = Verdict::kInconclusive;
    cc.reason = fmt::format("{}; {}; {} pairs cannot reach significance: even all of them worse gives p = 2^-{} > "
                            "{:.3g} (alpha / {} configs)",
                            counts, test, cc.pairs, cc.pairs, cc.primary_level, o.alpha / cc.primary_level);
  } else if (worse_enough && !all_tied) {
    cc.verdict = Verdict::kInconclusive;
    cc.reason = fmt::format("{}; a change of at least the minimum effect ({:.0f} points lock-in, {:.2f} recall or "
                            "{:.0f}% time to lock in) that the primary test does not find significant; {}; {}",
                            counts, 100.0 * o.min_lockin_drop, o.min_recall_drop, 100.0 * o.min_slowdown, test,
                            secondary);
  } else {
    cc.verdict = Verdict::kNoChange;
    cc.reason = all_tied ? fmt::format("{}; every seed pair has the same outcome ({} pairs): nothing changed", counts,
                                       cc.pairs)
                         : fmt::format("{}; no change of at least {:.0f} points lock-in, {:.2f} recall or {:.0f}% "
                                       "time to lock in; {}", counts, 100.0 * o.min_lockin_drop, o.min_recall_drop,
                                       100.0 * o.min_slowdown, test);
  }
  note_allowed_changes(cc);
}

// For an inconclusive config: about how many seeds per side would decide, planned for the larger of the
// observed change and the minimum effect, in the observed direction (a drop when there was none), from
// the baseline rate.
void plan_more_seeds(ConfigComparison& cc, const GateOptions& o) {
  const double from = static_cast<double>(cc.k_base) / static_cast<double>(cc.n_base);
  const double effect = std::max(o.min_lockin_drop, std::fabs(cc.rate_change));
  bool drop = cc.rate_change <= 0.0;
  if (drop && from - o.min_lockin_drop < -kEps) drop = false;  // cannot drop that far: plan a rise
  if (!drop && from + o.min_lockin_drop > 1.0 + kEps) drop = true;
  const double to = std::clamp(drop ? from - effect : from + effect, 0.0, 1.0);
  cc.planned_from = from;
  cc.planned_to = to;
  if (std::fabs(to - from) > kEps) {
    const auto plan = plan_seeds(std::max(from, to), std::min(from, to), o.target_power, cc.level_needed, o.max_seeds);
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

}  // namespace

namespace {

void check_gate_options(const GateOptions& o) {
  RB_CHECK_INPUT(o.alpha > 0.0 && o.alpha < 1.0, fmt::format("alpha got {}, expected a value in (0, 1)", o.alpha));
  RB_CHECK_INPUT(o.min_lockin_drop >= 0.0 && o.min_lockin_drop <= 1.0,
                 fmt::format("minimum lock-in effect got {}, expected a fraction in [0, 1]", o.min_lockin_drop));
  RB_CHECK_INPUT(o.min_recall_drop >= 0.0 && o.min_recall_drop <= 1.0,
                 fmt::format("minimum recall effect got {}, expected a value in [0, 1]", o.min_recall_drop));
  RB_CHECK_INPUT(o.min_slowdown >= 0.0 && o.min_slowdown <= 100.0,
                 fmt::format("minimum slowdown got {}, expected a fraction in [0, 100]", o.min_slowdown));
  RB_CHECK_INPUT(o.stage_seeds >= 0 && o.max_stages >= 1 && o.max_stages <= 100,
                 fmt::format("sequential rule: got {} seeds per look and {} looks, expected seeds >= 0 and 1..100 looks",
                             o.stage_seeds, o.max_stages));
  RB_CHECK_INPUT(o.futility_p > 0.0 && o.futility_p <= 1.0,
                 fmt::format("futility p got {}, expected a value in (0, 1]", o.futility_p));
}

// The three unpaired tests per config: the gate's family under the unpaired rule, the secondary family
// (shown, not gated) under the paired rule. Drops and rises are separate families, each adjusted over
// every test in it. Returns the tests in the drop family.
int64_t adjust_unpaired(const std::vector<ConfigComparison*>& tested, const GateOptions& o) {
  std::vector<double> drops, rises;
  for (const auto* cc : tested) {
    drops.insert(drops.end(), {cc->p_lockin_drop, cc->p_recall_drop, cc->p_slower});
    rises.insert(rises.end(), {cc->p_lockin_rise, cc->p_recall_rise, cc->p_faster});
  }
  const auto drops_adj = stats::p_adjust(drops, o.adjust);
  const auto rises_adj = stats::p_adjust(rises, o.adjust);
  for (size_t i = 0; i < tested.size(); ++i) {
    auto& cc = *tested[i];
    cc.p_lockin_drop_adj = drops_adj[3 * i];
    cc.p_recall_drop_adj = drops_adj[3 * i + 1];
    cc.p_slower_adj = drops_adj[3 * i + 2];
    cc.p_lockin_rise_adj = rises_adj[3 * i];
    cc.p_recall_rise_adj = rises_adj[3 * i + 1];
    cc.p_faster_adj = rises_adj[3 * i + 2];
  }
  return static_cast<int64_t>(drops.size());
}

// The paired rule: one primary test per config, alone in its family; each sequential test stops at
// alpha / configs. Judges every tested config.
void decide_paired(const std::vector<ConfigComparison*>& tested, const GateOptions& o) {
  const double level = o.alpha / static_cast<double>(std::max<size_t>(1, tested.size()));
  std::vector<double> primary, primary_rise;
  for (auto* cc : tested) {
    primary_test(*cc, o, level);
    primary.push_back(cc->p_primary);
    primary_rise.push_back(cc->p_primary_rise);
  }
  const auto primary_adj = stats::p_adjust(primary, o.adjust);
  const auto primary_rise_adj = stats::p_adjust(primary_rise, o.adjust);
  for (size_t i = 0; i < tested.size(); ++i) {
    tested[i]->p_primary_adj = primary_adj[i];
    tested[i]->p_primary_rise_adj = primary_rise_adj[i];
    tested[i]->level_needed = level;
    judge_primary(*tested[i], o);
  }
}

// The verdict counts and the worst verdict; the configs by severity.
void tally_verdicts(Comparison& cmp) {
  // The counters in Verdict order (by severity).
  int64_t* const count_of[] = {&cmp.unchanged,    &cmp.improvements, &cmp.inconclusive,  &cmp.regressions,
                               &cmp.data_changed, &cmp.data_changed, &cmp.model_changed, &cmp.data_changed};
  for (const auto& cc : cmp.configs) {
    if (severity(cc.verdict) > severity(cmp.verdict)) cmp.verdict = cc.verdict;
    ++*count_of[severity(cc.verdict)];
  }
  std::stable_sort(cmp.configs.begin(), cmp.configs.end(), [](const ConfigComparison& a, const ConfigComparison& b) {
    return severity(a.verdict) > severity(b.verdict);
  });
}

}  // namespace

Comparison compare(const std::vector<Config>& baseline, const std::vector<Config>& current, const GateOptions& o) {
  check_gate_options(o);
  check_comparable(baseline, current);
  Comparison cmp;
  cmp.options = o;
  match(cmp, baseline, current);

  // A config whose model changed is not tested (unless allowed): its numbers belong to another model.
  std::vector<ConfigComparison*> tested;
  for (auto& cc : cmp.configs) {
    measure(cc);
    if (!cc.data_checked) ++cmp.data_unchecked;
    if (!identity_verdict(cc, o)) tested.push_back(&cc);
  }
  const int64_t unpaired_tests = adjust_unpaired(tested, o);
  if (o.rule == GateOptions::Rule::kUnpaired) {
    cmp.tests = unpaired_tests;
    for (auto* cc : tested) judge(*cc, o, cmp.tests);
  } else {
    cmp.tests = static_cast<int64_t>(tested.size());
    decide_paired(tested, o);
  }
  for (auto* cc : tested) {
    if (cc->verdict == Verdict::kInconclusive && !(cc->paired && cc->primary_open)) plan_more_seeds(*cc, o);
    if (o.power_analysis) cc->detectable = detectable_effect(*cc->baseline, cc->n_cur, cc->level_needed, o);
  }
  tally_verdicts(cmp);
  return cmp;
}

int gate_exit_code(const Comparison& c, bool fail_on_inconclusive) {
  if (severity(c.verdict) > severity(Verdict::kRegression)) return kExitUsage;  // an identity changed
  if (c.verdict == Verdict::kRegression) return 1;
  if (c.verdict == Verdict::kInconclusive && fail_on_inconclusive) return 3;
  return 0;
}

namespace {
// The primary test of a config, with the sequential rule's looks (null under the unpaired rule).
json looks_json(const stats::SequentialResult& s) {
  json looks = json::array();
  for (const auto& l : s.looks)
    looks.push_back({{"pairs_untied", l.pairs}, {"worse", l.later}, {"information", l.information},
                     {"boundary", l.boundary}, {"alpha_allowed", l.alpha_allowed}, {"alpha_spent", l.alpha_spent},
                     {"p_nominal", l.p_nominal}, {"crossed", l.crossed}, {"futile", l.futile},
                     {"statistic", l.statistic}});
  return looks;
}

json primary_json(const ConfigComparison& cc) {
  if (cc.endpoint.empty()) return nullptr;
  json out = {{"endpoint", cc.endpoint},
              {"test", cc.paired ? "paired sign test (sequential)" : cc.endpoint == "recall" ? "Mann-Whitney" : "log-rank"},
              {"paired", cc.paired},
              {"pairs", cc.pairs},
              {"current_seeds_without_pair", cc.unpaired_current},
              {"worse", cc.sign.later},
              {"better", cc.sign.sooner},
              {"tied", cc.sign.ties},
              {"p", cc.p_primary},
              {"p_adjusted", cc.p_primary_adj},
              {"p_better", cc.p_primary_rise},
              {"p_better_adjusted", cc.p_primary_rise_adj},
              {"level", cc.primary_level},
              {"looks", looks_json(cc.sequential)},
              {"looks_cap", cc.stages_cap},
              {"open", cc.paired && cc.primary_open},
              {"lock_in_weight", cc.paired ? json(cc.lock_in_weight) : json(nullptr)},
              {"lock_in_lost", cc.paired && cc.co_primary ? json(cc.lost) : json(nullptr)},
              {"lock_in_gained", cc.paired && cc.co_primary ? json(cc.gained) : json(nullptr)}};
  return out;
}
}  // namespace

json comparison_to_json(const Comparison& c) {
  json configs = json::array();
  for (const auto& cc : c.configs) {
    configs.push_back({
        {"key", cc.key},
        {"cell", cc.current->cell},
        {"task", cc.current->task_label()},
        {"verdict", verdict_name(cc.verdict)},
        {"reason", cc.reason},
        {"model_change", cc.model_change.empty() ? json(nullptr) : json(cc.model_change)},
        {"task_change", cc.task_change.empty() ? json(nullptr) : json(cc.task_change)},
        {"data_stream_change", cc.stream_change.empty() ? json(nullptr) : json(cc.stream_change)},
        {"dependent_seeds", cc.dependent_seeds.empty() ? json(nullptr) : json(cc.dependent_seeds)},
        {"data_checked", cc.data_checked},
        {"baseline",
         {{"locked_in", cc.k_base}, {"seeds", cc.n_base}, {"median_recall", cc.recall_base},
          {"state_size", cc.baseline->state_size}, {"parameters", cc.baseline->parameters},
          {"architecture", cc.baseline->architecture}, {"eval_fingerprint", cc.baseline->eval_fingerprint},
          {"steps_to_lock_in_median", json_number(cc.median_time_base)},
          {"steps_to_lock_in_restricted_mean", cc.time_base}}},
        {"current",
         {{"locked_in", cc.k_cur}, {"seeds", cc.n_cur}, {"median_recall", cc.recall_cur},
          {"state_size", cc.current->state_size}, {"parameters", cc.current->parameters},
          {"architecture", cc.current->architecture}, {"eval_fingerprint", cc.current->eval_fingerprint},
          {"steps_to_lock_in_median", json_number(cc.median_time_cur)},
          {"steps_to_lock_in_restricted_mean", cc.time_cur}}},
        {"lock_in_rate_change", cc.rate_change},
        {"recall_change", cc.recall_change},
        {"step_budget", cc.budget},
        {"time_to_lock_in_ratio", cc.time_ratio},
        {"p",
         {{"lock_in_drop", cc.p_lockin_drop}, {"lock_in_rise", cc.p_lockin_rise},
          {"recall_drop", cc.p_recall_drop}, {"recall_rise", cc.p_recall_rise},
          {"slower", cc.p_slower}, {"faster", cc.p_faster}}},
        {"p_adjusted",
         {{"lock_in_drop", cc.p_lockin_drop_adj}, {"lock_in_rise", cc.p_lockin_rise_adj},
          {"recall_drop", cc.p_recall_drop_adj}, {"recall_rise", cc.p_recall_rise_adj},
          {"slower", cc.p_slower_adj}, {"faster", cc.p_faster_adj}}},
        {"primary", primary_json(cc)},
        {"min_attainable_p", cc.min_attainable_p},
        {"level_needed", cc.level_needed},
        {"detectable",
         c.options.power_analysis
             ? json{{"power", c.options.target_power}, {"lock_in_from", cc.detectable.lock_in_from},
                    {"lock_in_to", json_number(cc.detectable.lock_in_to)}, {"slowdown", json_number(cc.detectable.slowdown)},
                    {"draws", cc.detectable.draws}}
             : json(nullptr)},
        {"seeds_needed", cc.seeds_needed > 0 ? json(cc.seeds_needed) : json(nullptr)},
        {"planned_lock_in", cc.verdict == Verdict::kInconclusive
                                ? json{{"from", cc.planned_from}, {"to", cc.planned_to}, {"power", cc.planned_power}}
                                : json(nullptr)},
    });
  }
  return {{"verdict", verdict_name(c.verdict)},
          {"options",
           {{"alpha", c.options.alpha}, {"min_lock_in_drop", c.options.min_lockin_drop},
            {"min_recall_drop", c.options.min_recall_drop}, {"min_slowdown", c.options.min_slowdown},
            {"target_power", c.options.target_power}, {"adjust", stats::adjust_method_name(c.options.adjust)},
            {"allow_model_change", c.options.allow_model_change}, {"allow_data_change", c.options.allow_data_change},
            {"rule", c.options.rule == GateOptions::Rule::kPaired ? "paired" : "unpaired"},
            {"stage_seeds", c.options.stage_seeds}, {"max_stages", c.options.max_stages},
            {"spending", stats::spending_name(c.options.spending)}, {"futility_p", c.options.futility_p}}},
          {"tests", c.tests},
          {"counts",
           {{"regression", c.regressions}, {"improvement", c.improvements}, {"inconclusive", c.inconclusive},
            {"no_change", c.unchanged}, {"model_changed", c.model_changed}, {"data_changed", c.data_changed},
            {"data_unchecked", c.data_unchecked}}},
          {"configs", configs},
          {"missing_in_current", c.missing_in_current},
          {"missing_in_baseline", c.missing_in_baseline},
          {"baseline_context", c.baseline_context}};
}

}  // namespace rb::reports
