// The claims' verdicts narrated (see claims.h): every sentence about a verdict is written here,
// from judge/claims.h's typed verdicts; the JSON, the text, the page and the table read the same
// sentences.
#include "reports/claims.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/document.h"
#include "reports/gate_text.h"
#include "reports/html_parts.h"
#include "reports/report.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

using judge::Claim;
using judge::ClaimComparison;
using judge::ClaimReason;
using judge::DepthReason;
using judge::Direction;
using judge::Statistic;

// "pairs=8: " before a depth's figures; "" without `over`.
std::string depth_prefix(const Claim& claim, const ClaimComparison& c) {
  return c.depth.is_null() ? "" : fmt::format("{}={}: ", claim.over, c.depth.dump());
}

// What a one-arm claim counts: "in between", "above" or "below" (the level).
const char* one_arm_counted(const Claim& claim) {
  return claim.statistic == Statistic::kLottery  ? "in between"
         : claim.statistic == Statistic::kAtMost ? "above"
                                                 : "below";
}

// The direction as the verdicts JSON writes it: a two-arm claim's name, "one-arm" or "all"
// (all-of).
const char* direction_label(const Claim& claim) {
  return claim.all_of()    ? "all"
         : claim.one_arm() ? "one-arm"
                           : judge::direction_name(claim.direction);
}

// Whether a depth is tested on lock-in counts: a Fisher claim, or a recall tie on lottery-shaped arms.
bool counts_locks(const Claim& claim, const ClaimComparison& c) {
  return claim.statistic == Statistic::kFisher || c.on_lock_in;
}

// Where the floor's runs carry learning labels (stored with curves): what they were doing when the budget
// ended, so a reader sees the floor is not the schedule's (a budget-limited floor is its own reason).
std::string floor_learning(const Claim& claim, const ClaimComparison& c) {
  auto known = [](const judge::ConfigLearning& l) { return l.plateaued + l.budget_limited > l.unknown; };
  if (!known(c.learning_a) && (claim.one_arm() || !known(c.learning_b))) {
    // Evaluated too rarely for the rule (curves too sparse, or a recipe whose grid is): say the cause is not known.
    const int64_t sparse = c.learning_a.too_few_points + (claim.one_arm() ? 0 : c.learning_b.too_few_points);
    const int64_t failed = c.learning_a.not_locked_in + (claim.one_arm() ? 0 : c.learning_b.not_locked_in);
    if (sparse == 0) return "";
    return fmt::format("; when the budget ended: not diagnosed ({} of {} seeds were evaluated too rarely for the "
                       "rule, which needs {} evaluations in the last third of the budget: evaluate more often), so "
                       "whether the floor is the schedule's is not known",
                       sparse, failed, 2 * judge::LearningRule{}.min_points);
  }
  if (claim.one_arm())
    return fmt::format("; when the budget ended: {} (the floor is not the schedule's)", learning_text(c.learning_a));
  return fmt::format("; when the budget ended: a {}, b {} (the floor is not the schedule's)",
                     learning_text(c.learning_a), learning_text(c.learning_b));
}

std::string floor_reason(const Claim& claim, const ClaimComparison& c) {
  const std::string learning = floor_learning(claim, c);
  if (counts_locks(claim, c)) return "floor: no seed of either arm locks in" + learning;
  if (claim.one_arm())
    return fmt::format("floor: no seed learns (best accuracy < {:.2f}){}", c.floor, learning);
  return fmt::format(
      "floor: most seeds of both arms never learn ({}/{} and {}/{} stay below recall {:.2f}) and none locks in, "
      "so their recalls compare failures{}",
      c.failed_a, c.n_a, c.failed_b, c.n_b, c.floor, learning);
}

std::string ceiling_reason(const Claim& claim, const ClaimComparison& c) {
  if (counts_locks(claim, c)) return "ceiling: every seed of both arms locks in";
  if (claim.statistic == Statistic::kAtLeast)
    return fmt::format("ceiling: every seed locks in ({}/{}) and training stops at the lock-in threshold, so no "
                       "degradation with {} could show here",
                       c.n_a, c.n_a, claim.over);
  if (claim.one_arm()) return "ceiling: every seed locks in";
  return "ceiling: most seeds of both arms lock in and stop there, so their recalls are stopping "
         "points";
}

