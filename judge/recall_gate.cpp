// The recall gate (see recall_gate.h; the rule and its evidence: docs/gate-evidence.md).
#include "judge/recall_gate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/errors.h"
#include "judge/summary.h"

namespace rb::judge {
namespace {

constexpr double kEps = 1e-9;  // rates like 4/5 − 1 are compared against 0.2 without rounding surprises

// What makes two configs "the same experiment up to recipe and budget": task with options, cell name,
// model shape without the budget.
std::string identity(const Config& c) {
  json model = c.model;
  model.erase("state_budget");
  return json{{"task", c.task}, {"task_options", c.task_options}, {"cell", c.cell}, {"model", model}}.dump();
}

std::string differing_fields(const json& a, const json& b) {
  std::string out;
  for (const auto& d : recipe_difference(a, b))
    out += fmt::format("{}{}: baseline {}, current {}", out.empty() ? "" : "; ", d.field, d.baseline.dump(),
                       d.current.dump());
  return out;
}

// Seeds per side for a one-sided Fisher test to detect rates hi vs lo with the target power at `level`
// (stats::seeds_for_power_bisected: about 2·log2(max_n) exact power evaluations). Memoised: the same question
// recurs across configs with equal counts.
stats::SeedPlan plan_seeds(double hi, double lo, double target, double level, int64_t max_n) {
  static std::mutex mutex;
  static std::map<std::tuple<double, double, double, double, int64_t>, stats::SeedPlan> cache;
  const auto key = std::make_tuple(hi, lo, target, level, max_n);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const auto plan = stats::seeds_for_power_bisected(
      [&](int64_t n) { return stats::fisher_power(hi, lo, n, n, level, stats::Alternative::kGreater); }, target, max_n);
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, plan);
  return plan;
}

}  // namespace

std::vector<RecipeField> recipe_difference(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<RecipeField> out;
  for (const auto& k : keys) {
    json va = a.contains(k) ? a.at(k) : json(nullptr);
    json vb = b.contains(k) ? b.at(k) : json(nullptr);
    if (va != vb) out.push_back({k, std::move(va), std::move(vb)});
  }
  return out;
}

