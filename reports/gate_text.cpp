// The recall gate in words (see gate_text.h).
#include "reports/gate_text.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/results.h"

namespace rb::reports {
namespace {

using judge::ConfigComparison;
using judge::Endpoint;
using judge::GateOptions;
using judge::Reason;
using judge::Verdict;
using judge::verdict_name;

std::string points(double x) { return fmt::format("{:+.0f} points", 100.0 * x); }

std::string seed_list(const std::vector<int64_t>& seeds) { return fmt::format("{}", fmt::join(seeds, ", ")); }

std::string steps_text(double median) { return std::isfinite(median) ? fmt::format("{:.0f}", median) : "never"; }

// "lock-in 10/10 → 5/10 (-50 points), median recall ..., steps to lock in (median) 300 → 650 (...)".
std::string counts_text(const ConfigComparison& cc) {
  const Tally b = cc.baseline_tally(), c = cc.current_tally();
  return fmt::format(
      "lock-in {}/{} → {}/{} ({}), median recall {:.3f} → {:.3f}, steps to lock in (median) {} → {} (restricted "
      "mean {:.0f} → {:.0f}, {:+.0f}%)",
      b.k, b.n, c.k, c.n, points(cc.rate_change()), cc.recall_baseline(), cc.recall_current(),
      steps_text(cc.median_time_baseline()), steps_text(cc.median_time_current()), cc.time_baseline(),
      cc.time_current(), 100.0 * (cc.time_ratio() - 1.0));
}

}  // namespace

std::string min_effects(const GateOptions& o) {
  return fmt::format("{:.0f} points lock-in, {:.0f}% recall or {:.0f}% time to lock in", 100.0 * o.min_lockin_drop,
                     100.0 * o.min_recall_drop, 100.0 * o.min_slowdown);
}

namespace {

std::string identity_reason(const ConfigComparison& cc) {
  constexpr const char* kAccept = "; not compared (review the change, then re-record the baseline, or pass ";
  switch (cc.reason) {
    case Reason::kSeedsNotIndependent:
      return "seeds not independent: " + dependent_seeds_text(cc.data) +
             "; every count, interval and p-value assumes independent draws of the data, so nothing is compared (the "
             "seed no longer reaches the training stream: a bug to fix, not to accept)";
    case Reason::kModelChanged:
      return "the model under this key changed: " + model_change_text(cc.model) + kAccept + "--allow-model-change)";
    case Reason::kTaskChanged:
      return "the task under this key changed: " + task_change_text(cc.data) +
             " (its generator no longer makes the baseline's examples)" + kAccept + "--allow-data-change)";
    default:
      return "the training data stream changed: " + stream_change_text(cc.data) +
             " saw other first training batches than in the baseline" + kAccept + "--allow-data-change)";
  }
}

std::string unpaired_reason(const ConfigComparison& cc, const GateOptions& o) {
  const std::string counts = counts_text(cc);
  const char* adj = stats::adjust_method_name(o.adjust);
  switch (cc.reason) {
    case Reason::kUnpairedRegression:
      return fmt::format("{}; lock-in drop: one-sided Fisher p = {:.3g} ({}-adjusted {:.3g}), recall drop: "
                         "one-sided Mann–Whitney p = {:.3g} (adjusted {:.3g}), slower: exact log-rank p = {:.3g} "
                         "(adjusted {:.3g}); alpha {}",
                         counts, cc.lock_in_drop.p, adj, cc.lock_in_drop.p_adjusted, cc.recall_drop.p,
                         cc.recall_drop.p_adjusted, cc.slower.p, cc.slower.p_adjusted, o.alpha);
    case Reason::kUnpairedImprovement:
      return fmt::format("{}; lock-in rise: one-sided Fisher p = {:.3g} (adjusted {:.3g}), recall rise: "
                         "Mann–Whitney p = {:.3g} (adjusted {:.3g}), faster: log-rank p = {:.3g} (adjusted {:.3g})",
                         counts, cc.lock_in_rise.p, cc.lock_in_rise.p_adjusted, cc.recall_rise.p,
                         cc.recall_rise.p_adjusted, cc.faster.p, cc.faster.p_adjusted);
    case Reason::kUnpairedCannotReach: {
      const Tally b = cc.baseline_tally(), c = cc.current_tally();
      return fmt::format("{}; {} vs {} seeds cannot reach significance: the smallest attainable one-sided p is "
                         "{:.3g}, a lone change must reach {:.3g} ({} tests, alpha {}, {})",
                         counts, b.n, c.n, cc.min_attainable_p, cc.level_needed, cc.family_tests, o.alpha, adj);
    }
    case Reason::kUnpairedBelowSignificance:
      return fmt::format("{}; a change of at least the minimum effect ({}) that is not significant after adjustment "
                         "(lock-in p {:.3g} drop / {:.3g} rise, recall p {:.3g} drop / {:.3g} rise, log-rank p {:.3g} "
                         "slower / {:.3g} faster)",
                         counts, min_effects(o), cc.lock_in_drop.p_adjusted, cc.lock_in_rise.p_adjusted,
                         cc.recall_drop.p_adjusted, cc.recall_rise.p_adjusted, cc.slower.p_adjusted,
                         cc.faster.p_adjusted);
    default:
      return fmt::format("{}; no change of at least {}", counts, min_effects(o));
  }
}

// One part of the paired primary test: its counts, p, effect with its upper bound, and floor.
std::string part_text(const judge::PrimaryPart& part) {
  const char* worse = part.kind == judge::PartKind::kLockIn ? "lost" : part.kind == judge::PartKind::kTime ? "later" : "lower";
  std::string out = fmt::format("{} {} of {} {}, p = {:.3g}", judge::part_name(part.kind), part.worse, part.pairs,
                                worse, part.p);
  if (std::isnan(part.effect)) return out + ", no pair to size it on";
  const bool points = part.kind == judge::PartKind::kLockIn;
  const auto size = [&](double x) {
    if (std::isinf(x)) return std::string("unbounded");
    return points ? fmt::format("{:+.0f} points", -100.0 * x)
                  : fmt::format("{:+.0f}%", (part.kind == judge::PartKind::kRecall ? -100.0 : 100.0) * x);
  };
  return out + fmt::format(", {} (bound {}, floor {}){}", size(part.effect), size(part.bound), size(part.floor),
                           part.rejected ? ", rejected" : "");
}

// A test's name in sentences and in the JSON report.
const char* test_text(judge::Test t) {
  switch (t) {
    case judge::Test::kFisher: return "Fisher exact test";
    case judge::Test::kMannWhitney: return "Mann–Whitney test";
    case judge::Test::kLogRank: return "exact log-rank test";
    case judge::Test::kSequentialMinP: return "paired sign test";
  }
  return "?";
}
const char* test_json(judge::Test t) {
  switch (t) {
    case judge::Test::kFisher: return "Fisher";
    case judge::Test::kMannWhitney: return "Mann-Whitney";
    case judge::Test::kLogRank: return "log-rank";
    case judge::Test::kSequentialMinP: return "paired sign test (sequential, min-p over parts)";
  }
  return "?";
}

// How a pair reads on an endpoint when the current run is worse, and when it is better.
std::pair<const char*, const char*> pair_words(Endpoint e) {
  switch (e) {
    case Endpoint::kRecall: return {"lower", "higher"};
    case Endpoint::kTimeToLockIn:
    case Endpoint::kNone: return {"later", "sooner"};
  }
  return {"worse", "better"};
}

// "primary: paired sign test on ... p = ..., adjusted ...".
std::string primary_text(const ConfigComparison& cc, const GateOptions& o) {
  const char* adj = stats::adjust_method_name(o.adjust);
  if (!cc.paired)
    return fmt::format("primary: unpaired {} on {} (no seed in common), p = {:.3g}, {}-adjusted {:.3g}",
                       test_text(cc.primary.test), judge::endpoint_name(cc.endpoint), cc.primary.p, adj,
                       cc.primary.p_adjusted);
  std::string test = fmt::format(
      "primary: paired sign test on {} over {} seed pairs ({} current {}, {} {}, {} tied), look {} of {} ({} "
      "spending at {:.3g}, Bonferroni over {} tests): p = {:.3g}",
      judge::endpoint_name(cc.endpoint), cc.sign.later + cc.sign.sooner + cc.sign.ties, cc.sign.later,
      pair_words(cc.endpoint).first, cc.sign.sooner, pair_words(cc.endpoint).second, cc.sign.ties, cc.primary_looks(),
      cc.stages_cap, stats::spending_name(o.spending), cc.primary_level, o.alpha / cc.primary_level,
      cc.sequential.p_value);
  if (cc.parts.size() > 1) {
    test += " (min-p over";
    for (size_t j = 0; j < cc.parts.size(); ++j) test += (j ? ";" : "") + std::string(" ") + part_text(cc.parts[j]);
    const auto& tests = cc.sequential.looks.back().tests;
    if (tests.size() > cc.parts.size())
      test += fmt::format("; later or never {} of {}, p = {:.3g}", tests.back().worse, tests.back().pairs,
                          tests.back().p);
    test += ")";
  } else if (!cc.parts.empty()) {
    test += " (" + part_text(cc.parts.front()) + ")";
  }
  return test + fmt::format(", adjusted {:.3g}", cc.primary.p_adjusted);
}

std::string paired_reason(const ConfigComparison& cc, const GateOptions& o) {
  const std::string counts = counts_text(cc);
  const std::string test = primary_text(cc, o);
  const std::string secondary = fmt::format(
      "secondary (not gated): lock-in Fisher p = {:.3g}, recall Mann–Whitney p = {:.3g}, log-rank p = {:.3g}",
      cc.lock_in_drop.p, cc.recall_drop.p, cc.slower.p);
  switch (cc.reason) {
    case Reason::kPrimaryRegression: return fmt::format("{}; {}; alpha {}; {}", counts, test, o.alpha, secondary);
    case Reason::kPrimaryOpen:
      return fmt::format("{}; {}; open at look {} of {}: `recallbench gate` runs seeds for look {} ({} per look); {}",
                         counts, test, cc.primary_looks(), cc.stages_cap, cc.primary_looks() + 1, o.stage_seeds,
                         secondary);
    case Reason::kPrimaryImprovement:
      return fmt::format("{}; {}; better: p = {:.3g} (adjusted {:.3g}); {}", counts, test, cc.primary_better.p,
                         cc.primary_better.p_adjusted, secondary);
    case Reason::kPairsCannotReach:
      return fmt::format("{}; {}; {} pairs cannot reach significance: even all of them worse gives p = 2^-{} > "
                         "{:.3g} (alpha / {} tests)",
                         counts, test, cc.pairs, cc.pairs, cc.primary_level, o.alpha / cc.primary_level);
    case Reason::kUnpairedCannotReach: {  // no seed in common, and too few seeds for the unpaired endpoint test
      const Tally b = cc.baseline_tally(), c = cc.current_tally();
      return fmt::format("{}; {}; no seed in common, and {} vs {} seeds cannot reach significance: the smallest "
                         "attainable one-sided p is {:.3g} > {:.3g} (alpha / {} tests)",
                         counts, test, b.n, c.n, cc.min_attainable_p, cc.primary_level, o.alpha / cc.primary_level);
    }
    case Reason::kPrimaryBelowSignificance:
      return fmt::format("{}; a change of at least the minimum effect ({}) that the primary test does not find "
                         "significant; {}; {}",
                         counts, min_effects(o), test, secondary);
    case Reason::kPrimaryBelowMinimumEffect:
      return fmt::format("{}; significantly worse, but by less than the minimum effect ({}); {}; alpha {}; {}", counts,
                         min_effects(o), test, o.alpha, secondary);
    case Reason::kAllPairsTied:
      return fmt::format("{}; every seed pair has the same outcome ({} pairs): nothing changed", counts, cc.pairs);
    default: return fmt::format("{}; no change of at least {}; {}", counts, min_effects(o), test);
  }
}

// The prefix of a config compared in spite of a changed identity (--allow-model-change, --allow-data-change).
std::string allowed_changes(const ConfigComparison& cc) {
  std::string out;
  const std::string task = task_change_text(cc.data), stream = stream_change_text(cc.data);
  if (!task.empty() || !stream.empty())
    out += "data changed (" + (task.empty() ? "" : "task: " + task) + (task.empty() || stream.empty() ? "" : "; ") +
           (stream.empty() ? "" : "data stream: " + stream) + "), compared anyway (--allow-data-change); ";
  if (!cc.model.empty())
    out += "model changed (" + model_change_text(cc.model) + "), compared anyway (--allow-model-change); ";
  return out;
}

std::string seed_plan_text(const ConfigComparison& cc, const GateOptions& o) {
  const auto& p = cc.planning;
  if (!p.planned) return "";
  if (p.seeds > 0)
    return fmt::format("; about {} seeds per side would detect lock-in {:.2f} → {:.2f} with power {:.2f}", p.seeds,
                       p.from, p.to, p.power);
  return fmt::format("; no seed count up to {} reaches power {:.2f} for lock-in {:.2f} → {:.2f}", o.max_seeds,
                     o.target_power, p.from, p.to);
}

}  // namespace

GateCounts::GateCounts(const judge::Comparison& c) {
  const auto n = c.counts();
  regressions = n.of(Verdict::kRegression);
  improvements = n.of(Verdict::kImprovement);
  inconclusive = n.of(Verdict::kInconclusive);
  unchanged = n.of(Verdict::kNoChange);
  below_minimum = n.of(Verdict::kBelowMinimumEffect);
  model_changed = n.of(Verdict::kModelChanged);
  data_changed = n.of_any(Verdict::kDataStreamChanged, Verdict::kTaskChanged, Verdict::kSeedsNotIndependent);
}

std::string model_change_text(const judge::ModelDifference& d) {
  std::vector<std::string> parts;
  if (d.state_size) parts.push_back(fmt::format("state_size {} → {}", d.state_size->first, d.state_size->second));
  if (d.parameters) parts.push_back(fmt::format("parameters {} → {}", d.parameters->first, d.parameters->second));
  if (d.architecture)
    parts.push_back(fmt::format("architecture {} → {}", d.architecture->first, d.architecture->second));
  if (d.cell_options)
    parts.push_back(fmt::format("cell options {} → {}", d.cell_options->first.dump(), d.cell_options->second.dump()));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string task_change_text(const judge::DataDifference& d) {
  return d.held_out ? fmt::format("held-out set {} → {}", d.held_out->first, d.held_out->second) : "";
}

std::string stream_change_text(const judge::DataDifference& d) {
  if (d.stream_changed.empty()) return "";
  return fmt::format("seeds {} of {} with the same seed number", seed_list(d.stream_changed), d.stream_compared);
}

std::string dependent_seeds_text(const judge::DataDifference& d) {
  if (d.dependent.empty()) return "";
  return fmt::format("{}: seeds {} saw the same training batches",
                     d.dependent_side == judge::DataDifference::Side::kCurrent ? "current" : "baseline",
                     seed_list(d.dependent));
}

std::string gate_reason(const ConfigComparison& cc, const GateOptions& o) {
  if (judge::gate_effect(cc.verdict) == judge::GateEffect::kRefused) return identity_reason(cc);
  const bool unpaired_rule = o.rule == GateOptions::Rule::kUnpaired;
  return allowed_changes(cc) + (unpaired_rule ? unpaired_reason(cc, o) : paired_reason(cc, o)) +
         seed_plan_text(cc, o);
}

namespace {
// // The primary test of a config, with the sequential rule's looks (null under the unpaired rule).
json looks_json(const stats::SequentialResult& s) {
  json looks = json::array();
  for (const auto& l : s.looks) {
    json tests = json::array();
    for (const auto& t : l.tests)
      tests.push_back({{"parts", t.parts}, {"pairs_untied", t.pairs}, {"worse", t.worse}, {"p", t.p},
                       {"boundary", t.boundary}});
    looks.push_back({{"pairs_untied", l.pairs}, {"worse", l.later}, {"information", l.information},
                     {"min_p", l.min_p}, {"p_boundary", l.p_boundary}, {"alpha_allowed", l.alpha_allowed},
                     {"alpha_spent", l.alpha_spent}, {"p_nominal", l.p_nominal}, {"crossed", l.crossed},
                     {"futile", l.futile}, {"statistics", tests}});
  }
  return looks;
}

json parts_json(const ConfigComparison& cc) {
  if (!cc.paired) return nullptr;
  json parts = json::array();
  for (const auto& p : cc.parts)
    parts.push_back({{"part", judge::part_name(p.kind)}, {"pairs_untied", p.pairs}, {"worse", p.worse}, {"p", p.p},
                     {"rejected", p.rejected}, {"effect", json_number(p.effect)}, {"bound", json_number(p.bound)},
                     {"improvement", json_number(p.improvement)}, {"floor", p.floor}});
  return parts;
}

json primary_json(const ConfigComparison& cc) {
  if (cc.endpoint == Endpoint::kNone) return nullptr;
  json out = {{"endpoint", judge::endpoint_name(cc.endpoint)},
              {"test", test_json(cc.primary.test)},
              {"paired", cc.paired},
              {"pairs", cc.pairs},
              {"current_seeds_without_pair", cc.unpaired_current},
              {"worse", cc.sign.later},
              {"better", cc.sign.sooner},
              {"tied", cc.sign.ties},
              {"p", cc.primary.p},
              {"p_adjusted", cc.primary.p_adjusted},
              {"p_better", cc.primary_better.p},
              {"p_better_adjusted", cc.primary_better.p_adjusted},
              {"level", cc.primary_level},
              {"looks", looks_json(cc.sequential)},
              {"looks_cap", cc.stages_cap},
              {"open", cc.primary_open()},
              {"parts", parts_json(cc)},
              {"lock_in_lost", cc.has_part(judge::PartKind::kLockIn) ? json(cc.lost) : json(nullptr)},
              {"lock_in_gained", cc.has_part(judge::PartKind::kLockIn) ? json(cc.gained) : json(nullptr)}};
  return out;
}
}  // namespace

namespace {
json machine_json(const judge::Comparison& c) {
  json out = json::array();
  for (const auto& d : c.machine_difference())
    out.push_back({{"key", d.key}, {"baseline", d.baseline}, {"current", d.current}});
  return out;
}
}  // namespace

namespace {

json side_json(const Tally& t, double median_recall, const Config& c, double median_time, double restricted_mean) {
  return {{"locked_in", t.k}, {"seeds", t.n}, {"median_recall", median_recall},
          {"state_size", c.state_size}, {"parameters", c.parameters},
          {"architecture", c.architecture}, {"eval_fingerprint", c.eval_fingerprint},
          {"steps_to_lock_in_median", json_number(median_time)},
          {"steps_to_lock_in_restricted_mean", restricted_mean}};
}

json config_comparison_json(const judge::ConfigComparison& cc, const GateOptions& o) {
  const std::string model = model_change_text(cc.model), task = task_change_text(cc.data),
                    stream = stream_change_text(cc.data), dependent = dependent_seeds_text(cc.data);
  const auto text_or_null = [](const std::string& text) { return text.empty() ? json(nullptr) : json(text); };
  const auto tests = [&](double judge::TestResult::*field) {
    return json{{"lock_in_drop", cc.lock_in_drop.*field}, {"lock_in_rise", cc.lock_in_rise.*field},
                {"recall_drop", cc.recall_drop.*field}, {"recall_rise", cc.recall_rise.*field},
                {"slower", cc.slower.*field}, {"faster", cc.faster.*field}};
  };
  return {
      {"key", cc.key},
      {"cell", cc.current->cell},
      {"task", cc.current->task_label()},
      {"verdict", verdict_name(cc.verdict)},
      {"reason", gate_reason(cc, o)},
      {"model_change", text_or_null(model)},
      {"task_change", text_or_null(task)},
      {"data_stream_change", text_or_null(stream)},
      {"dependent_seeds", text_or_null(dependent)},
      {"data_checked", cc.data.checked},
      {"baseline", side_json(cc.baseline_tally(), cc.recall_baseline(), *cc.baseline, cc.median_time_baseline(),
                             cc.time_baseline())},
      {"current", side_json(cc.current_tally(), cc.recall_current(), *cc.current, cc.median_time_current(),
                            cc.time_current())},
      {"lock_in_rate_change", cc.rate_change()},
      {"recall_change", cc.recall_change()},
      {"step_budget", cc.budget},
      {"time_to_lock_in_ratio", cc.time_ratio()},
      {"p", tests(&judge::TestResult::p)},
      {"p_adjusted", tests(&judge::TestResult::p_adjusted)},
      {"primary", primary_json(cc)},
      {"min_attainable_p", cc.min_attainable_p},
      {"level_needed", cc.level_needed},
      {"detectable",
       o.power_analysis
           ? json{{"power", o.target_power}, {"lock_in_from", cc.detectable.lock_in_from},
                  {"lock_in_to", json_number(cc.detectable.lock_in_to)}, {"slowdown", json_number(cc.detectable.slowdown)},
                  {"draws", cc.detectable.draws}}
           : json(nullptr)},
      {"seeds_needed", cc.planning.seeds > 0 ? json(cc.planning.seeds) : json(nullptr)},
      {"planned_lock_in", cc.verdict == Verdict::kInconclusive
                              ? json{{"from", cc.planning.from}, {"to", cc.planning.to}, {"power", cc.planning.power}}
                              : json(nullptr)},
  };
}

json options_json(const GateOptions& o) {
  return {{"alpha", o.alpha}, {"min_lock_in_drop", o.min_lockin_drop},
          {"min_recall_drop", o.min_recall_drop}, {"min_slowdown", o.min_slowdown},
          {"target_power", o.target_power}, {"adjust", stats::adjust_method_name(o.adjust)},
          {"allow_model_change", o.allow_model_change}, {"allow_data_change", o.allow_data_change},
          {"rule", o.rule == GateOptions::Rule::kPaired ? "paired" : "unpaired"},
          {"stage_seeds", o.stage_seeds}, {"max_stages", o.max_stages},
          {"spending", stats::spending_name(o.spending)}, {"futility_p", o.futility_p}};
}

// compare --across-recipes: which baseline config each current config was paired with, and what differs.
json recipe_pairs_json(const std::vector<judge::RecipePair>& pairs) {
  json out = json::array();
  for (const auto& pair : pairs) {
    json fields = json::array();
    for (const auto& d : pair.differences)
      fields.push_back({{"field", d.field}, {"baseline", d.baseline}, {"current", d.current}});
    out.push_back({{"key", pair.current_key}, {"baseline_key", pair.baseline_key}, {"differences", fields}});
  }
  return out;
}

}  // namespace

std::string battery_text(const judge::BatteryTest& b) {
  if (b.left_out)
    return fmt::format("battery: not tested: {} paired configs pooled ({} pairs) have {} untied pairs, and even all of "
                       "them worse gives p = 2^-{} > alpha/{} = {:.3g}, so the battery takes no place in the family "
                       "and each config is judged at alpha/{}",
                       b.configs, b.pairs, b.worse + b.better, b.worse + b.better, b.family, b.level, b.family - 1);
  if (!b.tested) return "";
  if (b.worse + b.better == 0)
    return fmt::format("battery: {}: {} paired configs pooled ({} pairs), every pair tied (at alpha/{} = {:.3g})",
                       judge::verdict_name(b.verdict), b.configs, b.pairs, b.family, b.level);
  std::string parts;
  for (const auto& part : b.parts) parts += "; " + part_text(part);
  return fmt::format("battery: {}: {} paired configs pooled ({} pairs{}), {} of {} untied pairs worse, p = {:.3g} "
                     "(one-sided sign test stratified by config, at alpha/{} = {:.3g}, Bonferroni over the {} configs' "
                     "tests and this one{})",
                     judge::verdict_name(b.verdict), b.configs, b.pairs, b.first_look_only ? ", each config's first look" : "",
                     b.worse, b.worse + b.better, b.p, b.family, b.level, b.family - 1, parts);
}

json battery_json(const judge::BatteryTest& b) {
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json out = {{"tested", b.tested}};
  if (b.left_out) {
    out.update({{"why_not", "its untied pairs cannot reach its level"}, {"configs", b.configs}, {"pairs", b.pairs},
                {"untied", b.worse + b.better}, {"level", b.level}, {"family", b.family}});
    return out;
  }
  if (!b.tested) {
    out["why_not"] = "fewer than two paired configs";
    return out;
  }
  json parts = json::array();
  for (const auto& part : b.parts)
    parts.push_back({{"part", judge::part_name(part.kind)}, {"pairs", part.pairs}, {"worse", part.worse}, {"p", part.p},
                     {"effect", num(part.effect)}, {"bound", num(part.bound)}, {"floor", part.floor}});
  out.update({{"verdict", judge::verdict_name(b.verdict)}, {"configs", b.configs}, {"pairs", b.pairs},
              {"worse", b.worse}, {"better", b.better}, {"p", b.p}, {"p_better", b.p_better}, {"level", b.level},
              {"family", b.family}, {"first_look_only", b.first_look_only}, {"parts", parts}});
  return out;
}

json comparison_to_json(const judge::Comparison& c) {
  json configs = json::array();
  for (const auto& cc : c.configs) configs.push_back(config_comparison_json(cc, c.options));
  const GateCounts counts(c);
  json out = {{"verdict", verdict_name(c.verdict())},
              {"options", options_json(c.options)},
              {"tests", c.tests},
              {"counts",
               {{"regression", counts.regressions}, {"improvement", counts.improvements},
                {"inconclusive", counts.inconclusive}, {"below_minimum_effect", counts.below_minimum},
                {"no_change", counts.unchanged},
                {"model_changed", counts.model_changed}, {"data_changed", counts.data_changed},
                {"data_unchecked", c.data_unchecked()}}},
              {"configs", configs},
              {"missing_in_current", c.missing_in_current},
              {"missing_in_baseline", c.missing_in_baseline},
              {"missing_planned", c.missing_planned},
              {"missing_paired", c.missing_paired},
              {"battery", battery_json(c.battery)},
              {"machine_difference", machine_json(c)},
              {"ties", {{"tied", c.ties().tied}, {"pairs", c.ties().pairs}}},
              {"baseline_context", c.baseline_context}};
  if (!c.recipe_pairs.empty()) out["recipe_pairs"] = recipe_pairs_json(c.recipe_pairs);
  return out;
}

std::string learning_text(const judge::ConfigLearning& l) {
  if (l.not_locked_in == 0) return "–";
  if (l.budget_limited_config())
    return fmt::format("budget-limited {} of {}{}", l.budget_limited, l.not_locked_in,
                       l.suggested_steps > 0 ? fmt::format(" (pilot {} steps)", l.suggested_steps) : "");
  std::vector<std::string> parts;
  if (l.plateaued) parts.push_back(fmt::format("plateaued {}{}", l.plateaued, l.stopped ? fmt::format(" ({} stopped)", l.stopped) : ""));
  if (l.budget_limited) parts.push_back(fmt::format("budget-limited {}", l.budget_limited));
  if (l.unknown) parts.push_back(fmt::format("unknown {}", l.unknown));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace rb::reports