// The depths left out, each with why: "pairs=2: ceiling: every seed locks in; ...".
std::string left_out_list(const ClaimVerdict& v) {
  std::string out;
  for (const auto& c : v.comparisons)
    if (!c.informative())
      out += (out.empty() ? "" : "; ") + depth_prefix(*v.claim, c) + left_out_reason(*v.claim, c);
  return out;
}

// The claimed size beside the observed one: "+0.50", "|Δ| < 0.15", "Δ > −0.15 (not worse)"; a quoted size
// that early stopping cannot show says which part of it can be.
std::string claimed_text(const Claim& claim, const ClaimComparison& c) {
  const double size = c.size;
  std::string out = claim.direction == Direction::kGreater ? fmt::format("+{:.2f}", size)
                    : claim.direction == Direction::kLess  ? fmt::format("−{:.2f}", size)
                    : claim.direction == Direction::kNone  ? fmt::format("|Δ| < {:.2f}", size)
                    : claim.direction == Direction::kNotGreater
                        ? fmt::format("Δ < +{:.2f} (not better)", size)
                        : fmt::format("Δ > −{:.2f} (not worse)", size);
  if (c.size_capped && claim.quoted)
    out += fmt::format(
        " (the sentence's {:.3f} → {:.3f}; training stops at recall {:.2f}, so only +{:.2f} of it can be observed)",
        claim.quoted->second, claim.quoted->first, c.stop_level, size);
  if (c.on_lock_in)
    out += " in lock-in rate (the arms are lottery-shaped: seeds lock in or never learn, so the tie is one of "
           "lock-in rates, not of medians)";
  return out;
}

// "observed +0.800 lock-in rate [+0.45, +0.95], claimed +0.50; power 1.00": the observed effect and
// its interval beside the claimed one (significance alone does not say the size reproduced).
std::string effect_note(const ClaimVerdict& v) {
  const Claim& claim = *v.claim;
  const auto informative = v.informative();
  const ClaimComparison& first = *informative.front();
  const bool locks = counts_locks(claim, first);
  std::string observed;
  double level = 0.0;
  for (const ClaimComparison* c : informative) {
    observed += fmt::format("{}{:+.3f} [{:+.2f}, {:+.2f}]{}", observed.empty() ? "" : ", ", c->effect, c->low,
                            c->high, counts_locks(claim, *c) != locks ? (locks ? " (recall)" : " (lock-in rate)") : "");
    level = c->interval_level;
  }
  const std::string interval = fmt::format("{}{}", level > 0 ? fmt::format("{:.4g}% ", 100.0 * level) : "",
                                           locks ? "Newcombe interval" : "Hodges–Lehmann shift and interval");
  if (claim.observation) {
    std::string ps;
    for (const ClaimComparison* c : informative)
      ps += fmt::format("{}{}p {:.3g}", ps.empty() ? "" : ", ", depth_prefix(claim, *c), c->p_expected_adj);
    return fmt::format("not a claim of the source, so not graded: observed {} {} ({}); two-sided {}{}",
                       locks ? "lock-in rate" : "recall", observed, interval, ps,
                       informative.size() > 1 ? " (Holm over depths)" : "");
  }
  return fmt::format("observed {} {} ({}), claimed {}; power {:.2f}{}", locks ? "lock-in rate" : "recall", observed,
                     interval, claimed_text(claim, first), v.power,
                     claim.equivalence() ? " to show it when nothing differs" : " for the claimed effect");
}

// "seeds in between (learned, never locked in): 0/10 [0.00, 0.26], claimed share < 0.30".
std::string one_arm_note(const ClaimVerdict& v) {
  const Claim& claim = *v.claim;
  std::string observed;
  for (const ClaimComparison* c : v.informative())
    observed += fmt::format("{}{}/{} [{:.2f}, {:.2f}]", observed.empty() ? "" : ", ", c->k_a,
                            c->n_a, c->low, c->high);
  if (claim.statistic == Statistic::kLottery)
    return fmt::format("seeds in between (learned, never locked in): {}, claimed share < {:.2f}",
                       observed, claim.bound);
  const ClaimComparison& first = *v.informative().front();
  const std::string level =
      claim.above_chance ? fmt::format("{:.3f} (the task's chance {:.3f} + {:.2f})", first.level, first.chance,
                                       *claim.above_chance)
                         : fmt::format("{:.2f}", first.level);
  return fmt::format("seeds {} recall {}: {}, claimed: fewer than half", one_arm_counted(claim), level, observed);
}