std::vector<Config> pair_across_recipes(const std::vector<Config>& baseline, const std::vector<Config>& current,
                                        std::vector<RecipePair>& pairs) {
  std::set<std::string> base_keys, cur_keys;
  for (const auto& c : baseline) base_keys.insert(c.key);
  for (const auto& c : current) cur_keys.insert(c.key);
  std::vector<Config> out = baseline;
  for (auto& base : out) {
    if (cur_keys.count(base.key)) continue;
    std::vector<const Config*> partners;
    for (const auto& cur : current)
      if (!base_keys.count(cur.key) && identity(cur) == identity(base) && cur.state_budget == base.state_budget)
        partners.push_back(&cur);
    if (partners.empty()) continue;
    const std::string what = fmt::format("{} on {}", base.cell, base.task_label());
    if (partners.size() > 1)
      throw UsageError(fmt::format("--across-recipes: {} has {} current configs of other recipes ({} and {}), expected "
                                   "one to pair with", what, partners.size(), partners[0]->key, partners[1]->key),
                       "compare one recipe at a time: run each into its own results folder");
    const Config& cur = *partners.front();
    if (cur.step_budget() != base.step_budget())
      throw UsageError(fmt::format("--across-recipes: {} has a step budget of {} in the baseline and {} in the "
                                   "current results", what, base.step_budget(), cur.step_budget()),
                       "time to lock-in is censored at each side's budget: A/B recipes with the same --steps");
    pairs.push_back({base.key, cur.key, recipe_difference(base.train(), cur.train())});
    base.key = cur.key;
  }
  return out;
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

ModelDifference model_difference(const Config& b, const Config& c) {
  ModelDifference d;
  if (b.state_size != c.state_size) d.state_size = std::pair{b.state_size, c.state_size};
  if (b.parameters > 0 && c.parameters > 0 && b.parameters != c.parameters) d.parameters = std::pair{b.parameters, c.parameters};
  if (!b.architecture.empty() && !c.architecture.empty() && b.architecture != c.architecture)
    d.architecture = std::pair{b.architecture, c.architecture};
  if (b.cell_options != c.cell_options) d.cell_options = std::pair{b.cell_options, c.cell_options};
  return d;
}

namespace {

// Seeds of one side that share a training fingerprint with another seed of the same config, sorted.
std::vector<int64_t> shared_fingerprints(const Config& c) {
  std::map<std::string, std::vector<int64_t>> by_fingerprint;
  for (const auto& s : c.seeds)
    if (!s.train_fingerprint.empty()) by_fingerprint[s.train_fingerprint].push_back(s.seed);
  std::vector<int64_t> shared;
  for (const auto& [fp, seeds] : by_fingerprint)
    if (seeds.size() > 1) shared.insert(shared.end(), seeds.begin(), seeds.end());
  std::sort(shared.begin(), shared.end());
  return shared;
}

}  // namespace

DataDifference data_difference(const Config& b, const Config& c) {
  DataDifference d;
  if (auto cur = shared_fingerprints(c); !cur.empty()) {
    d.dependent_side = DataDifference::Side::kCurrent;
    d.dependent = std::move(cur);
  } else if (auto base = shared_fingerprints(b); !base.empty()) {
    d.dependent_side = DataDifference::Side::kBaseline;
    d.dependent = std::move(base);
  }
  std::map<int64_t, std::string> base_stream;
  for (const auto& s : b.seeds)
    if (!s.train_fingerprint.empty()) base_stream[s.seed] = s.train_fingerprint;
  for (const auto& s : c.seeds) {
    const auto it = base_stream.find(s.seed);
    if (it == base_stream.end() || s.train_fingerprint.empty()) continue;
    ++d.stream_compared;
    if (it->second != s.train_fingerprint) d.stream_changed.push_back(s.seed);
  }
  const bool eval_recorded = !b.eval_fingerprint.empty() && !c.eval_fingerprint.empty();
  if (eval_recorded && b.eval_fingerprint != c.eval_fingerprint) d.held_out = std::pair{b.eval_fingerprint, c.eval_fingerprint};
  // A seed-shift replicate pairs no seed with the baseline: the held-out set alone is then the check.
  d.checked = eval_recorded;
  return d;
}

const char* part_name(PartKind k) {
  switch (k) {
    case PartKind::kLockIn: return "lock-in";
    case PartKind::kTime: return "time to lock-in";
    case PartKind::kRecall: return "recall";
  }
  return "";
}

const char* endpoint_name(Endpoint e) {
  switch (e) {
    case Endpoint::kNone: return "";
    case Endpoint::kTimeToLockIn: return "time to lock-in";
    case Endpoint::kRecall: return "recall";
  }
  return "";
}

double ConfigComparison::recall_baseline() const { return spread(recalls(compared_baseline())).median; }
double ConfigComparison::recall_current() const { return spread(recalls(compared_current())).median; }
double ConfigComparison::time_baseline() const {
  return stats::restricted_mean(lock_in_times(compared_baseline(), budget), static_cast<double>(budget));
}
double ConfigComparison::time_current() const {
  return stats::restricted_mean(lock_in_times(compared_current(), budget), static_cast<double>(budget));
}
double ConfigComparison::time_ratio() const {
  const double base = time_baseline();
  return base > 0.0 ? time_current() / base : 1.0;
}
double ConfigComparison::median_time_baseline() const {
  return stats::kaplan_meier_median(lock_in_times(compared_baseline(), budget));
}
double ConfigComparison::median_time_current() const {
  return stats::kaplan_meier_median(lock_in_times(compared_current(), budget));
}

std::vector<ContextDifference> Comparison::machine_difference() const {
  // A context recorded before devices existed was recorded on the CPU: another device is a difference, like
  // another CPU kind (the same run keys, numbers that agree only to rounding; warned, not refused).
  const auto with_device = [](nlohmann::json context) {
    if (context.is_object() && !context.contains("device")) context["device"] = "cpu";
    return context;
  };
  return context_difference(with_device(baseline_context), with_device(current_context),
                            {"device", "device_name", "cpu_model", "cpu_isa", "blas_core"});
}

Comparison::Ties Comparison::ties() const {
  Ties t;
  for (const auto& cc : configs) {
    if (!cc.paired || cc.endpoint == Endpoint::kNone) continue;
    t.tied += cc.sign.ties;
    t.pairs += cc.sign.later + cc.sign.sooner + cc.sign.ties;
  }
  return t;
}

Verdict Comparison::verdict() const {
  // The battery's own verdict counts when it decided; "cannot reach" adds nothing: its configs then cannot either.
  const bool battery_decided = battery.tested && battery.verdict != Verdict::kInconclusive;
  const Verdict worst = std::max(counts().worst(Verdict::kNoChange), battery_decided ? battery.verdict : Verdict::kNoChange);
  const bool incomplete = !missing_planned.empty() || !missing_paired.empty();
  return incomplete && worst < Verdict::kInconclusive ? Verdict::kInconclusive : worst;
}
VerdictCounts<Verdict> Comparison::counts() const { return count_verdicts<Verdict>(configs); }
int64_t Comparison::data_unchecked() const {
  int64_t n = 0;
  for (const auto& cc : configs) n += cc.data.checked ? 0 : 1;
  return n;
}

namespace {

// The config restricted to `seeds` (sorted), as its own copy.
std::shared_ptr<const Config> with_seeds(const Config& c, const std::set<int64_t>& seeds) {
  auto out = std::make_shared<Config>(c);
  out->seeds.clear();
  for (const auto& s : c.seeds)
    if (seeds.count(s.seed)) out->seeds.push_back(s);
  return out;
}

// Paired rule: both sides restricted to the seeds they share (runs are deterministic per seed, so seed s on
// both sides is one pair); no shared seed (a seed-shift replicate): unpaired.
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
}

// The baseline seeds the paired rule expects in the current results and finds missing (Comparison::missing_paired).
// A config with no shared seed at all is a seed-shift replicate (unpaired), not a partial store.
std::vector<int64_t> missing_pairs(const ConfigComparison& cc, const GateOptions& o) {
  if (!cc.paired) return {};
  std::vector<int64_t> base;
  for (const auto& s : cc.baseline->seeds) base.push_back(s.seed);
  std::sort(base.begin(), base.end());
  std::set<int64_t> current;
  for (const auto& s : cc.current->seeds) current.insert(s.seed);
  size_t expected = base.size();
  if (o.stage_seeds > 0) {
    const int64_t looks = (cc.pairs + o.stage_seeds - 1) / o.stage_seeds;
    expected = std::min(expected, static_cast<size_t>(looks * o.stage_seeds));
  }
  std::vector<int64_t> missing;
  for (size_t i = 0; i < expected; ++i)
    if (!current.count(base[i])) missing.push_back(base[i]);
  return missing;
}

// Matches configs by key; configs on one side only are listed as missing or new. Each matched config gets
// its identity (model, data) and, under the paired rule, its pairs.
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
    cc.model = model_difference(b, *it->second);
    cc.data = data_difference(b, *it->second);
    if (cmp.options.rule == GateOptions::Rule::kPaired) {
      pair_seeds(cc);
      for (int64_t seed : missing_pairs(cc, cmp.options)) cmp.missing_paired.push_back(b.key + "/seed:" + std::to_string(seed));
    }
    cmp.configs.push_back(std::move(cc));
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

// The unpaired one-sided tests of one config: lock-in counts, recall, time to lock-in.
void measure(ConfigComparison& cc) {
  const Config& b = cc.compared_baseline();
  const Config& c = cc.compared_current();
  const Tally tb_ = tally(b), tc_ = tally(c);
  const stats::Table2x2 t{tb_.k, tb_.n - tb_.k, tc_.k, tc_.n - tc_.k};
  cc.lock_in_drop.p = stats::fisher_p_value(t, stats::Alternative::kGreater);
  cc.lock_in_rise.p = stats::fisher_p_value(t, stats::Alternative::kLess);
  const auto xb = recalls(b), xc = recalls(c);
  cc.recall_drop.p = stats::mann_whitney_u(xb, xc, stats::Alternative::kGreater).p_value;
  cc.recall_rise.p = stats::mann_whitney_u(xb, xc, stats::Alternative::kLess).p_value;
  cc.min_attainable_p = stats::min_attainable_p(tb_.n, tc_.n, stats::Alternative::kGreater);
  // Both sides share a recipe (same key), so one budget; a baseline without it (0) is censored at the last
  // step any seed reached.
  cc.budget = std::max(censoring_budget(b), censoring_budget(c));
  const auto tb = lock_in_times(b, cc.budget), tc = lock_in_times(c, cc.budget);
  // kGreater: the baseline's lock-ins come sooner, i.e. the current side is slower.
  cc.slower.p = stats::log_rank(tb, tc, stats::Alternative::kGreater).p_value;
  cc.faster.p = stats::log_rank(tb, tc, stats::Alternative::kLess).p_value;
}

// Whether the changes reach the minimum effects, each way.
struct Effects {
  bool slow_enough, fast_enough, lock_drop, lock_rise, recall_drop, recall_rise;
  bool worse() const { return slow_enough || lock_drop || recall_drop; }
  bool better() const { return fast_enough || lock_rise || recall_rise; }
};
Effects effects(const ConfigComparison& cc, const GateOptions& o) {
  const double base_recall = cc.recall_baseline();
  const double ratio = cc.time_ratio(), rate = cc.rate_change();
  const double recall = cc.recall_change() / (base_recall > 0.0 ? base_recall : 1.0);  // relative to the baseline
  return {ratio >= 1.0 + o.min_slowdown - kEps,
          ratio > 0.0 && 1.0 / ratio >= 1.0 + o.min_slowdown - kEps,
          -rate >= o.min_lockin_drop - kEps,
          rate >= o.min_lockin_drop - kEps,
          -recall >= o.min_recall_drop - kEps,
          recall >= o.min_recall_drop - kEps};
}

void decide(ConfigComparison& cc, Verdict verdict, Reason reason) {
  cc.verdict = verdict;
  cc.reason = reason;
}

// Rule::kUnpaired: the verdict from the three adjusted tests each way.
void judge_unpaired(ConfigComparison& cc, const GateOptions& o, int64_t tests) {
  cc.level_needed = o.alpha / static_cast<double>(tests);
  cc.family_tests = tests;
  const Effects e = effects(cc, o);
  const double a = o.alpha;
  if ((cc.lock_in_drop.rejects(a) && e.lock_drop) || (cc.recall_drop.rejects(a) && e.recall_drop) ||
      (cc.slower.rejects(a) && e.slow_enough))
    decide(cc, Verdict::kRegression, Reason::kUnpairedRegression);
  else if ((cc.lock_in_rise.rejects(a) && e.lock_rise) || (cc.recall_rise.rejects(a) && e.recall_rise) ||
           (cc.faster.rejects(a) && e.fast_enough))
    decide(cc, Verdict::kImprovement, Reason::kUnpairedImprovement);
  else if (!stats::significant(cc.min_attainable_p, cc.level_needed))
    decide(cc, Verdict::kInconclusive, Reason::kUnpairedCannotReach);
  else if (e.worse() || e.better())
    decide(cc, Verdict::kInconclusive, Reason::kUnpairedBelowSignificance);
  else
    decide(cc, Verdict::kNoChange, Reason::kUnpairedNoChange);
}

// Identity before statistics, the most severe first: returns true (with the verdict) when the config is
// not to be compared.
bool identity_verdict(ConfigComparison& cc, const GateOptions& o) {
  const struct {
    bool changed;
    Verdict verdict;
    Reason reason;
  } checks[] = {
      {!cc.data.dependent.empty(), Verdict::kSeedsNotIndependent, Reason::kSeedsNotIndependent},
      {!cc.model.empty() && !o.allow_model_change, Verdict::kModelChanged, Reason::kModelChanged},
      {cc.data.held_out.has_value() && !o.allow_data_change, Verdict::kTaskChanged, Reason::kTaskChanged},
      {!cc.data.stream_changed.empty() && !o.allow_data_change, Verdict::kDataStreamChanged,
       Reason::kDataStreamChanged},
  };
  for (const auto& c : checks) {
    if (!c.changed) continue;
    decide(cc, c.verdict, c.reason);
    return true;
  }
  return false;
}

}  // namespace

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
  const int64_t budget = censoring_budget(baseline);
  const auto base = lock_in_times(baseline, budget);
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

