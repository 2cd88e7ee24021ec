// The claims' verdicts as typed data: matching each side to configs, the test at every depth, the
// depths left out, Holm over the depths, and the verdict with its reason. The rules:
// reports/claims_schema.md.
#include "judge/claims.h"

#include <algorithm>
#include <optional>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "judge/claims_power.h"
#include "judge/summary.h"
#include "stats/stats.h"

namespace rb::judge {
namespace {

bool subset_of(const json& want, const json& have) {
  if (!want.is_object()) return true;
  for (const auto& [k, v] : want.items()) {
    const bool present = have.is_object() && have.contains(k) && !have.at(k).is_null();
    if (v.is_null() ? present : !present || have.at(k) != v)
      return false;  // null: the field is absent
  }
  return true;
}

std::string describe_json(const json& j) {
  std::string out;
  for (const auto& [k, v] : j.items())
    out += fmt::format(" {}:{}", k, v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

constexpr std::pair<Statistic, const char*> kStatistics[] = {
    {Statistic::kFisher, "fisher"},    {Statistic::kMannWhitney, "mann-whitney"},
    {Statistic::kLottery, "lottery"},  {Statistic::kAtMost, "at-most"},
    {Statistic::kAtLeast, "at-least"}, {Statistic::kAllOf, "all-of"}};
constexpr std::pair<Direction, const char*> kDirections[] = {{Direction::kGreater, "greater"},
                                                             {Direction::kLess, "less"},
                                                             {Direction::kNone, "none"},
                                                             {Direction::kNotLess, "not-less"},
                                                             {Direction::kNotGreater, "not-greater"}};

}  // namespace

const char* statistic_name(Statistic statistic) {
  for (const auto& [s, name] : kStatistics)
    if (s == statistic) return name;
  return "?";
}

const char* direction_name(Direction direction) {
  for (const auto& [d, name] : kDirections)
    if (d == direction) return name;
  return "?";
}

std::optional<Statistic> parse_statistic(std::string_view name) {
  for (const auto& [s, n] : kStatistics)
    if (name == n) return s;
  return std::nullopt;
}

std::optional<Direction> parse_direction(std::string_view name) {
  for (const auto& [d, n] : kDirections)
    if (name == n) return d;
  return std::nullopt;
}

const char* claim_outcome_name(ClaimOutcome outcome) {
  switch (outcome) {
    case ClaimOutcome::kNotRun: return "not run";
    case ClaimOutcome::kNotInformative: return "not informative";
    case ClaimOutcome::kReproduced: return "reproduced";
    case ClaimOutcome::kReproducedOnProxy: return "reproduced on a proxy";
    case ClaimOutcome::kReproducedOnSubset: return "reproduced on a subset";
    case ClaimOutcome::kDirectionOnly: return "direction reproduced, size not";
    case ClaimOutcome::kContradicted: return "contradicted";
    case ClaimOutcome::kSizeNotReproduced: return "claimed size not reproduced";
    case ClaimOutcome::kUndecided: return "undecided";
    case ClaimOutcome::kObserved: return "observation";
  }
  return "?";
}

bool reproduced(ClaimOutcome outcome) {
  return outcome == ClaimOutcome::kReproduced || outcome == ClaimOutcome::kReproducedOnProxy ||
         outcome == ClaimOutcome::kReproducedOnSubset;
}

bool ClaimSide::matches(const Config& c) const {
  return c.cell == cell && c.task == task && subset_of(task_options, c.task_options) &&
         subset_of(model, c.model) && subset_of(train, c.train());
}

std::string ClaimSide::describe() const {
  return cell + " on " + task + describe_json(task_options) + describe_json(model) +
         describe_json(train);
}

bool Claim::one_arm() const {
  return statistic == Statistic::kLottery || statistic == Statistic::kAtMost ||
         statistic == Statistic::kAtLeast;
}

bool Claim::equivalence() const {
  return !one_arm() && !all_of() &&
         (direction == Direction::kNone || direction == Direction::kNotLess || direction == Direction::kNotGreater);
}

bool margin_holds(Direction d, double low, double high, double m) {
  if (d == Direction::kNotLess) return low > -m;
  if (d == Direction::kNotGreater) return high < m;
  return low > -m && high < m;
}

bool margin_broken(Direction d, double low, double high, double m) {
  if (d == Direction::kNotLess) return high < -m;
  if (d == Direction::kNotGreater) return low > m;
  return low > m || high < -m;
}

double Claim::claimed_size() const {
  return statistic == Statistic::kFisher ? std::abs(effect_a - effect_b) : shift;
}

double Claim::floor_for(const Config& config) const {
  return floor >= 0 ? floor : 0.5 * config.threshold();
}

std::vector<const ClaimComparison*> ClaimVerdict::informative() const {
  std::vector<const ClaimComparison*> out;
  for (const auto& c : comparisons)
    if (c.informative()) out.push_back(&c);
  return out;
}

std::vector<const ClaimComparison*> ClaimVerdict::sensitivity_depths() const {
  if (verdict == ClaimOutcome::kNotInformative && !comparisons.empty())
    return {&comparisons.front()};
  return informative();
}

namespace {

using ConfigPair = std::pair<const Config*, const Config*>;

// The configs of each side, paired by depth (the value of `over`; one pair when there is no `over`), in
// increasing depth. `set_of` gives each config's results set (its position in verify's list). A key held by
// several sets (the same config recorded twice) is read from one recording where the runs allow it: the latest
// set that holds both arms, else the latest holding each. A side that matches two configs (two keys) at one depth
// is a UsageError.
std::vector<ConfigPair> match_sides(const Claim& claim, const std::vector<const Config*>& configs,
                                    const std::map<const Config*, size_t>& set_of) {
  const std::string w = "claim '" + claim.id + "'";
  // Per depth and side: the configs that match, every recording of one key.
  std::map<std::string, std::pair<std::vector<const Config*>, std::vector<const Config*>>> by_depth;
  for (const Config* c : configs) {
    for (int side = 0; side < 2; ++side) {
      const ClaimSide& s = side == 0 ? claim.a : claim.b;
      if (!s.matches(*c)) continue;
      json depth = nullptr;
      if (!claim.over.empty()) {
        if (!c->task_options.contains(claim.over)) continue;
        depth = c->task_options.at(claim.over);
      }
      auto& slot = by_depth[depth.dump()];
      auto& found = side == 0 ? slot.first : slot.second;
      if (!found.empty() && found.front()->key != c->key)
        throw UsageError(
            fmt::format("{}: side {} ({}) matches two configs{}: {} and {}", w,
                        side == 0 ? "a" : "b", s.describe(),
                        claim.over.empty() ? "" : " at " + claim.over + " " + depth.dump(),
                        found.front()->key, c->key),
            "narrow the side with task_options, model or train fields");
      found.push_back(c);
    }
  }
  std::vector<ConfigPair> pairs;
  for (const auto& [depth, slot] : by_depth) {
    const auto& [as, bs] = slot;
    if (as.empty() || (!claim.one_arm() && bs.empty())) continue;
    ConfigPair pair{as.back(), claim.one_arm() ? nullptr : bs.back()};
    for (const Config* ca : as)  // the latest set holding both arms, if any
      for (const Config* cb : bs)
        if (set_of.at(ca) == set_of.at(cb) &&
            (set_of.at(pair.first) != set_of.at(pair.second) || set_of.at(ca) >= set_of.at(pair.first)))
          pair = {ca, cb};
    pairs.push_back(pair);
  }
  std::sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
    if (claim.over.empty()) return false;
    const json& a = x.first->task_options.at(claim.over);
    const json& b = y.first->task_options.at(claim.over);
    return a.is_number() && b.is_number() ? a.get<double>() < b.get<double>() : a.dump() < b.dump();
  });
  return pairs;
}

stats::Alternative flip(stats::Alternative alt) {
  return alt == stats::Alternative::kGreater ? stats::Alternative::kLess
                                             : stats::Alternative::kGreater;
}

// p of the claim's test in its expected (or the opposite) direction. Two-sided claims count a
// two-sided p only on the side the data fall (the other side gets 1).
struct SidedP {
  double expected = 1.0, opposite = 1.0;
};
template <class OneSided>
SidedP sided_p(const Claim& claim, OneSided p_of) {
  if (claim.direction == Direction::kNone) {
    const double p = p_of(stats::Alternative::kTwoSided);
    return {p, p};
  }
  const stats::Alternative up = claim.direction == Direction::kLess || claim.direction == Direction::kNotGreater
                                    ? stats::Alternative::kLess
                                    : stats::Alternative::kGreater;
  const double pe = p_of(up), po = p_of(flip(up));
  if (claim.sided == 1) return {pe, po};
  const double two = p_of(stats::Alternative::kTwoSided);
  return pe <= po ? SidedP{two, 1.0}
                  : SidedP{1.0, two};  // the side the data fall on, not a rejection
}

// The best accuracy a seed reached (final or best held-out; not finite counts as 0).
double best_of(const SeedOutcome& s) {
  return std::max(std::isfinite(s.best_accuracy) ? s.best_accuracy : 0.0,
                  std::isfinite(s.final_accuracy) ? s.final_accuracy : 0.0);
}

// MQAR dense against sparse labels with zero filler, the task otherwise the same: the same labels.
bool vacuous_setting(const Config& a, const Config& b) {
  const auto opts_without = [](json o, const char* key) {
    o.erase(key);
    return o;
  };
  return a.task == "mqar" && b.task == "mqar" &&
         a.task_options.value("supervision", json("sparse")) !=
             b.task_options.value("supervision", json("sparse")) &&
         a.task_options.value("filler", json("zero")) == "zero" &&
         b.task_options.value("filler", json("zero")) == "zero" &&
         opts_without(a.task_options, "supervision") == opts_without(b.task_options, "supervision");
}

// Seeds of `c` that never learned: not locked in, best recall below `floor`.
int64_t failed_seeds(const Config& c, double floor) {
  int64_t n = 0;
  for (const auto& s : c.seeds) n += !s.locked_in() && best_of(s) < floor ? 1 : 0;
  return n;
}

// Whether a depth can separate the arms (DepthReason), with the floor's numbers for recall claims, and
// whether a recall tie is tested on lock-in counts instead (lottery-shaped arms).
void set_depth_reason(const Claim& claim, const Config& a, const Config& b, ClaimComparison& cmp) {
  cmp.reason = DepthReason::kInformative;
  const bool recall = claim.statistic == Statistic::kMannWhitney;
  if (recall) {
    cmp.floor = claim.floor_for(a);
    cmp.failed_a = failed_seeds(a, cmp.floor), cmp.failed_b = failed_seeds(b, cmp.floor);
    // An arm where some seeds lock in and others never learn is bimodal, not at a floor: its median compares
    // neither mode. A tie on such arms is a tie of lock-in rates (issue 45).
    const auto bimodal = [](int64_t k, int64_t failed) { return k >= 1 && failed >= 1; };
    cmp.on_lock_in = claim.equivalence() && (bimodal(cmp.k_a, cmp.failed_a) || bimodal(cmp.k_b, cmp.failed_b));
  }
  if (vacuous_setting(a, b)) {
    cmp.reason = DepthReason::kVacuousSetting;
  } else if (!recall || cmp.on_lock_in) {
    if (cmp.k_a == 0 && cmp.k_b == 0)
      cmp.reason = DepthReason::kFloor;
    else if (cmp.k_a == cmp.n_a && cmp.k_b == cmp.n_b)
      cmp.reason = DepthReason::kCeiling;
  } else if (2 * cmp.k_a >= cmp.n_a && 2 * cmp.k_b >= cmp.n_b) {
    // Most seeds of both arms lock in and stop there: their recalls are stopping points.
    cmp.reason = DepthReason::kCeiling;
  } else if (2 * cmp.failed_a >= cmp.n_a && cmp.k_a == 0 && 2 * cmp.failed_b >= cmp.n_b && cmp.k_b == 0) {
    // The mirror of the ceiling: most seeds of both arms never learn and none locks in, so the medians and the
    // shift compare failures.
    cmp.reason = DepthReason::kFloor;
  }
  // A floor that the schedule made: the failed runs of an arm were still improving when it ended.
  cmp.learning_a = config_learning(a), cmp.learning_b = config_learning(b);
  if (cmp.reason == DepthReason::kFloor &&
      (cmp.learning_a.budget_limited_config() || cmp.learning_b.budget_limited_config())) {
    cmp.reason = DepthReason::kBudgetLimited;
    cmp.suggested_steps = std::max(cmp.learning_a.suggested_steps, cmp.learning_b.suggested_steps);
  }
  // A tie or "not worse than b" against a comparator that does not function is vacuous.
  // ("a no better than b" against a failing b is tested: a that works contradicts it.)
  if (cmp.reason == DepthReason::kInformative && claim.equivalence() && claim.direction != Direction::kNotGreater &&
      cmp.k_b == 0) {
    const bool fails = claim.statistic == Statistic::kFisher || cmp.on_lock_in || 2 * cmp.failed_b >= cmp.n_b;
    if (fails) cmp.reason = DepthReason::kComparatorFails;
  }
}

// Counts and p at the stated threshold and below it, 0.1 apart down to half of it.
std::vector<ClaimComparison::AtThreshold> threshold_sensitivity(const Claim& claim, const Config& a,
                                                                const Config& b) {
  std::vector<ClaimComparison::AtThreshold> out;
  const double stated = a.threshold();
  const auto count = [](const Config& c, double t, bool at_stated) {
    int64_t k = 0;
    for (const auto& s : c.seeds)
      k += s.locked_in() ||
                   (!at_stated && s.ok() && std::isfinite(s.best_accuracy) && s.best_accuracy >= t)
               ? 1
               : 0;
    return k;
  };
  std::vector<double> ladder{stated};  // then the round tenths below it, down to half of it
  for (double t = std::ceil(stated * 10 - 1) / 10; t >= 0.5 * stated - 1e-9; t -= 0.1)
    if (t < stated - 1e-9) ladder.push_back(std::round(t * 10) / 10);
  const int64_t n_a = static_cast<int64_t>(a.seeds.size()),
                n_b = static_cast<int64_t>(b.seeds.size());
  for (size_t i = 0; i < ladder.size(); ++i) {
    ClaimComparison::AtThreshold at;
    at.threshold = ladder[i];
    at.k_a = count(a, at.threshold, i == 0);
    at.k_b = count(b, at.threshold, i == 0);
    const stats::Table2x2 table{at.k_a, n_a - at.k_a, at.k_b, n_b - at.k_b};
    at.p = sided_p(claim, [&](stats::Alternative alt) {
             return stats::fisher_p_value(table, alt);
           }).expected;
    out.push_back(at);
  }
  return out;
}

// The claim's test at one depth in its expected and opposite directions, and the interval for a −
// b.
void test_pair(const Claim& claim, const Config& a, const Config& b, double level,
               ClaimComparison& cmp) {
  SidedP p;
  if (claim.statistic == Statistic::kFisher || cmp.on_lock_in) {
    const stats::Table2x2 t{cmp.k_a, cmp.n_a - cmp.k_a, cmp.k_b, cmp.n_b - cmp.k_b};
    p = sided_p(claim, [&](stats::Alternative alt) { return stats::fisher_p_value(t, alt); });
    const stats::Interval i = stats::newcombe_difference(cmp.k_a, cmp.n_a, cmp.k_b, cmp.n_b, level);
    cmp.effect = tally(a).rate() - tally(b).rate(), cmp.low = i.low, cmp.high = i.high;
    cmp.sensitivity = threshold_sensitivity(claim, a, b);
  } else {
    const auto ra = recalls(a), rb = recalls(b);
    p = sided_p(claim,
                [&](stats::Alternative alt) { return stats::mann_whitney_u(ra, rb, alt).p_value; });
    const stats::ShiftEstimate e = stats::hodges_lehmann(ra, rb, level);
    cmp.effect = e.estimate, cmp.low = std::max(-1.0, e.low), cmp.high = std::min(1.0, e.high);
  }
  cmp.p_expected = p.expected;
  cmp.p_opposite = p.opposite;
}

// The claim as a tie of lock-in rates with its lock-in margin: how a recall tie on lottery-shaped arms is
// tested.
Claim on_lock_in_counts(const Claim& claim) {
  Claim c = claim;
  c.statistic = Statistic::kFisher;
  c.effect_a = claim.lock_in_margin, c.effect_b = 0.0;  // claimed_size(): the margin
  return c;
}

// The part of a quoted recall shift that runs which stop at the lock-in threshold can show: "0.021 → 1.000"
// is at most 0.9 − 0.021 when training stops at 0.9.
std::optional<double> observable_shift(const Claim& claim, const Config& a, const Config& b) {
  if (!claim.quoted) return std::nullopt;
  const auto [qa, qb] = *claim.quoted;
  if (qa <= a.threshold() && qb <= b.threshold()) return std::nullopt;
  return std::max(0.0, std::min(claim.shift, std::min(qa, a.threshold()) - std::min(qb, b.threshold())));
}

// One depth: the counts, whether the depth can separate the arms, the test, the interval and the
// power.
ClaimComparison compare_pair(const Claim& stated, const ConfigPair& pair, double alpha_each) {
  const auto& [a, b] = pair;
  ClaimComparison cmp;
  cmp.depth = stated.over.empty() ? json(nullptr) : a->task_options.at(stated.over);
  cmp.key_a = a->key;
  cmp.key_b = b->key;
  const ConfigSummary sa = summarize(*a), sb = summarize(*b);
  cmp.k_a = sa.k, cmp.n_a = sa.n, cmp.k_b = sb.k, cmp.n_b = sb.n;
  cmp.recall_a = sa.recall.median, cmp.recall_b = sb.recall.median;
  set_depth_reason(stated, *a, *b, cmp);
  // The test this depth runs: the stated one, on lock-in counts for lottery-shaped ties, or with the
  // observable part of a quoted size.
  Claim claim = cmp.on_lock_in ? on_lock_in_counts(stated) : stated;
  if (const auto shift = observable_shift(stated, *a, *b)) {
    claim.shift = *shift;
    cmp.size_capped = true;
    cmp.stop_level = a->threshold();
  }
  cmp.size = claim.claimed_size();
  // The interval's level follows the test: a one-sided test at alpha (and an equivalence test, two one-sided
  // tests) pairs with the 1 − 2·alpha interval, a two-sided test at alpha (and an observation's two-sided p)
  // with the 1 − alpha interval.
  cmp.interval_level = claim.sided == 2 || claim.observation ? 1.0 - alpha_each : 1.0 - 2.0 * alpha_each;
  test_pair(claim, *a, *b, cmp.interval_level, cmp);
  if (claim.equivalence())
    cmp.power = detail::equivalence_power(
        claim, *a, *b, static_cast<double>(sa.k + sb.k) / std::max<int64_t>(sa.n + sb.n, 1), sa.n,
        sb.n, alpha_each);
  else
    cmp.power = detail::directional_power(claim, recalls(*b), sa.n, sb.n, alpha_each);
  return cmp;
}

// Holm over the informative depths in each direction (into p_expected_adj, p_opposite_adj); whether
// every such depth is significant as expected and whether any is the other way.
std::pair<bool, bool> holm_over(std::vector<ClaimComparison>& comparisons, double alpha) {
  std::vector<ClaimComparison*> used;
  std::vector<double> pe, po;
  for (auto& c : comparisons)
    if (c.informative()) used.push_back(&c), pe.push_back(c.p_expected), po.push_back(c.p_opposite);
  const auto pe_adj = stats::p_adjust(pe, stats::AdjustMethod::kHolm);
  const auto po_adj = stats::p_adjust(po, stats::AdjustMethod::kHolm);
  bool all_expected = true, any_opposite = false;
  for (size_t i = 0; i < used.size(); ++i) {
    used[i]->p_expected_adj = pe_adj[i];
    used[i]->p_opposite_adj = po_adj[i];
    all_expected = all_expected && stats::significant(pe_adj[i], alpha);
    any_opposite = any_opposite || stats::significant(po_adj[i], alpha);
  }
  return {all_expected, any_opposite};
}

// The smallest power over the informative depths (1 when there are none).
double min_power(const ClaimVerdict& v) {
  double power = 1.0;
  for (const ClaimComparison* c : v.informative()) power = std::min(power, c->power);
  return power;
}

// Whether the significance at some threshold differs from the stated threshold's, over the depths
// the verdict's sensitivity covers.
bool threshold_hangs(const ClaimVerdict& v, double alpha) {
  for (const ClaimComparison* c : v.sensitivity_depths()) {
    if (c->sensitivity.empty()) continue;
    const bool at_stated = stats::significant(c->sensitivity.front().p, alpha);
    for (const auto& at : c->sensitivity)
      if (stats::significant(at.p, alpha) != at_stated) return true;
  }
  return false;
}

ClaimVerdict not_run(const Claim& claim) {
  ClaimVerdict v;
  v.claim = &claim;
  v.verdict = ClaimOutcome::kNotRun;
  v.reason = claim.needs.empty() ? ClaimReason::kNoResults : ClaimReason::kNeedsScale;
  return v;
}

// Whether every informative depth's interval lies inside the margin, and whether any lies outside
// it.
std::pair<bool, bool> against_margin(const Claim& claim, const ClaimVerdict& v) {
  bool all_inside = true, any_outside = false;
  for (const ClaimComparison* c : v.informative()) {
    all_inside = all_inside && margin_holds(claim.direction, c->low, c->high, c->size);
    any_outside = any_outside || margin_broken(claim.direction, c->low, c->high, c->size);
  }
  return {all_inside, any_outside};
}

// Whether some informative depth's interval ends short of the claimed size on the expected side.
bool size_ruled_out(const Claim& claim, const ClaimVerdict& v) {
  for (const ClaimComparison* c : v.informative()) {
    // How far the interval reaches in the expected direction.
    const double reach = claim.direction == Direction::kLess ? -c->low : c->high;
    if (reach < c->size) return true;
  }
  return false;
}

// A two-arm claim's verdict from its informative depths (Holm-adjusted already).
ClaimOutcome two_arm_outcome(const Claim& claim, const ClaimVerdict& v, bool all_expected,
                             bool any_opposite) {
  if (claim.equivalence()) {
    const auto [all_inside, any_outside] = against_margin(claim, v);
    return all_inside    ? ClaimOutcome::kReproduced
           : any_outside ? ClaimOutcome::kContradicted
                         : ClaimOutcome::kUndecided;
  }
  if (all_expected)
    return size_ruled_out(claim, v) ? ClaimOutcome::kDirectionOnly : ClaimOutcome::kReproduced;
  if (any_opposite) return ClaimOutcome::kContradicted;
  return v.power >= kClaimPower ? ClaimOutcome::kSizeNotReproduced : ClaimOutcome::kUndecided;
}

// A proxy claim is at most reproduced on a proxy: the sentence was not tested in its own terms.
ClaimOutcome on_proxy(const Claim& claim, ClaimOutcome outcome) {
  return !claim.proxy.empty() && outcome == ClaimOutcome::kReproduced ? ClaimOutcome::kReproducedOnProxy
                                                                      : outcome;
}

// And a proxy caps a negative verdict the same way: contradicted or claimed size not reproduced in a setting the
// claim itself says is not the sentence's is not informative about the sentence (the tests' verdict is kept in
// capped_from).
void cap_negative_on_proxy(const Claim& claim, ClaimVerdict& v) {
  if (claim.proxy.empty() ||
      (v.verdict != ClaimOutcome::kContradicted && v.verdict != ClaimOutcome::kSizeNotReproduced))
    return;
  v.capped_from = v.verdict;
  v.verdict = ClaimOutcome::kNotInformative;
  v.reason = ClaimReason::kProxyNegative;
}

// An arm that was still learning: most of its seeds did not lock in, and most of those were budget-limited.
bool still_learning(const ConfigLearning& l, int64_t n) {
  return l.budget_limited_config() && 2 * l.not_locked_in > n;
}

// A verdict that rests on an arm not doing better says nothing where that arm was still learning when its
// budget ended: "a no better than b" (reproduced not-greater), a tie, or "a does not beat b" (contradicted or
// claimed size not reproduced, greater) may be the schedule's. Capped to not informative (budget-limited), as a
// proxy caps a negative verdict; a verdict resting on an arm doing better (a reproduced greater claim, a
// contradicted tie) stands. Two-arm claims, at their informative depths.
void cap_on_budget(const Claim& claim, ClaimVerdict& v) {
  if (claim.one_arm() || claim.observation || (v.reason != ClaimReason::kTested && v.reason != ClaimReason::kUnderpowered))
    return;
  const bool held = reproduced(v.verdict);
  const bool negative = v.verdict == ClaimOutcome::kContradicted || v.verdict == ClaimOutcome::kSizeNotReproduced;
  bool rests_a = false, rests_b = false;  // the arms whose not doing better the verdict rests on
  switch (claim.direction) {
    case Direction::kGreater: rests_a = negative; break;
    case Direction::kLess: rests_b = negative; break;
    case Direction::kNotGreater: rests_a = held; break;
    case Direction::kNotLess: rests_b = held; break;
    case Direction::kNone: rests_a = rests_b = held; break;
  }
  int64_t steps = 0;
  bool capped = false;
  for (const auto& c : v.comparisons) {
    if (!c.informative()) continue;
    if (rests_a && still_learning(c.learning_a, c.n_a))
      capped = true, steps = std::max(steps, c.learning_a.suggested_steps);
    if (rests_b && still_learning(c.learning_b, c.n_b))
      capped = true, steps = std::max(steps, c.learning_b.suggested_steps);
  }
  if (!capped) return;
  v.capped_from = v.verdict;
  v.verdict = ClaimOutcome::kNotInformative;
  v.reason = ClaimReason::kBudgetLimited;
  v.suggested_steps = steps;
  v.seeds_needed = 0;
}

// Claim::gap_side: whether this depth has a gap to explain, b significantly better than the gap side there
// (one-sided, in the claim's statistic, at the depth's level); kNoGap where not, or where the gap side was not
// run at this depth. `gap` holds (gap side, b) per depth.
void check_gap(const Claim& claim, const std::vector<ConfigPair>& gap, double alpha_each, ClaimComparison& cmp) {
  const ConfigPair* at = nullptr;
  for (const auto& g : gap)
    if (g.second && g.second->key == cmp.key_b) at = &g;
  if (!at) {
    if (cmp.informative()) cmp.reason = DepthReason::kNoGap;
    return;
  }
  const Config &c = *at->first, &b = *at->second;
  const ConfigSummary sc = summarize(c), sb = summarize(b);
  cmp.key_gap = c.key;
  cmp.k_gap = sc.k, cmp.n_gap = sc.n, cmp.recall_gap = sc.recall.median;
  if (claim.statistic == Statistic::kFisher) {
    const stats::Table2x2 t{sb.k, sb.n - sb.k, sc.k, sc.n - sc.k};
    cmp.p_gap = stats::fisher_p_value(t, stats::Alternative::kGreater);
    cmp.gap = tally(b).rate() - tally(c).rate();
  } else {
    cmp.p_gap = stats::mann_whitney_u(recalls(b), recalls(c), stats::Alternative::kGreater).p_value;
    cmp.gap = stats::hodges_lehmann(recalls(b), recalls(c), 0.9).estimate;
  }
  // A gap smaller than the claim's own margin is none at the claim's resolution, significant or not.
  if (cmp.informative() && (!stats::significant(cmp.p_gap, alpha_each) || cmp.gap < claim.claimed_size()))
    cmp.reason = DepthReason::kNoGap;
}

ClaimVerdict judge_two_arm(const Claim& claim, const std::vector<ConfigPair>& pairs,
                           const std::vector<ConfigPair>& gap) {
  if (pairs.empty()) return not_run(claim);
  ClaimVerdict v;
  v.claim = &claim;
  const double alpha_each = claim.alpha / static_cast<double>(pairs.size());
  for (const auto& pair : pairs) {
    v.comparisons.push_back(compare_pair(claim, pair, alpha_each));
    if (claim.gap_side) check_gap(claim, gap, alpha_each, v.comparisons.back());
  }
  if (v.informative().empty()) {
    v.verdict = ClaimOutcome::kNotInformative;
    v.reason = ClaimReason::kEveryDepthLeftOut;
  } else if (claim.observation) {
    holm_over(v.comparisons, claim.alpha);
    v.power = min_power(v);
    v.verdict = ClaimOutcome::kObserved;
    v.reason = ClaimReason::kObservation;
  } else {
    const auto [all_expected, any_opposite] = holm_over(v.comparisons, claim.alpha);
    v.power = min_power(v);
    v.verdict = on_proxy(claim, two_arm_outcome(claim, v, all_expected, any_opposite));
    v.reason = ClaimReason::kTested;
    if (v.verdict == ClaimOutcome::kUndecided) {
      v.reason = ClaimReason::kUnderpowered;
      // The seeds the limiting depth needs: the informative one with the least power (the comparisons are in the
      // pairs' order). A depth left out (at a ceiling, say) would answer with seeds it needs for nothing.
      size_t at = 0;
      for (size_t i = 0; i < v.comparisons.size(); ++i)
        if (v.comparisons[i].informative() &&
            (!v.comparisons[at].informative() || v.comparisons[i].power < v.comparisons[at].power))
          at = i;
      const ClaimComparison& limiting = v.comparisons[at];
      Claim as_tested = limiting.on_lock_in ? on_lock_in_counts(claim) : claim;
      if (limiting.size_capped) as_tested.shift = limiting.size;
      v.seeds_needed = detail::seeds_needed(as_tested, *pairs[at].first, *pairs[at].second, limiting.n_a,
                                            alpha_each);
    }
    cap_negative_on_proxy(claim, v);
    cap_on_budget(claim, v);
  }
  v.threshold_hangs = threshold_hangs(v, claim.alpha);
  return v;
}

// One depth of a one-arm claim: the seeds in between (lottery), above the level (at-most) or below
// it (at-least), tested against the null share `p0` (the lottery's bound, else a half).
ClaimComparison compare_one_arm(const Claim& claim, const Config& a, double p0, double alpha_each,
                                const ChanceOf& chance_of) {
  ClaimComparison c;
  c.depth = claim.over.empty() ? json(nullptr) : a.task_options.at(claim.over);
  c.key_a = a.key;
  const ConfigSummary sa = summarize(a);
  c.n_a = sa.n;
  c.recall_a = sa.recall.median;
  c.floor = claim.floor_for(a);
  c.level = claim.bound;
  if (claim.above_chance || claim.floor_above_chance) {
    const std::optional<double> chance = chance_of ? chance_of(a) : std::nullopt;
    if (!chance)
      throw UsageError(fmt::format("claim '{}': the task {} of {} has no chance level, so '{}' cannot set the "
                                   "claim's {}",
                                   claim.id, a.task, a.key, claim.above_chance ? "above_chance" : "floor_above_chance",
                                   claim.above_chance ? "level" : "floor"),
                       claim.above_chance ? "give the level as effect.recall" : "give the floor as 'floor'");
    c.chance = *chance;
    if (claim.above_chance) c.level = std::min(1.0, *chance + *claim.above_chance);
    if (claim.floor_above_chance) c.floor = std::min(1.0, *chance + *claim.floor_above_chance);
  }
  // The lottery's count at a floor: the seeds that learned (best recall at or above it) and never locked in.
  const auto in_between = [&](double floor) {
    int64_t k = 0;
    for (const auto& s : a.seeds) k += !s.locked_in() && best_of(s) >= floor ? 1 : 0;
    return k;
  };
  int64_t learned = 0;
  for (const auto& s : a.seeds) {
    const bool finite = std::isfinite(s.final_accuracy);
    learned += s.locked_in() || best_of(s) >= c.floor ? 1 : 0;
    if (claim.statistic == Statistic::kAtMost)
      c.k_a += finite && s.final_accuracy > c.level ? 1 : 0;
    else if (claim.statistic == Statistic::kAtLeast)
      c.k_a += !(finite && s.final_accuracy >= c.level) ? 1 : 0;  // at-least: below the level
  }
  if (claim.statistic == Statistic::kLottery) c.k_a = in_between(c.floor);
  c.learning_a = config_learning(a);
  if (claim.statistic == Statistic::kLottery && learned == 0)
    c.reason = c.learning_a.budget_limited_config() ? DepthReason::kBudgetLimited : DepthReason::kFloor;
  if (c.reason == DepthReason::kBudgetLimited) c.suggested_steps = c.learning_a.suggested_steps;
  else if (claim.statistic == Statistic::kLottery && sa.k == sa.n)
    c.reason = DepthReason::kCeiling;
  // A load claim ("degrade gracefully with load": at least a level at every load) where every seed of a load
  // locked in: training stopped at the threshold there, so no degradation could show at that load (issue 61).
  else if (claim.statistic == Statistic::kAtLeast && !claim.over.empty() && sa.n > 0 && sa.k == sa.n)
    c.reason = DepthReason::kCeiling;
  // The lottery's floor sensitivity: the count at the stated floor, then at chance + 0.05, 0.1, 0.2, 0.3 and at
  // half the lock-in threshold (where the task has a chance), each with its one-sided p against the bound.
  if (claim.statistic == Statistic::kLottery) {
    std::vector<double> floors{c.floor};
    if (c.chance >= 0)
      for (double m : {0.05, 0.1, 0.2, 0.3}) floors.push_back(std::min(1.0, c.chance + m));
    floors.push_back(0.5 * a.threshold());
    for (size_t i = 0; i < floors.size(); ++i) {
      if (i > 0 && std::any_of(floors.begin(), floors.begin() + static_cast<std::ptrdiff_t>(i),
                               [&](double f) { return std::fabs(f - floors[i]) < 1e-9; }))
        continue;
      ClaimComparison::AtThreshold at;
      at.threshold = floors[i];
      at.k_a = in_between(floors[i]);
      at.p = stats::binom_test(at.k_a, sa.n, p0, stats::Alternative::kLess).p_value;
      c.sensitivity.push_back(at);
    }
    if (c.sensitivity.size() < 2) c.sensitivity.clear();  // one floor only (no chance known): nothing to compare
  }
  c.p_expected = stats::binom_test(c.k_a, c.n_a, p0, stats::Alternative::kLess).p_value;
  c.p_opposite = stats::binom_test(c.k_a, c.n_a, p0, stats::Alternative::kGreater).p_value;
  const stats::Interval ci = stats::clopper_pearson(c.k_a, c.n_a, 1.0 - 2.0 * alpha_each);
  c.effect = static_cast<double>(c.k_a) / c.n_a, c.low = ci.low, c.high = ci.high;
  // Power when nothing sits in between (lottery) or every seed is on the claimed side of the level:
  // whether k = 0 is significant with these seeds.
  c.power = detail::one_arm_power(c.n_a, p0, alpha_each);
  return c;
}

// One-arm claims: the lottery's middle share, or recall at most (at least) a level.
ClaimVerdict judge_one_arm(const Claim& claim, const std::vector<ConfigPair>& pairs, const ChanceOf& chance) {
  if (pairs.empty()) return not_run(claim);
  ClaimVerdict v;
  v.claim = &claim;
  const double alpha_each = claim.alpha / static_cast<double>(pairs.size());
  const double p0 = claim.statistic == Statistic::kLottery ? claim.bound : 0.5;
  for (const auto& pair : pairs)
    v.comparisons.push_back(compare_one_arm(claim, *pair.first, p0, alpha_each, chance));
  if (v.informative().empty()) {
    v.verdict = ClaimOutcome::kNotInformative;
    v.reason = ClaimReason::kEveryDepthLeftOut;
    return v;
  }
  const auto [all_expected, any_opposite] = holm_over(v.comparisons, claim.alpha);
  v.power = min_power(v);
  if (claim.observation) {
    v.verdict = ClaimOutcome::kObserved;
    v.reason = ClaimReason::kObservation;
    return v;
  }
  v.verdict = all_expected   ? ClaimOutcome::kReproduced
              : any_opposite ? ClaimOutcome::kContradicted
                             : ClaimOutcome::kUndecided;
  v.verdict = on_proxy(claim, v.verdict);
  v.reason = ClaimReason::kTested;
  if (v.verdict == ClaimOutcome::kUndecided) {
    v.reason = ClaimReason::kUnderpowered;
    v.seeds_needed = detail::one_arm_seeds_needed(p0, alpha_each);
  }
  cap_negative_on_proxy(claim, v);
  v.threshold_hangs = threshold_hangs(v, claim.alpha);
  return v;
}

// The conjunction of other claims' verdicts.
ClaimVerdict judge_all_of(const Claim& claim, const std::vector<ClaimVerdict>& verdicts) {
  ClaimVerdict v;
  v.claim = &claim;
  v.reason = ClaimReason::kParts;
  for (const std::string& id : claim.of)
    for (const auto& p : verdicts)
      if (p.claim && p.claim->id == id)
        v.parts.push_back({id, p.verdict,
                           p.reason == ClaimReason::kPremiseUnmet && p.premise &&
                               p.premise->verdict == ClaimOutcome::kContradicted});
  // The weakest informative part decides (a conjunction is as strong as its weakest tested part): contradicted,
  // then claimed size not reproduced, undecided, direction only, reproduced on a proxy, reproduced. Parts that were not run or are not
  // informative do not hide a weaker tested part (an undecided part beside a not-informative one: undecided),
  // but they keep a conjunction from being reproduced, even in direction. A part outside the scope (its
  // premise contradicted: the cell does not solve what the sentence's cells solve) drops out; when every part
  // does, no cell is one the sentence speaks of, and the conjunction is not informative.
  const auto strength = [](ClaimOutcome o) {
    switch (o) {
      case ClaimOutcome::kContradicted: return 0;
      case ClaimOutcome::kSizeNotReproduced: return 1;
      case ClaimOutcome::kUndecided: return 2;
      case ClaimOutcome::kDirectionOnly: return 3;
      case ClaimOutcome::kReproducedOnProxy:
      case ClaimOutcome::kReproducedOnSubset: return 4;
      case ClaimOutcome::kReproduced: return 5;
      case ClaimOutcome::kNotRun:
      case ClaimOutcome::kNotInformative:
      case ClaimOutcome::kObserved: return -1;
    }
    return -1;
  };
  std::optional<ClaimOutcome> weakest;
  bool not_run = false, not_informative = false;
  bool any_in_scope = false, left_out = false;
  for (const auto& p : v.parts) {
    if (p.outside) {
      left_out = true;
      continue;
    }
    any_in_scope = true;
    if (strength(p.verdict) < 0) {
      (p.verdict == ClaimOutcome::kNotRun ? not_run : not_informative) = true;
      continue;
    }
    if (!weakest || strength(p.verdict) < strength(*weakest)) weakest = p.verdict;
  }
  const ClaimOutcome untested = any_in_scope && not_run ? ClaimOutcome::kNotRun : ClaimOutcome::kNotInformative;
  if (!weakest)
    v.verdict = untested;
  else if ((not_run || not_informative) && strength(*weakest) > strength(ClaimOutcome::kUndecided))
    v.verdict = untested;
  else
    v.verdict = on_proxy(claim, *weakest);
  // Reproduced with parts left out (outside the sentence): reproduced on the subset that is in it.
  if (left_out && (v.verdict == ClaimOutcome::kReproduced || v.verdict == ClaimOutcome::kReproducedOnProxy))
    v.verdict = ClaimOutcome::kReproducedOnSubset;
  return v;
}

// "seed-claims-results.json: commits 0901fd9 … (15), Intel(R) Xeon(R) Processor": where a results set's runs
// come from. Two sets with the same commits and CPU are one recording, whatever their files.
std::string recording_commits(const RunSet& r) {
  std::vector<std::string> commits;
  if (r.commits.is_array())
    for (const auto& c : r.commits)
      if (c.is_string()) commits.push_back(c.get<std::string>().substr(0, 7) + (c.get<std::string>().find("-dirty") != std::string::npos ? "+" : ""));
  std::sort(commits.begin(), commits.end());
  commits.erase(std::unique(commits.begin(), commits.end()), commits.end());
  if (commits.empty()) return "commit not recorded";
  return commits.size() == 1 ? "commit " + commits[0]
                             : fmt::format("commits {} … ({})", commits.front(), commits.size());
}

std::string recording_label(const RunSet& r) {
  const json& ctx = r.context;
  const std::string cpu = ctx.is_object() && ctx.contains("cpu_isa") && ctx["cpu_isa"].is_string()
                              ? ctx["cpu_isa"].get<std::string>().substr(0, ctx["cpu_isa"].get<std::string>().find(' '))
                          : ctx.is_object() && ctx.contains("cpu_model") && ctx["cpu_model"].is_string()
                              ? ctx["cpu_model"].get<std::string>()
                              : std::string("CPU not recorded");
  return recording_commits(r) + ", " + cpu;
}

// Each comparison's recordings (the labels of the sets its configs were read from), and whether some pair's
// arms come from different ones. The comparisons are in the pairs' order.
void mark_recordings(ClaimVerdict& v, const std::vector<ConfigPair>& pairs,
                     const std::map<const Config*, std::string>& recording) {
  for (size_t i = 0; i < v.comparisons.size() && i < pairs.size(); ++i) {
    auto& c = v.comparisons[i];
    c.recording_a = recording.at(pairs[i].first);
    if (pairs[i].second) c.recording_b = recording.at(pairs[i].second);
    v.mixed_recordings = v.mixed_recordings || (pairs[i].second && c.recording_a != c.recording_b);
  }
}

// A claim about cells (or settings) that meet a premise, where the premise claim is not reproduced: not
// informative, or not run when the premise was not run. Its own tests stay in `comparisons`, for the record.
void apply_premise(const Claim& claim, const std::vector<ClaimVerdict>& verdicts, ClaimVerdict& v) {
  for (const auto& p : verdicts)
    if (p.claim && p.claim->id == claim.premise) v.premise = ClaimPart{p.claim->id, p.verdict};
  if (!v.premise || reproduced(v.premise->verdict))
    return;
  v.verdict = v.premise->verdict == ClaimOutcome::kNotRun ? ClaimOutcome::kNotRun : ClaimOutcome::kNotInformative;
  v.reason = ClaimReason::kPremiseUnmet;
  v.seeds_needed = 0;
}

}  // namespace

std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results,
                                        const ChanceOf& chance) {
  std::vector<const Config*> configs;
  std::map<const Config*, std::string> recording;
  std::map<const Config*, size_t> set_of;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string label = recording_label(results[i]);
    for (const auto& c : results[i].configs) configs.push_back(&c), recording[&c] = label, set_of[&c] = i;
  }
  std::vector<ClaimVerdict> out;
  for (const auto& claim : set.claims) {
    if (claim.all_of()) {
      out.emplace_back();  // after its parts
      continue;
    }
    const std::vector<ConfigPair> pairs = match_sides(claim, configs, set_of);
    std::vector<ConfigPair> gap;  // (gap side, b) per depth
    if (claim.gap_side) {
      Claim g = claim;
      g.a = *claim.gap_side;
      gap = match_sides(g, configs, set_of);
    }
    out.push_back(claim.one_arm() ? judge_one_arm(claim, pairs, chance) : judge_two_arm(claim, pairs, gap));
    mark_recordings(out.back(), pairs, recording);
  }
  for (size_t i = 0; i < set.claims.size(); ++i)
    if (!set.claims[i].premise.empty()) apply_premise(set.claims[i], out, out[i]);
  for (size_t i = 0; i < set.claims.size(); ++i)
    if (set.claims[i].all_of()) out[i] = judge_all_of(set.claims[i], out);
  return out;
}

int verify_exit_code(const std::vector<ClaimVerdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.claim->gate && !reproduced(v.verdict))
      return 1;
  return 0;
}

}  // namespace rb::judge