// An undecided claim's seeds: "; 12 seeds per arm would reach 80%".
std::string seeds_note(const ClaimVerdict& v) {
  if (v.claim->one_arm())
    return v.seeds_needed
               ? fmt::format("; {} seeds would let a clean result (none {}) reach significance",
                             v.seeds_needed, one_arm_counted(*v.claim))
               : fmt::format(
                     "; a clean result (none {}) would not reach significance within {} seeds",
                     one_arm_counted(*v.claim), stats::kMaxSeedSearch);
  return v.seeds_needed ? fmt::format("; {} seeds per arm would reach {:.0f}%", v.seeds_needed,
                                      100 * judge::kClaimPower)
                        : "; not reached within the search's seeds per arm";
}

// "; arms from different recordings (a: commit 0901fd9 … (15), Intel Xeon; b: commit f2879f8+, 6/167/1)": the
// difference may be the builds' or the machines' (issue 45); "" when each pair's arms share one recording.
std::string recordings_note(const ClaimVerdict& v) {
  if (!v.mixed_recordings) return "";
  std::string pairs;
  for (const auto& c : v.comparisons)
    if (c.recording_a != c.recording_b) {
      const std::string one = fmt::format("a: {}; b: {}", c.recording_a, c.recording_b);
      if (pairs.find(one) == std::string::npos) pairs += (pairs.empty() ? "" : " | ") + one;
    }
  return "; arms from different recordings (" + pairs + "), so a difference may be the builds' or the machines'";
}

std::string not_run_note(const Claim& claim) {
  if (!claim.needs.empty()) return "needs " + claim.needs;
  return std::string("no results match ") + (claim.one_arm() ? "side a" : "both sides") +
         (claim.preset.empty() ? std::string() : " (run the battery " + claim.preset + ")");
}

std::string parts_note(const ClaimVerdict& v) {
  std::string listed;
  for (const auto& p : v.parts)
    listed += fmt::format("{}{}: {}{}", listed.empty() ? "" : "; ", p.id, judge::claim_outcome_name(p.verdict),
                          p.outside ? " (its premise is contradicted: outside the sentence, left out)" : "");
  return "all of: " + listed;
}

}  // namespace

std::string left_out_reason(const Claim& claim, const ClaimComparison& c) {
  switch (c.reason) {
    case DepthReason::kInformative:
      return "";
    case DepthReason::kVacuousSetting:
      return "vacuous: dense and sparse MQAR labels are the same labels when the filler is zero";
    case DepthReason::kFloor:
      return floor_reason(claim, c);
    case DepthReason::kCeiling:
      return ceiling_reason(claim, c);
    case DepthReason::kBudgetLimited:
      return fmt::format("not informative (budget-limited): a floor of runs still learning when the schedule ended "
                         "(a: {}; b: {}); a pilot at {} steps would tell",
                         learning_text(c.learning_a), c.n_b > 0 ? learning_text(c.learning_b) : "–", c.suggested_steps);
    case DepthReason::kNoGap:
      if (c.key_gap.empty())
        return fmt::format("no gap to explain: the gap side ({}) was not run here", claim.gap_side->describe());
      return fmt::format("no gap to explain: b is not better than {} here by the claim's size {:.2f} ({} vs {}: "
                         "{}/{} vs {}/{} locked in, recall {:.3f} vs {:.3f}; gap {:+.3f}, one-sided p {:.3g})",
                         claim.gap_side->describe(), c.size, claim.b.cell, claim.gap_side->cell, c.k_b, c.n_b,
                         c.k_gap, c.n_gap, c.recall_b, c.recall_gap, c.gap, c.p_gap);
    case DepthReason::kComparatorFails:
      return counts_locks(claim, c)
                 ? fmt::format("the comparator fails the task: no seed of b locks in (0/{}), so a tie with it or "
                               "\"not worse\" than it says nothing",
                               c.n_b)
                 : fmt::format("the comparator fails the task: {}/{} seeds of b never learn (below recall {:.2f}) and "
                               "none locks in, so a tie with it or \"not worse\" than it says nothing",
                               c.failed_b, c.n_b, c.floor);
  }
  return "";
}