// Each pair of the paired rule, in seed order: which part of the primary test it belongs to (none when tied)
// and whether the current run is the worse one.
struct Pair {
  int part = -1;       // index into the parts; -1: tied, no information on the direction
  bool worse = false;
};

// The sequential min-p test over the pairs in seed order, in looks of `per_look` pairs up to `stages`, the last
// taking every pair there is. `flip` asks the other direction (current better).
struct PairedLooks {
  stats::SequentialResult sequential;
  int64_t used = 0;            // pairs the stopping look used
  stats::SignTestResult sign;  // over those pairs, all parts pooled (for the counts shown)
};
PairedLooks sequential_over_pairs(const std::vector<Pair>& pairs, size_t parts, int64_t per_look, int64_t stages,
                                  double level, bool flip, const GateOptions& o) {
  const auto n = static_cast<int64_t>(pairs.size());
  const double cap = static_cast<double>(per_look * stages);
  std::vector<std::vector<stats::PartCounts>> looks;
  std::vector<double> information;
  std::vector<int64_t> used;
  for (int64_t k = 1; k <= stages; ++k) {
    const int64_t upto = k == stages ? n : std::min(n, k * per_look);  // the last look takes every pair
    std::vector<stats::PartCounts> c(parts);
    for (int64_t i = 0; i < upto; ++i) {
      const Pair& pr = pairs[static_cast<size_t>(i)];
      if (pr.part < 0) continue;
      auto& part = c[static_cast<size_t>(pr.part)];
      ++part.pairs;
      part.worse += pr.worse != flip ? 1 : 0;
    }
    looks.push_back(std::move(c));
    used.push_back(upto);
    information.push_back(std::min(1.0, static_cast<double>(upto) / cap));
    if (upto == n) break;  // no more pairs than these yet
  }
  PairedLooks out;
  // Two parts (lock-in, time): each alone and both together ("later or never"); one part: itself.
  const std::vector<std::vector<size_t>> statistics =
      parts == 2 ? std::vector<std::vector<size_t>>{{0}, {1}, {0, 1}} : std::vector<std::vector<size_t>>{};
  out.sequential = stats::sequential_min_p_test(looks, information, level, o.spending, o.futility_p, statistics);
  const auto& last = out.sequential.looks.back();
  out.used = used[out.sequential.looks.size() - 1];
  out.sign = stats::sign_test(last.later, last.pairs - last.later, out.used - last.pairs);
  return out;
}