std::string claim_note(const ClaimVerdict& v) {
  switch (v.reason) {
    case ClaimReason::kNeedsScale:
    case ClaimReason::kNoResults:
      return not_run_note(*v.claim);
    case ClaimReason::kEveryDepthLeftOut:
      return left_out_list(v);
    case ClaimReason::kParts:
      return parts_note(v);
    case ClaimReason::kPremiseUnmet:
      return fmt::format("the premise is not met: {} is {}, so this claim's test says nothing about the cells it "
                         "is about",
                         v.premise->id, judge::claim_outcome_name(v.premise->verdict));
    case ClaimReason::kProxyNegative:
      return fmt::format("not informative: the tests alone say \"{}\", but in a setting the claim itself says is not "
                         "the sentence's (proxy: {}), so a negative verdict says nothing about the sentence; {}",
                         judge::claim_outcome_name(*v.capped_from), v.claim->proxy,
                         v.claim->one_arm() ? one_arm_note(v) : effect_note(v));
    case ClaimReason::kBudgetLimited: {
      std::string arms;
      for (const auto& c : v.comparisons)
        if (c.informative()) {
          arms = fmt::format("a: {}; b: {}", learning_text(c.learning_a), learning_text(c.learning_b));
          break;
        }
      return fmt::format("not informative (budget-limited): the tests alone say \"{}\", but that rests on an arm "
                         "not doing better while it was still learning when its budget ended ({}), so it may be "
                         "the schedule's; a pilot at {} steps would tell; {}",
                         judge::claim_outcome_name(*v.capped_from), arms, v.suggested_steps,
                         effect_note(v) + recordings_note(v));
    }
    case ClaimReason::kTested:
    case ClaimReason::kUnderpowered:
    case ClaimReason::kObservation:
      break;
  }
  std::string note = v.claim->one_arm() ? one_arm_note(v) : effect_note(v) + recordings_note(v);
  if (v.claim->one_arm() && v.claim->observation) note = "not a claim of the source, so not graded: " + note;
  if (v.reason == ClaimReason::kUnderpowered) note += seeds_note(v);
  const std::string left_out = left_out_list(v);
  if (!left_out.empty()) note += "; left out: " + left_out;
  return note;
}

std::string sensitivity_note(const ClaimVerdict& v) {
  if (v.claim->statistic == Statistic::kLottery) {
    std::string line;
    for (const ClaimComparison* c : v.sensitivity_depths())
      for (const auto& at : c->sensitivity)
        line += fmt::format("{}{:.3f}: {}/{} (p {:.3g})", line.empty() ? "" : "; ", at.threshold, at.k_a, c->n_a, at.p);
    if (line.empty()) return "";
    return "seeds in between at the stated floor and at others (chance + 0.05, 0.1, 0.2, 0.3, half the lock-in "
           "threshold; unadjusted p): " +
           line +
           (v.threshold_hangs ? " — the significance hangs on the floor" : " — the same significance at every floor");
  }
  std::string line;
  for (const ClaimComparison* c : v.sensitivity_depths())
    for (const auto& at : c->sensitivity)
      line += fmt::format("{}{:.2f}: {}/{} vs {}/{} (p {:.3g})", line.empty() ? "" : "; ",
                          at.threshold, at.k_a, c->n_a, at.k_b, c->n_b, at.p);
  if (line.empty()) return "";
  return "lock-in at the stated and lower thresholds (best accuracy at or above it; unadjusted "
         "p): " +
         line +
         (v.threshold_hangs ? " — the significance hangs on the threshold"
                            : " — the same significance at every threshold");
}

namespace {

// One depth's figures: "pairs=2: 4/4 vs 0/4 (p 0.0286)", "recall 0.918 vs 0.133 (Δ +0.01 [...])",
// or a one-arm claim's "in between 0/4 (not tested)".
std::string depth_counts(const Claim& claim, const ClaimComparison& c) {
  const std::string depth = depth_prefix(claim, c);
  if (claim.one_arm()) {
    const std::string counted =
        claim.statistic == Statistic::kLottery
            ? std::string("in between ")
            : fmt::format("recall {:.3f}, {}: ", c.recall_a, one_arm_counted(claim));
    return fmt::format(
        "{}{}{}/{} ({})", depth, counted, c.k_a, c.n_a,
        c.informative() ? fmt::format("p {:.3g}", c.p_expected_adj) : std::string("not tested"));
  }
  const std::string sides =
      claim.statistic == Statistic::kFisher ? fmt::format("{}/{} vs {}/{}", c.k_a, c.n_a, c.k_b, c.n_b)
      : c.on_lock_in ? fmt::format("locked in {}/{} vs {}/{}, recall {:.3f} vs {:.3f}", c.k_a, c.n_a, c.k_b, c.n_b,
                                   c.recall_a, c.recall_b)
                     : fmt::format("recall {:.3f} vs {:.3f}", c.recall_a, c.recall_b);
  const std::string test =
      !c.informative()      ? "not tested"
      : claim.observation   ? fmt::format("two-sided p {:.3g}", c.p_expected_adj)
      : claim.equivalence() ? fmt::format("Δ {:+.3f} [{:+.2f}, {:+.2f}]", c.effect, c.low, c.high)
                            : fmt::format("p {:.3g}", c.p_expected_adj);
  return fmt::format("{}{} ({})", depth, sides, test);
}

std::string counts_text(const ClaimVerdict& v, const char* sep) {
  std::string out;
  for (const auto& c : v.comparisons) out += (out.empty() ? "" : sep) + depth_counts(*v.claim, c);
  return out;
}

std::string sides_text(const Claim& c) {
  if (c.all_of()) return "all of " + fmt::format("{}", fmt::join(c.of, ", "));
  if (c.one_arm()) return c.a.describe();
  return c.a.describe() + " vs " + c.b.describe();
}

// The setting the runs are in: the claim's words, else its sides.
std::string setting_text(const Claim& c) { return c.setting.empty() ? sides_text(c) : c.setting; }

// The commands that remake the runs a claim reads, one per battery (then `verify`, docs/claims.md).
std::vector<std::string> remake_commands(const Claim& c) {
  std::vector<std::string> out;
  for (const auto& p : c.presets) out.push_back("recallbench run --battery " + p);
  return out;
}

// The setting cell of the tables: the setting, "proxy: …" where it is not the sentence's, the commands.
Inline setting_cell(const Claim& c) {
  Inline out(setting_text(c));
  if (!c.proxy.empty()) out.raw("<br>", "<br>").strong("proxy").text(": " + c.proxy);
  const auto commands = remake_commands(c);
  if (c.all_of()) out.raw("<br>", "<br>").text("remade with its parts");
  for (size_t i = 0; i < commands.size(); ++i)
    out.raw("<br>", "<br>").text(i == 0 ? "remake: " : "and ").code(commands[i]);
  return out;
}

json sensitivity_json(const ClaimComparison& c) {
  json out = json::array();
  for (const auto& at : c.sensitivity)
    out.push_back({{"threshold", at.threshold}, {"k_a", at.k_a}, {"k_b", at.k_b}, {"p", at.p}});
  return out;
}

json comparison_json(const Claim& claim, const ClaimComparison& c) {
  const std::string left_out = left_out_reason(claim, c);
  return {{"depth", c.depth}, {"a", c.key_a}, {"b", c.key_b}, {"k_a", c.k_a}, {"n_a", c.n_a},
          {"k_b", c.k_b}, {"n_b", c.n_b}, {"recall_a", c.recall_a}, {"recall_b", c.recall_b},
          {"p_expected", c.p_expected}, {"p_opposite", c.p_opposite},
          {"p_expected_holm", c.p_expected_adj}, {"p_opposite_holm", c.p_opposite_adj},
          {"power", c.power}, {"effect", c.effect}, {"low", c.low}, {"high", c.high}, {"interval_level", c.interval_level},
          {"recording_a", c.recording_a}, {"recording_b", c.key_b.empty() ? json(nullptr) : json(c.recording_b)},
          {"on_lock_in", c.on_lock_in}, {"size", claim.one_arm() ? json(nullptr) : json(c.size)},
          {"size_capped", c.size_capped},
          {"level", claim.one_arm() && claim.statistic != Statistic::kLottery ? json(c.level) : json(nullptr)},
          {"chance", c.chance >= 0 ? json(c.chance) : json(nullptr)},
          {"uninformative", left_out.empty() ? json(nullptr) : json(left_out)},
          {"sensitivity", sensitivity_json(c)},
          {"gap", c.key_gap.empty() ? json(nullptr)
                                    : json{{"key", c.key_gap}, {"k", c.k_gap}, {"n", c.n_gap}, {"recall", c.recall_gap},
                                           {"p_b_better", c.p_gap}, {"gap", c.gap}}}};
}

}  // namespace