// One-sided (1 - alpha) upper bound of a lock-in drop (lost - gained) / pairs, conditional on the d = lost +
// gained discordant pairs: Clopper–Pearson's upper bound q on lost / d gives d (2q - 1) / pairs.
double lock_in_drop_bound(int64_t lost, int64_t gained, int64_t pairs, double alpha) {
  const int64_t d = lost + gained;
  if (pairs <= 0) return 0.0;
  if (d == 0) return 0.0;
  const double q = stats::clopper_pearson(lost, d, 1.0 - 2.0 * alpha).high;
  return static_cast<double>(d) * (2.0 * q - 1.0) / static_cast<double>(pairs);
}

double median_of(std::vector<double> x) { return x.empty() ? NAN : spread(x).median; }

// The smallest one-sided sign-test p that n untied pairs can give: every one of them worse, 2^-n.
double best_sign_p(int64_t n) { return std::ldexp(1.0, -static_cast<int>(std::min<int64_t>(n, 60))); }

// Each paired config's first-look pairs, pooled into the battery's counts.
void pool_first_looks(BatteryTest& bt, const std::vector<ConfigComparison*>& tested) {
  for (const auto* cc : tested) {
    if (!cc->paired) continue;
    ++bt.configs;
    bt.pairs += cc->first_look_pairs;
    bt.worse += cc->first_look_worse;
    bt.better += cc->first_look_better;
  }
}

// Over the first n pairs of a paired config (its shared seeds, in seed order): the current over the baseline
// lock-in step where both lock in (ties included: ratio 1).
std::vector<double> step_ratios(const Config& b, const Config& c, size_t n) {
  std::vector<double> ratios;
  for (size_t i = 0; i < n && i < b.seeds.size() && i < c.seeds.size(); ++i)
    if (b.seeds[i].locked_in() && c.seeds[i].locked_in() && b.seeds[i].lock_in_step > 0)
      ratios.push_back(static_cast<double>(c.seeds[i].lock_in_step) / static_cast<double>(b.seeds[i].lock_in_step));
  return ratios;
}

// The same pairs' drops in final recall, relative to the baseline's median recall over them (absolute where
// that median is 0: nothing can drop).
std::vector<double> recall_drops(const Config& b, const Config& c, size_t n) {
  std::vector<double> base, drops;
  for (size_t i = 0; i < n && i < b.seeds.size(); ++i) base.push_back(b.seeds[i].final_accuracy);
  const double scale = median_of(base), unit = scale > 0.0 ? scale : 1.0;
  for (size_t i = 0; i < n && i < b.seeds.size() && i < c.seeds.size(); ++i)
    drops.push_back((b.seeds[i].final_accuracy - c.seeds[i].final_accuracy) / unit);
  return drops;
}

// The effects of each part over the first `used` pairs, on the part's own scale, with the one-sided bounds.
void measure_parts(ConfigComparison& cc, const std::vector<Pair>& pairs, int64_t used,
                   const stats::SequentialLook& look, const GateOptions& o) {
  const Config& b = cc.compared_baseline();
  const Config& c = cc.compared_current();
  const auto n = static_cast<size_t>(used);
  for (size_t j = 0; j < cc.parts.size(); ++j) {
    PrimaryPart& part = cc.parts[j];
    for (size_t t = 0; t < look.tests.size(); ++t) {
      const auto& test = look.tests[t];
      if (test.parts.size() != 1 || test.parts.front() != j) continue;
      part.pairs = test.pairs;
      part.worse = test.worse;
      part.p = test.p;
    }
    for (size_t t = 0; t < look.tests.size(); ++t) {  // a rejecting statistic over this part
      const auto& in = look.tests[t].parts;
      part.rejected = part.rejected || (look.rejects(t) && std::find(in.begin(), in.end(), j) != in.end());
    }
  }
  for (auto& part : cc.parts) {
    if (part.kind == PartKind::kLockIn) {
      int64_t lost = 0, gained = 0;
      for (size_t i = 0; i < n; ++i)
        if (pairs[i].part == 0) (pairs[i].worse ? lost : gained) += 1;
      part.effect = static_cast<double>(lost - gained) / static_cast<double>(std::max<size_t>(1, n));
      part.bound = lock_in_drop_bound(lost, gained, used, o.alpha);
      part.improvement = -part.effect;
      part.floor = o.min_lockin_drop;
    } else if (part.kind == PartKind::kTime) {
      const std::vector<double> ratios = step_ratios(b, c, n);
      const double m = median_of(ratios);
      part.effect = ratios.empty() ? NAN : m - 1.0;
      part.bound = ratios.empty() ? NAN : stats::median_upper_bound(ratios, o.alpha) - 1.0;
      part.improvement = ratios.empty() || m <= 0.0 ? NAN : 1.0 / m - 1.0;
      part.floor = o.min_slowdown;
    } else {
      const std::vector<double> drops = recall_drops(b, c, n);
      part.effect = median_of(drops);
      part.bound = drops.empty() ? NAN : stats::median_upper_bound(drops, o.alpha);
      part.improvement = -part.effect;
      part.floor = o.min_recall_drop;
    }
  }
}