json verdicts_json(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  json arr = json::array();
  for (const auto& v : verdicts) {
    json cmps = json::array();
    for (const auto& c : v.comparisons) cmps.push_back(comparison_json(*v.claim, c));
    const std::string sensitivity = sensitivity_note(v);
    arr.push_back({{"id", v.claim->id},
                   {"claim", v.claim->quote},
                   {"setting", setting_text(*v.claim)},
                   {"proxy", v.claim->proxy.empty() ? json(nullptr) : json(v.claim->proxy)},
                   {"graded", v.claim->graded()},
                   {"remake", remake_commands(*v.claim)},
                   {"premise", v.premise ? json{{"id", v.premise->id},
                                                {"verdict", judge::claim_outcome_name(v.premise->verdict)}}
                                         : json(nullptr)},
                   {"verdict", judge::claim_outcome_name(v.verdict)},
                   {"capped_from", v.capped_from ? json(judge::claim_outcome_name(*v.capped_from)) : json(nullptr)},
                   {"suggested_steps", v.suggested_steps > 0 ? json(v.suggested_steps) : json(nullptr)},
                   {"statistic", judge::statistic_name(v.claim->statistic)},
                   {"direction", direction_label(*v.claim)},
                   {"gate", v.claim->gate},
                   {"power", v.comparisons.empty() ? json(nullptr) : json(v.power)},
                   {"sided", v.claim->sided},
                   {"seeds_needed", v.seeds_needed ? json(v.seeds_needed) : json(nullptr)},
                   {"note", claim_note(v)},
                   {"sensitivity", sensitivity.empty() ? json(nullptr) : json(sensitivity)},
                   {"mixed_recordings", v.mixed_recordings},
                   {"comparisons", cmps}});
  }
  return {{"schema_version", judge::kClaimsSchemaVersion},
          {"kind", "recallbench.verdicts"},
          {"claims_file", set.source},
          {"generated", utc_now()},
          {"exit_code", judge::verify_exit_code(verdicts)},
          {"verdicts", arr}};
}

std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    const std::string sensitivity = sensitivity_note(v);
    out += fmt::format("{:<13} {:<28} {}{}\n{:14}{}\n{}", judge::claim_outcome_name(v.verdict),
                       v.claim->id, v.claim->gate ? "[gate] " : "", counts_text(v, "; "), "",
                       claim_note(v),
                       sensitivity.empty() ? "" : fmt::format("{:14}{}\n", "", sensitivity));
  }
  return out;
}