// The primary test of one config (Rule::kPaired), at `level` (alpha / tested configs): on time to lock-in
// (censored at the budget) when any baseline seed locked in, in two parts that cannot cancel (lock-in: the
// pairs where exactly one run locks in; time: the pairs where both do, at different steps), else on the final
// recall in one part. The sequential min-p test of stats::sequential_min_p_test.
void primary_test(ConfigComparison& cc, const GateOptions& o, double level) {
  const Config& b = cc.compared_baseline();
  const Config& c = cc.compared_current();
  const bool by_time = tally(b).k > 0;
  cc.endpoint = by_time ? Endpoint::kTimeToLockIn : Endpoint::kRecall;
  cc.primary_level = level;
  cc.parts.clear();
  cc.lost = cc.gained = 0;
  cc.first_look_pairs = cc.first_look_worse = cc.first_look_better = 0;
  if (!cc.paired) {  // seeds that do not pair: the unpaired test of the endpoint, one look
    cc.primary = by_time ? cc.slower : cc.recall_drop;
    cc.primary_better = by_time ? cc.faster : cc.recall_rise;
    return;
  }
  if (by_time)
    cc.parts = {PrimaryPart{PartKind::kLockIn}, PrimaryPart{PartKind::kTime}};
  else
    cc.parts = {PrimaryPart{PartKind::kRecall}};
  // Pairs in seed order (both sides hold exactly the shared seeds, sorted).
  std::vector<Pair> pairs;
  const auto tb = lock_in_times(b, cc.budget), tc = lock_in_times(c, cc.budget);
  const auto xb = recalls(b), xc = recalls(c);
  for (size_t i = 0; i < b.seeds.size(); ++i) {
    Pair pr;
    if (by_time) {
      const bool base_locked = b.seeds[i].locked_in(), cur_locked = c.seeds[i].locked_in();
      const int s = stats::later_of_pair(tb[i], tc[i]);
      if (base_locked != cur_locked) {
        pr = {0, base_locked};
        (base_locked ? cc.lost : cc.gained) += 1;
      } else if (base_locked && s != 0) {
        pr = {1, s > 0};
      }
    } else if (xb[i] != xc[i]) {
      pr = {0, xc[i] < xb[i]};
    }
    pairs.push_back(pr);
  }
  const auto n = static_cast<int64_t>(pairs.size());
  const int64_t per_look = o.stage_seeds > 0 ? o.stage_seeds : n;
  cc.stages_cap = o.stage_seeds > 0 ? std::max<int64_t>(1, o.max_stages) : 1;
  cc.first_look_pairs = std::min(n, per_look);
  for (int64_t i = 0; i < cc.first_look_pairs; ++i)
    if (pairs[static_cast<size_t>(i)].part >= 0) ++(pairs[static_cast<size_t>(i)].worse ? cc.first_look_worse : cc.first_look_better);
  auto test = sequential_over_pairs(pairs, cc.parts.size(), per_look, cc.stages_cap, level, false, o);
  cc.sequential = std::move(test.sequential);
  cc.sign = test.sign;
  measure_parts(cc, pairs, test.used, cc.sequential.looks.back(), o);
  // An open look is not a final answer.
  cc.primary = {Test::kSequentialMinP, stats::Alternative::kGreater, cc.sequential.open ? 1.0 : cc.sequential.p_value};
  const auto better = sequential_over_pairs(pairs, cc.parts.size(), n, 1, level, true, o);
  cc.primary_better = {Test::kSequentialMinP, stats::Alternative::kLess, better.sequential.p_value};
  cc.better_crossed = better.sequential.crossed;
}

// The verdict from the primary test (each config's own sequential test at alpha / tested configs: Bonferroni)
// and the minimum effects, each part judged on its own scale: a rejection is a regression when the one-sided
// upper bound of a rejected part's worsening reaches its floor, "below the minimum effect" when every such
// bound is under it. The unpaired tests are secondary: shown, not gated.
void judge_primary(ConfigComparison& cc, const GateOptions& o) {
  const bool all_tied = cc.paired && cc.sign.later + cc.sign.sooner == 0;
  const double best_paired_p = best_sign_p(cc.pairs);
  bool rejected_reaches_floor = false, point_worse = false, point_better = false;
  for (const auto& part : cc.parts) {
    rejected_reaches_floor = rejected_reaches_floor || (part.rejected && !(part.bound < part.floor - kEps));
    point_worse = point_worse || part.effect >= part.floor - kEps;
    point_better = point_better || part.improvement >= part.floor - kEps;
  }
  if (!cc.paired) {  // the unpaired test of the endpoint, with the unpaired rule's point effects
    const Effects e = effects(cc, o);
    rejected_reaches_floor = e.worse();
    point_worse = e.worse();
    point_better = e.better();
  }
  const bool rejected = cc.paired ? cc.sequential.crossed : cc.primary.rejects(o.alpha);
  const bool better = cc.paired ? cc.better_crossed : cc.primary_better.rejects(o.alpha);
  if (rejected && rejected_reaches_floor)
    decide(cc, Verdict::kRegression, Reason::kPrimaryRegression);
  else if (cc.primary_open())
    decide(cc, Verdict::kInconclusive, Reason::kPrimaryOpen);
  else if (better && point_better)
    decide(cc, Verdict::kImprovement, Reason::kPrimaryImprovement);
  else if (!all_tied && cc.paired && !stats::significant(best_paired_p, cc.primary_level))
    decide(cc, Verdict::kInconclusive, Reason::kPairsCannotReach);
  else if (!cc.paired && !stats::significant(cc.min_attainable_p, cc.primary_level)) {
    // No seed pairs and too few seeds for the unpaired test to reach its level whatever they show (two
    // against two: p >= 1/6): undecidable, never "no change".
    cc.level_needed = cc.primary_level;
    cc.family_tests = std::llround(o.alpha / cc.primary_level);
    decide(cc, Verdict::kInconclusive, Reason::kUnpairedCannotReach);
  }
  else if (rejected)
    decide(cc, Verdict::kBelowMinimumEffect, Reason::kPrimaryBelowMinimumEffect);
  else if (point_worse && !all_tied)
    decide(cc, Verdict::kInconclusive, Reason::kPrimaryBelowSignificance);
  else
    decide(cc, Verdict::kNoChange, all_tied ? Reason::kAllPairsTied : Reason::kPrimaryNoChange);
}