namespace {

// Graded claims, or observations (reported apart, not graded).
std::vector<const ClaimVerdict*> graded_or_not(const std::vector<ClaimVerdict>& verdicts, bool graded) {
  std::vector<const ClaimVerdict*> out;
  for (const auto& v : verdicts)
    if (v.claim->graded() == graded) out.push_back(&v);
  return out;
}

// The verdict table of the HTML page: the claim's id (a badge when it gates), the setting run (proxy, the
// commands), the counts, the note and the threshold sensitivity, the sentence over the two sides.
Table verdicts_page_table(const std::vector<const ClaimVerdict*>& verdicts) {
  Table t{{{"claim"}, {"verdict"}, {"setting run"}, {"a vs b (Holm p; for ties, Δ and interval)"},
           {"effect and power"}, {"sentence"}}};
  t.cls = "changes";
  t.labelled = true;
  for (const auto& [column, label] : {std::pair{3, "a vs b"}, {4, "power"}})
    t.columns[static_cast<size_t>(column)].data_label = label;
  for (const ClaimVerdict* v : verdicts) {
    Inline claim = Inline().code(v->claim->id);
    if (v->claim->gate) claim.text(" ").badge(Tone::kPlain, "gate");
    Inline power(claim_note(*v));
    const std::string sensitivity = sensitivity_note(*v);
    if (!sensitivity.empty())
      power.raw("<br><span class=\"key\">" + html_escape(sensitivity) + "</span>");
    Cell sentence(
        Inline(v->claim->quote)
            .raw("<br><span class=\"key\">" + html_escape(sides_text(*v->claim)) + "</span>"));
    sentence.cls = "why";
    t.rows.push_back({{claim, Inline().strong(judge::claim_outcome_name(v->verdict)), setting_cell(*v->claim),
                       counts_text(*v, "; "), power, sentence},
                      tone_class(tone_of(v->verdict))});
  }
  return t;
}

// The verdict table of the Markdown summary: the same with the effect's seeds needed, lines broken
// by <br>.
Table verdicts_summary_table(const std::vector<const ClaimVerdict*>& verdicts) {
  Table t{{{"claim"}, {"verdict"}, {"setting run"}, {"a vs b (Holm p; for ties, Δ and interval)"},
           {"effect, power, seeds needed"}, {"tested sentence"}}};
  t.rule = " --- ";
  for (const ClaimVerdict* v : verdicts) {
    const std::string sensitivity = sensitivity_note(*v);
    t.rows.push_back({{Inline().code(v->claim->id).text(v->claim->gate ? " (gate)" : ""),
                       Inline().strong(judge::claim_outcome_name(v->verdict)), setting_cell(*v->claim),
                       counts_text(*v, "<br>"), claim_note(*v) + (sensitivity.empty() ? "" : "<br>" + sensitivity),
                       v->claim->quote}});
  }
  return t;
}

}  // namespace

Group verdicts_section(const std::vector<ClaimVerdict>& verdicts) {
  Group g{Group::Kind::kSection, "claims"};
  g.add(Heading{2, "Claims"}, Show::kHtmlOnly);
  const auto graded = graded_or_not(verdicts, true), observed = graded_or_not(verdicts, false);
  g.add(verdicts_page_table(graded), Show::kHtmlOnly);
  g.add(verdicts_summary_table(graded), Show::kMarkdownOnly);
  if (!observed.empty()) {
    // Observations apart: tested and shown, but the source does not claim them, so they get no verdict.
    g.add(Heading{3, "Observations (not claims of the source; not graded)"});
    g.add(verdicts_page_table(observed), Show::kHtmlOnly);
    g.add(verdicts_summary_table(observed), Show::kMarkdownOnly);
  }
  return g;
}

Document verdicts_document(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  Document d{"recallbench claims"};
  // The page shows its "generated" time: one timestamp for both.
  d.json = verdicts_json(set, verdicts);
  Group header{Group::Kind::kHeader};
  header.add(Heading{1, "recallbench: claims"});
  header.add(Paragraph{Inline(fmt::format("{} claims from ", verdicts.size()))
                           .code(set.source)
                           .text(" · " + d.json["generated"].get<std::string>()),
                       "meta"});
  d.add(std::move(header), Show::kHtmlOnly);
  d.add(verdicts_section(verdicts));
  return d;
}

std::string verdicts_markdown(const std::vector<ClaimVerdict>& verdicts) {
  Document d;
  d.add(verdicts_section(verdicts));
  return MarkdownRenderer().render(d);
}

std::string verdicts_html(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  return HtmlRenderer().render(verdicts_document(set, verdicts));
}

}  // namespace rb::reports