// For an inconclusive config: about how many seeds per side would decide, planned for the larger of the
// observed change and the minimum effect, in the observed direction (a drop when there was none), from
// the baseline rate.
void plan_more_seeds(ConfigComparison& cc, const GateOptions& o) {
  const double from = cc.baseline_tally().rate();
  const double rate_change = cc.rate_change();
  const double effect = std::max(o.min_lockin_drop, std::fabs(rate_change));
  bool drop = rate_change <= 0.0;
  if (drop && from - o.min_lockin_drop < -kEps) drop = false;  // cannot drop that far: plan a rise
  if (!drop && from + o.min_lockin_drop > 1.0 + kEps) drop = true;
  const double to = std::clamp(drop ? from - effect : from + effect, 0.0, 1.0);
  cc.planning.planned = true;
  cc.planning.from = from;
  cc.planning.to = to;
  if (std::fabs(to - from) > kEps) {
    // Paired seeds: the sign test on the pairs where one side locks in (pairs drawn independently, a lower bound
    // for seeds that share their draws); unpaired: Fisher on the counts.
    const double hi = std::max(from, to), lo = std::min(from, to);
    const auto plan = cc.paired ? stats::seeds_for_power_bisected(
                                      [&](int64_t n) { return stats::sign_test_power(hi * (1.0 - lo), (1.0 - hi) * lo, n, cc.level_needed); },
                                      o.target_power, o.max_seeds)
                                : plan_seeds(hi, lo, o.target_power, cc.level_needed, o.max_seeds);
    cc.planning.seeds = plan.reached ? plan.n : 0;
    cc.planning.power = plan.power;
  }
}

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
  std::vector<TestResult*> drops, rises;
  for (auto* cc : tested) {
    drops.insert(drops.end(), {&cc->lock_in_drop, &cc->recall_drop, &cc->slower});
    rises.insert(rises.end(), {&cc->lock_in_rise, &cc->recall_rise, &cc->faster});
  }
  adjust_family(drops, o.adjust);
  adjust_family(rises, o.adjust);
  return static_cast<int64_t>(drops.size());
}

// A pooled part on per-pair worsenings (> 0 worse): its sign test, the median as the effect, its one-sided
// bound at alpha, and the improvement on the same scale.
template <class Improvement>
PrimaryPart median_part(PartKind kind, const std::vector<double>& worsening, double floor, double alpha,
                        Improvement improvement) {
  PrimaryPart part{kind};
  part.worse = std::count_if(worsening.begin(), worsening.end(), [](double d) { return d > 0.0; });
  const auto better = std::count_if(worsening.begin(), worsening.end(), [](double d) { return d < 0.0; });
  part.p = stats::sign_test(part.worse, better).p_later;
  part.pairs = part.worse + better;
  part.effect = median_of(worsening);
  part.bound = stats::median_upper_bound(worsening, alpha);
  part.improvement = improvement(part.effect);
  part.floor = floor;
  return part;
}

// The battery's pooled test (BatteryTest) over the paired configs' primary pairs, after their own tests.
void battery_test(BatteryTest& bt, const std::vector<ConfigComparison*>& tested, const GateOptions& o, double level) {
  bt.level = level;
  int64_t lost = 0, gained = 0, time_configs_pairs = 0;
  std::vector<double> ratios, drops;
  pool_first_looks(bt, tested);
  for (const auto* cc : tested) {
    if (!cc->paired) continue;
    const Config& b = cc->compared_baseline();
    const Config& c = cc->compared_current();
    const auto used = static_cast<size_t>(cc->first_look_pairs);  // the shared seeds in seed order: the first look
    if (cc->endpoint == Endpoint::kTimeToLockIn) {
      time_configs_pairs += cc->first_look_pairs;
      for (size_t i = 0; i < used && i < b.seeds.size() && i < c.seeds.size(); ++i) {
        const bool base_locked = b.seeds[i].locked_in(), cur_locked = c.seeds[i].locked_in();
        if (base_locked != cur_locked) (base_locked ? lost : gained) += 1;
      }
      const auto r = step_ratios(b, c, used);
      ratios.insert(ratios.end(), r.begin(), r.end());
    } else {
      const auto d = recall_drops(b, c, used);
      drops.insert(drops.end(), d.begin(), d.end());
    }
  }
  const auto sign = stats::sign_test(bt.worse, bt.better);
  bt.p = sign.p_later;
  bt.p_better = sign.p_sooner;
  if (time_configs_pairs > 0) {
    PrimaryPart part{PartKind::kLockIn};
    part.pairs = lost + gained, part.worse = lost;
    part.p = stats::sign_test(lost, gained).p_later;
    part.effect = static_cast<double>(lost - gained) / static_cast<double>(time_configs_pairs);
    part.bound = lock_in_drop_bound(lost, gained, time_configs_pairs, o.alpha);
    part.improvement = -part.effect;
    part.floor = o.min_lockin_drop;
    bt.parts.push_back(part);
  }
  // Time: the step ratio less 1; recall: the relative drop. Either way > 0 is worse.
  for (auto& r : ratios) r -= 1.0;
  if (!ratios.empty())
    bt.parts.push_back(median_part(PartKind::kTime, ratios, o.min_slowdown, o.alpha,
                                   [](double m) { return m > -1.0 ? 1.0 / (1.0 + m) - 1.0 : NAN; }));
  if (!drops.empty())
    bt.parts.push_back(median_part(PartKind::kRecall, drops, o.min_recall_drop, o.alpha, [](double m) { return -m; }));
  bool reaches = false, better_reaches = false;
  for (auto& part : bt.parts) {
    part.rejected = bt.rejected() && part.worse > 0;
    reaches = reaches || !(part.bound < part.floor - kEps);
    better_reaches = better_reaches || part.improvement >= part.floor - kEps;
  }
  const int64_t untied = bt.worse + bt.better;
  if (bt.rejected())
    bt.verdict = reaches ? Verdict::kRegression : Verdict::kBelowMinimumEffect;
  else if (stats::significant(bt.p_better, level) && better_reaches)
    bt.verdict = Verdict::kImprovement;
  else if (untied > 0 && !stats::significant(best_sign_p(untied), level))
    bt.verdict = Verdict::kInconclusive;
  else
    bt.verdict = Verdict::kNoChange;
}

// The paired rule: one primary test per config, each sequential test at alpha / configs (Bonferroni, named as
// such: a config is called only when its own test crosses its own boundary; the adjusted p shown is
// min(1, configs × p)). Judges every tested config.
void decide_paired(const std::vector<ConfigComparison*>& tested, const GateOptions& o, BatteryTest& battery) {
  const auto paired = std::count_if(tested.begin(), tested.end(), [](const ConfigComparison* cc) { return cc->paired; });
  battery.tested = paired >= 2;
  battery.first_look_only = o.stage_seeds > 0;
  auto run_primary = [&](double level) {
    for (auto* cc : tested) primary_test(*cc, o, level);
  };
  size_t family = tested.size() + (battery.tested ? 1 : 0);
  double level = o.alpha / static_cast<double>(std::max<size_t>(1, family));
  run_primary(level);
  if (battery.tested) {
    BatteryTest pooled;
    pool_first_looks(pooled, tested);
    const int64_t untied = pooled.worse + pooled.better;
    if (untied > 0 && !stats::significant(best_sign_p(untied), level)) {
      battery = pooled;
      battery.left_out = true;
      battery.first_look_only = o.stage_seeds > 0;
      battery.level = level;
      battery.family = static_cast<int64_t>(family);
      family = tested.size();
      level = o.alpha / static_cast<double>(family);
      run_primary(level);
    }
  }
  // Bonferroni over the whole family, the battery's place included: adjusted p = min(1, family x p).
  const auto tests = static_cast<double>(std::max<size_t>(1, family));
  for (auto* cc : tested) {
    cc->primary.p_adjusted = std::min(1.0, tests * cc->primary.p);
    cc->primary_better.p_adjusted = std::min(1.0, tests * cc->primary_better.p);
    cc->level_needed = level;
    judge_primary(*cc, o);
  }
  if (battery.tested) {
    battery.family = static_cast<int64_t>(family);
    battery_test(battery, tested, o, level);
  }
}

}  // namespace

Comparison compare(const std::vector<Config>& baseline, const std::vector<Config>& current, const GateOptions& o) {
  check_gate_options(o);
  Comparison cmp;
  cmp.options = o;
  if (o.across_recipes)
    cmp.rekeyed_baseline = std::make_shared<const std::vector<Config>>(pair_across_recipes(baseline, current, cmp.recipe_pairs));
  const std::vector<Config>& base = o.across_recipes ? *cmp.rekeyed_baseline : baseline;
  check_comparable(base, current);
  match(cmp, base, current);

  // A config whose identity changed is not tested (unless allowed): its numbers belong to another model.
  std::vector<ConfigComparison*> tested;
  for (auto& cc : cmp.configs) {
    measure(cc);
    if (!identity_verdict(cc, o)) tested.push_back(&cc);
  }
  const int64_t unpaired_tests = adjust_unpaired(tested, o);
  if (o.rule == GateOptions::Rule::kUnpaired) {
    cmp.tests = unpaired_tests;
    for (auto* cc : tested) judge_unpaired(*cc, o, cmp.tests);
  } else {
    decide_paired(tested, o, cmp.battery);
    cmp.tests = static_cast<int64_t>(tested.size()) + (cmp.battery.tested ? 1 : 0);
  }
  for (auto* cc : tested) {
    if (cc->verdict == Verdict::kInconclusive && !cc->primary_open()) plan_more_seeds(*cc, o);
    if (o.power_analysis)
      cc->detectable = detectable_effect(cc->compared_baseline(), cc->current_tally().n, cc->level_needed, o);
  }
  std::stable_sort(cmp.configs.begin(), cmp.configs.end(), [](const ConfigComparison& a, const ConfigComparison& b) {
    return a.verdict > b.verdict;
  });
  return cmp;
}

}  // namespace rb::judge
