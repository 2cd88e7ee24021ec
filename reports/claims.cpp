// Claims as data and their verdicts. See claims.h.
#include "reports/claims.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/document.h"
#include "reports/html_parts.h"
#include "reports/report.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

const char* const kHint = "see reports/claims_schema.md";

bool subset_of(const json& want, const json& have) {
  if (!want.is_object()) return true;
  for (const auto& [k, v] : want.items()) {
    const bool present = have.is_object() && have.contains(k) && !have.at(k).is_null();
    if (v.is_null() ? present : !present || have.at(k) != v) return false;  // null: the field is absent
  }
  return true;
}

void check_fields(const json& obj, const std::string& where, const std::vector<std::string>& known) {
  for (const auto& [k, v] : obj.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw UsageError(where + ": unknown field '" + k + "'", kHint);
}

ClaimSide side_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw UsageError(where + ": expected an object {\"cell\", \"task\", ...}", kHint);
  check_fields(j, where, {"cell", "task", "task_options", "model", "train"});
  ClaimSide s;
  s.cell = require_field<std::string>(j, "cell", where);
  s.task = require_field<std::string>(j, "task", where);
  for (auto [field, target] : {std::pair{"task_options", &s.task_options}, {"model", &s.model}, {"train", &s.train}}) {
    if (!j.contains(field)) continue;
    if (!j.at(field).is_object()) throw UsageError(where + ": field '" + field + "' must be an object", kHint);
    *target = j.at(field);
  }
  return s;
}

std::string describe_json(const json& j) {
  std::string out;
  for (const auto& [k, v] : j.items()) out += fmt::format(" {}:{}", k, v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

stats::Alternative flip(stats::Alternative alt) {
  return alt == stats::Alternative::kGreater ? stats::Alternative::kLess : stats::Alternative::kGreater;
}

// The alternative under which power is computed (the effect the claim asserts or rules out).
stats::Alternative power_alternative(const std::string& direction) {
  if (direction == "greater") return stats::Alternative::kGreater;
  if (direction == "none") return stats::Alternative::kTwoSided;
  return stats::Alternative::kLess;  // less, not-less (power to see a worse by the effect)
}

// The share of `draws` resamples (fixed seed) in which hit(x, y) holds: x of n_a values, each move(v) of a
// draw v from `pool`, and y of n_b draws from `pool` itself.
template <class Move, class Hit>
double resampled_rate(const std::vector<double>& pool, int64_t n_a, int64_t n_b, int draws, Move move, Hit hit) {
  if (pool.empty() || n_a < 1 || n_b < 1) return 0.0;
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  int hits = 0;
  std::vector<double> x(n_a), y(n_b);
  for (int d = 0; d < draws; ++d) {
    for (auto& v : x) v = move(pool[pick(rng)]);
    for (auto& v : y) v = pool[pick(rng)];
    hits += hit(x, y) ? 1 : 0;
  }
  return static_cast<double>(hits) / draws;
}

// Mann–Whitney power by resampling b's seeds; arm a is b shifted by `shift` (signed).
double mw_power(const std::vector<double>& b, double shift, int64_t n_a, int64_t n_b, double alpha,
                stats::Alternative alt) {
  return resampled_rate(
      b, n_a, n_b, 400, [&](double v) { return std::clamp(v + shift, 0.0, 1.0); },
      [&](const std::vector<double>& x, const std::vector<double>& y) {
        return stats::significant(stats::mann_whitney_u(x, y, alt).p_value, alpha);
      });
}

double signed_shift(const Claim& c) { return c.direction == "greater" || c.direction == "none" ? c.shift : -c.shift; }

}  // namespace

const char* claim_outcome_name(ClaimOutcome outcome) {
  switch (outcome) {
    case ClaimOutcome::kNotRun: return "not run";
    case ClaimOutcome::kNotInformative: return "not informative";
    case ClaimOutcome::kReproduced: return "reproduced";
    case ClaimOutcome::kDirectionOnly: return "direction reproduced, size not";
    case ClaimOutcome::kContradicted: return "contradicted";
    case ClaimOutcome::kSizeNotReproduced: return "claimed size not reproduced";
    case ClaimOutcome::kUndecided: return "undecided";
  }
  return "?";
}

bool ClaimSide::matches(const Config& c) const {
  return c.cell == cell && c.task == task && subset_of(task_options, c.task_options) && subset_of(model, c.model) &&
         subset_of(train, c.train());
}

std::string ClaimSide::describe() const {
  return cell + " on " + task + describe_json(task_options) + describe_json(model) + describe_json(train);
}

namespace {

// An all-of claim's parts (`of`), which must name claims (checked once the whole file is read).
void read_all_of(Claim& c, const json& j, const std::string& w) {
  for (const char* f : {"a", "b", "over", "effect", "direction"})
    if (j.contains(f)) throw UsageError(w + ": an all-of claim has no field '" + f + "'", kHint);
  const json of = require_field<json>(j, "of", w);
  if (!of.is_array() || of.empty()) throw UsageError(w + ": field 'of' must be a non-empty array of claim ids", kHint);
  for (const auto& id : of) {
    if (!id.is_string()) throw UsageError(w + ": field 'of' must hold claim ids (strings)", kHint);
    c.of.push_back(id.get<std::string>());
  }
  c.direction = "all";
}

// The claimed effect, by statistic: Fisher's two rates, Mann–Whitney's shift, a one-arm claim's bound.
void read_effect(Claim& c, const json& effect, const std::string& w, bool one_arm) {
  if (c.statistic == "fisher") {
    c.effect_a = require_field<double>(effect, "a", w + ": effect");
    c.effect_b = require_field<double>(effect, "b", w + ": effect");
    if (!(c.effect_a >= 0 && c.effect_a <= 1 && c.effect_b >= 0 && c.effect_b <= 1) || c.effect_a == c.effect_b)
      throw UsageError(w + ": field 'effect': rates a and b must be distinct, in [0, 1]", kHint);
    const bool up = c.effect_a > c.effect_b;
    if ((c.direction == "greater" && !up) || ((c.direction == "less" || c.direction == "not-less") && up))
      throw UsageError(w + ": field 'effect': the rates must point the way the power is computed (greater: a > b; "
                           "less and not-less: a < b, the smallest loss that matters)",
                       kHint);
  } else if (c.statistic == "mann-whitney") {
    c.shift = require_field<double>(effect, "shift", w + ": effect");
    if (!(c.shift > 0 && c.shift <= 1)) throw UsageError(w + ": field 'effect.shift' must be in (0, 1]", kHint);
  } else if (one_arm) {
    const char* field = c.statistic == "lottery" ? "middle" : "recall";  // at-most, at-least: a recall level
    c.bound = require_field<double>(effect, field, w + ": effect");
    if (!(c.bound > 0 && c.bound < 1)) throw UsageError(w + ": field 'effect." + field + "' must be in (0, 1)", kHint);
  } else {
    throw UsageError(w + ": field 'statistic': got '" + c.statistic +
                         "', expected fisher, mann-whitney, lottery, at-most, at-least or all-of",
                     kHint);
  }
}

// The direction, the sidedness of the test and the recall floor.
void read_test(Claim& c, const json& j, const std::string& w, bool one_arm) {
  if (one_arm && j.contains("direction"))
    throw UsageError(w + ": a " + c.statistic + " claim has no direction (it states a bound)", kHint);
  if (!one_arm && c.direction != "greater" && c.direction != "less" && c.direction != "none" && c.direction != "not-less")
    throw UsageError(w + ": field 'direction': got '" + c.direction + "', expected greater, less, none or not-less",
                     kHint);
  c.sided = j.value("sided", 1);
  if (one_arm && j.contains("sided")) throw UsageError(w + ": field 'sided' is for two-arm claims", kHint);
  if (c.sided != 1 && c.sided != 2) throw UsageError(w + ": field 'sided' must be 1 or 2", kHint);
  if (c.sided == 2 && c.direction != "greater" && c.direction != "less")
    throw UsageError(w + ": field 'sided': a two-sided test is for a directional claim (greater or less)", kHint);
  c.floor = j.value("floor", -1.0);
  if (j.contains("floor") && !(c.floor >= 0 && c.floor <= 1))
    throw UsageError(w + ": field 'floor' must be a recall in [0, 1]", kHint);
}

// One claim; `w` names it in messages ("FILE: claims[3]", then "FILE: claim 'ID'" once its id is read).
void read_claim(Claim& c, const json& j, std::string& w, const std::string& where) {
  if (!j.is_object()) throw UsageError(w + ": expected an object");
  check_fields(j, w, {"id", "claim", "source", "preset", "a", "b", "over", "statistic", "direction", "effect",
                      "alpha", "sided", "floor", "gate", "needs", "note", "of"});
  c.id = require_field<std::string>(j, "id", w);
  w = fmt::format("{}: claim '{}'", where, c.id);
  c.quote = require_field<std::string>(j, "claim", w);
  c.source = j.value("source", "");
  c.preset = j.value("preset", "");
  c.statistic = require_field<std::string>(j, "statistic", w);
  c.alpha = j.value("alpha", 0.05);
  c.gate = j.value("gate", false);
  c.needs = j.value("needs", "");
  if (!(c.alpha > 0 && c.alpha < 1)) throw UsageError(w + ": field 'alpha' must be in (0, 1)", kHint);
  if (c.statistic == "all-of") return read_all_of(c, j, w);
  const bool one_arm = c.statistic == "lottery" || c.statistic == "at-most" || c.statistic == "at-least";
  if (j.contains("of")) throw UsageError(w + ": field 'of' is for all-of claims", kHint);
  c.a = side_from_json(require_field<json>(j, "a", w), w + ": a");
  if (one_arm && j.contains("b")) throw UsageError(w + ": a " + c.statistic + " claim has one side, a", kHint);
  if (!one_arm) c.b = side_from_json(require_field<json>(j, "b", w), w + ": b");
  c.over = j.value("over", "");
  c.direction = one_arm ? "one-arm" : require_field<std::string>(j, "direction", w);
  read_effect(c, require_field<json>(j, "effect", w), w, one_arm);
  read_test(c, j, w, one_arm);
}

// Every all-of claim names claims of this file, none of them all-of claims themselves.
void check_all_of_parts(const ClaimSet& set, const std::string& where) {
  for (const Claim& c : set.claims)
    for (const std::string& id : c.of) {
      const auto part = std::find_if(set.claims.begin(), set.claims.end(), [&](const Claim& x) { return x.id == id; });
      if (part == set.claims.end())
        throw UsageError(where + ": claim '" + c.id + "': field 'of' names '" + id + "', which is not a claim here", kHint);
      if (part->statistic == "all-of")
        throw UsageError(where + ": claim '" + c.id + "': field 'of' names the all-of claim '" + id +
                             "' (name its parts instead)",
                         kHint);
    }
}

}  // namespace

ClaimSet claims_from_json(const json& doc, const std::string& where) {
  if (kind_of(doc) != "recallbench.claims")
    throw UsageError(where + ": got no 'recallbench.claims' document", kHint);
  const json version = doc.value("schema_version", json(nullptr));
  if (!version.is_number_integer() || version.get<int64_t>() != kClaimsSchemaVersion)
    throw UsageError(fmt::format("{}: got schema_version {}, expected {}", where, version.dump(), kClaimsSchemaVersion),
                     kHint);
  check_fields(doc, where, {"schema_version", "kind", "description", "source", "claims"});
  const json claims = require_field<json>(doc, "claims", where);
  if (!claims.is_array() || claims.empty()) throw UsageError(where + ": field 'claims' must be a non-empty array", kHint);
  ClaimSet set;
  set.source = where;
  std::set<std::string> ids;
  for (size_t i = 0; i < claims.size(); ++i) {
    std::string w = fmt::format("{}: claims[{}]", where, i);
    Claim c;
    with_json_errors(w, [&] { read_claim(c, claims[i], w, where); });
    if (!ids.insert(c.id).second) throw UsageError(w + ": id '" + c.id + "' appears twice", kHint);
    set.claims.push_back(std::move(c));
  }
  check_all_of_parts(set, where);
  return set;
}

ClaimSet read_claims(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path)) throw UsageError("claims file " + path.string() + " not found", kHint);
  return claims_from_json(read_json_file(path), "claims " + path.string());
}

namespace {

using ConfigPair = std::pair<const Config*, const Config*>;

// The configs of each side, paired by depth (the value of `over`; one pair when there is no `over`), in
// increasing depth. A side that matches two configs at one depth is a UsageError.
std::vector<ConfigPair> match_sides(const Claim& claim, const std::vector<const Config*>& configs) {
  const std::string w = "claim '" + claim.id + "'";
  std::map<std::string, ConfigPair> by_depth;
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
      const Config*& target = side == 0 ? slot.first : slot.second;
      if (target && target->key != c->key)
        throw UsageError(fmt::format("{}: side {} ({}) matches two configs{}: {} and {}", w, side == 0 ? "a" : "b",
                                     s.describe(), claim.over.empty() ? "" : " at " + claim.over + " " + depth.dump(),
                                     target->key, c->key),
                         "narrow the side with task_options, model or train fields");
      target = c;
    }
  }
  std::vector<ConfigPair> pairs;
  const bool one_arm = claim.direction == "one-arm";
  for (const auto& [depth, slot] : by_depth)
    if (slot.first && (one_arm || slot.second)) pairs.push_back(slot);
  std::sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
    if (claim.over.empty()) return false;
    const json& a = x.first->task_options.at(claim.over);
    const json& b = y.first->task_options.at(claim.over);
    return a.is_number() && b.is_number() ? a.get<double>() < b.get<double>() : a.dump() < b.dump();
  });
  return pairs;
}

int direction_sign(const Claim& claim) { return claim.direction == "less" ? -1 : 1; }

// The claimed size: the lock-in rate difference or the recall shift (for none and not-less, the margin).
double claimed_size(const Claim& claim) {
  return claim.statistic == "fisher" ? std::abs(claim.effect_a - claim.effect_b) : claim.shift;
}

bool equivalence_kind(const Claim& claim) { return claim.direction == "none" || claim.direction == "not-less"; }

// p of the claim's test in its expected (or the opposite) direction. Two-sided claims count a two-sided p
// only on the side the data fall (the other side gets 1).
struct SidedP {
  double expected = 1.0, opposite = 1.0;
};
template <class OneSided>
SidedP sided_p(const Claim& claim, OneSided p_of) {
  if (claim.direction == "none") {
    const double p = p_of(stats::Alternative::kTwoSided);
    return {p, p};
  }
  const stats::Alternative up = claim.direction == "less" ? stats::Alternative::kLess : stats::Alternative::kGreater;
  const double pe = p_of(up), po = p_of(flip(up));
  if (claim.sided == 1) return {pe, po};
  const double two = p_of(stats::Alternative::kTwoSided);
  return pe <= po ? SidedP{two, 1.0} : SidedP{1.0, two};
}

// Why a depth cannot separate the arms, or "" (see claims.h).
std::string uninformative(const Claim& claim, const Config& a, const Config& b, const judge::ConfigSummary& sa,
                          const judge::ConfigSummary& sb) {
  const auto opts_without = [](json o, const char* key) {
    o.erase(key);
    return o;
  };
  if (a.task == "mqar" && b.task == "mqar" && a.task_options.value("supervision", json("sparse")) !=
                                                  b.task_options.value("supervision", json("sparse")) &&
      a.task_options.value("filler", json("zero")) == "zero" && b.task_options.value("filler", json("zero")) == "zero" &&
      opts_without(a.task_options, "supervision") == opts_without(b.task_options, "supervision"))
    return "vacuous: dense and sparse MQAR labels are the same labels when the filler is zero";
  if (claim.statistic == "fisher") {
    if (sa.k == 0 && sb.k == 0) return "floor: no seed of either arm locks in";
    if (sa.k == sa.n && sb.k == sb.n) return "ceiling: every seed of both arms locks in";
    return "";
  }
  if (2 * sa.k >= sa.n && 2 * sb.k >= sb.n)
    return "ceiling: most seeds of both arms lock in and stop there, so their recalls are stopping points";
  // The mirror of the ceiling: most seeds of both arms never learn (no lock-in, best recall below the
  // floor), so the medians and the shift compare failures.
  const double floor = claim.floor >= 0 ? claim.floor : 0.5 * a.threshold();
  const auto failed = [&](const Config& c) {
    int64_t n = 0;
    for (const auto& s : c.seeds) {
      const double best = std::max(std::isfinite(s.best_accuracy) ? s.best_accuracy : 0.0,
                                   std::isfinite(s.final_accuracy) ? s.final_accuracy : 0.0);
      n += !s.locked_in() && best < floor ? 1 : 0;
    }
    return n;
  };
  const int64_t fa = failed(a), fb = failed(b);
  if (2 * fa >= sa.n && 2 * fb >= sb.n)
    return fmt::format("floor: most seeds of both arms never learn ({}/{} and {}/{} stay below recall {:.2f}), so their "
                       "recalls compare failures",
                       fa, sa.n, fb, sb.n, floor);
  return "";
}

// P(X = k) for X ~ Binomial(n, p), exact at p = 0 and p = 1.
double binom_pmf(int64_t k, int64_t n, double p) {
  if (p <= 0) return k == 0 ? 1.0 : 0.0;
  if (p >= 1) return k == n ? 1.0 : 0.0;
  return std::exp(stats::log_choose(n, k) + k * std::log(p) + (n - k) * std::log1p(-p));
}

// Power of the interval landing inside the margin when the arms do not differ (ties, non-inferiority).
double equivalence_power(const Claim& claim, const Config& a, const Config& b, double pooled_rate, int64_t n_a,
                         int64_t n_b, double alpha_each) {
  const double m = claimed_size(claim);
  const double level = 1.0 - 2.0 * alpha_each;
  const auto inside = [&](double low, double high) {
    return claim.direction == "none" ? low > -m && high < m : low > -m;
  };
  if (claim.statistic == "fisher") {
    double power = 0.0;
    for (int64_t x = 0; x <= n_a; ++x)
      for (int64_t y = 0; y <= n_b; ++y) {
        const stats::Interval i = stats::newcombe_difference(x, n_a, y, n_b, level);
        if (inside(i.low, i.high)) power += binom_pmf(x, n_a, pooled_rate) * binom_pmf(y, n_b, pooled_rate);
      }
    return power;
  }
  // Nothing differs: both arms drawn from the pooled residuals (each arm's recalls less its median), so the
  // spread of the wider arm counts.
  std::vector<double> residuals;
  for (const Config* c : {&a, &b}) {
    const auto r = recalls(*c);
    const double median = rb::spread(r).median;
    for (double x : r) residuals.push_back(x - median);
  }
  return resampled_rate(
      residuals, n_a, n_b, 200, [](double v) { return v; },
      [&](const std::vector<double>& x, const std::vector<double>& y) {
        const stats::ShiftEstimate e = stats::hodges_lehmann(x, y, level);
        return inside(e.low, e.high);
      });
}

// Exact power of the claim's Fisher test, counted only when significant in the expected direction.
double fisher_directional_power(const Claim& claim, int64_t n_a, int64_t n_b, double alpha_each) {
  if (claim.sided == 1)
    return stats::fisher_power(claim.effect_a, claim.effect_b, n_a, n_b, alpha_each, power_alternative(claim.direction));
  double power = 0.0;
  for (int64_t x = 0; x <= n_a; ++x)
    for (int64_t y = 0; y <= n_b; ++y) {
      const double side = static_cast<double>(x) / n_a - static_cast<double>(y) / n_b;
      if (side * direction_sign(claim) <= 0) continue;
      const stats::Table2x2 t{x, n_a - x, y, n_b - y};
      if (stats::significant(stats::fisher_p_value(t, stats::Alternative::kTwoSided), alpha_each))
        power += binom_pmf(x, n_a, claim.effect_a) * binom_pmf(y, n_b, claim.effect_b);
    }
  return power;
}

// Counts and p at the stated threshold and below it, 0.1 apart down to half of it.
std::vector<ClaimComparison::AtThreshold> threshold_sensitivity(const Claim& claim, const Config& a, const Config& b) {
  std::vector<ClaimComparison::AtThreshold> out;
  const double stated = a.threshold();
  const auto count = [](const Config& c, double t, bool at_stated) {
    int64_t k = 0;
    for (const auto& s : c.seeds)
      k += s.locked_in() || (!at_stated && s.ok() && std::isfinite(s.best_accuracy) &&
                                      s.best_accuracy >= t)
               ? 1
               : 0;
    return k;
  };
  std::vector<double> ladder{stated};  // then the round tenths below it, down to half of it
  for (double t = std::ceil(stated * 10 - 1) / 10; t >= 0.5 * stated - 1e-9; t -= 0.1)
    if (t < stated - 1e-9) ladder.push_back(std::round(t * 10) / 10);
  for (size_t i = 0; i < ladder.size(); ++i) {
    const double t = ladder[i];
    ClaimComparison::AtThreshold at;
    at.threshold = t;
    at.k_a = count(a, t, i == 0);
    at.k_b = count(b, t, i == 0);
    const int64_t n_a = static_cast<int64_t>(a.seeds.size()), n_b = static_cast<int64_t>(b.seeds.size());
    const stats::Table2x2 table{at.k_a, n_a - at.k_a, at.k_b, n_b - at.k_b};
    at.p = sided_p(claim, [&](stats::Alternative alt) { return stats::fisher_p_value(table, alt); }).expected;
    out.push_back(at);
  }
  return out;
}

// One depth: the claim's test in its expected and opposite directions, the interval for a − b, whether the
// depth can separate the arms at all, and the power.
ClaimComparison compare_pair(const Claim& claim, const ConfigPair& pair, double alpha_each) {
  const auto& [a, b] = pair;
  ClaimComparison cmp;
  cmp.depth = claim.over.empty() ? json(nullptr) : a->task_options.at(claim.over);
  cmp.key_a = a->key;
  cmp.key_b = b->key;
  const judge::ConfigSummary sa = judge::summarize(*a), sb = judge::summarize(*b);
  cmp.k_a = sa.k, cmp.n_a = sa.n, cmp.k_b = sb.k, cmp.n_b = sb.n;
  cmp.recall_a = sa.recall.median, cmp.recall_b = sb.recall.median;
  cmp.uninformative = uninformative(claim, *a, *b, sa, sb);
  const double level = 1.0 - 2.0 * alpha_each;
  SidedP p;
  if (claim.statistic == "fisher") {
    const stats::Table2x2 t{sa.k, sa.n - sa.k, sb.k, sb.n - sb.k};
    p = sided_p(claim, [&](stats::Alternative alt) { return stats::fisher_p_value(t, alt); });
    const stats::Interval i = stats::newcombe_difference(sa.k, sa.n, sb.k, sb.n, level);
    cmp.effect = sa.rate - sb.rate, cmp.low = i.low, cmp.high = i.high;
    cmp.sensitivity = threshold_sensitivity(claim, *a, *b);
  } else {
    const auto ra = recalls(*a), rb = recalls(*b);
    p = sided_p(claim, [&](stats::Alternative alt) { return stats::mann_whitney_u(ra, rb, alt).p_value; });
    const stats::ShiftEstimate e = stats::hodges_lehmann(ra, rb, level);
    cmp.effect = e.estimate, cmp.low = std::max(-1.0, e.low), cmp.high = std::min(1.0, e.high);
  }
  cmp.p_expected = p.expected;
  cmp.p_opposite = p.opposite;
  if (equivalence_kind(claim))
    cmp.power = equivalence_power(claim, *a, *b, static_cast<double>(sa.k + sb.k) / std::max<int64_t>(sa.n + sb.n, 1),
                                  sa.n, sb.n, alpha_each);
  else if (claim.statistic == "fisher")
    cmp.power = fisher_directional_power(claim, sa.n, sb.n, alpha_each);
  else
    cmp.power = mw_power(recalls(*b), signed_shift(claim), sa.n, sb.n, alpha_each / claim.sided,
                         power_alternative(claim.direction));
  return cmp;
}

// "observed +0.800 lock-in rate [+0.45, +0.95], claimed +0.50; power 1.00": the observed effect and its
// interval beside the claimed one (significance alone does not say the size reproduced).
std::string effect_note(const Claim& claim, const ClaimVerdict& v, const std::vector<ClaimComparison*>& used) {
  const double size = claimed_size(claim);
  const char* unit = claim.statistic == "fisher" ? "lock-in rate" : "recall";
  const std::string claimed = claim.direction == "greater" ? fmt::format("+{:.2f}", size)
                              : claim.direction == "less"  ? fmt::format("−{:.2f}", size)
                              : claim.direction == "none"  ? fmt::format("|Δ| < {:.2f}", size)
                                                           : fmt::format("Δ > −{:.2f} (not worse)", size);
  std::string observed;
  for (ClaimComparison* c : used)
    observed += fmt::format("{}{:+.3f} [{:+.2f}, {:+.2f}]", observed.empty() ? "" : ", ", c->effect, c->low, c->high);
  return fmt::format("observed {} {} ({}), claimed {}; power {:.2f}{}", unit, observed,
                     claim.statistic == "fisher" ? "Newcombe interval" : "Hodges–Lehmann shift and interval", claimed,
                     v.power, equivalence_kind(claim) ? " to show it when nothing differs" : " for the claimed effect");
}

// Seeds per arm (equal) that reach kClaimPower at these depths; 0 when the search's cap does not.
int64_t seeds_needed(const Claim& claim, const ConfigPair& first, int64_t n_now, double alpha_each) {
  const auto rb = recalls(*first.second);
  if (equivalence_kind(claim)) {
    const judge::ConfigSummary sa = judge::summarize(*first.first), sb = judge::summarize(*first.second);
    const double pooled = static_cast<double>(sa.k + sb.k) / std::max<int64_t>(sa.n + sb.n, 1);
    const int64_t cap = claim.statistic == "fisher" ? 200 : 40;
    for (int64_t n = std::max<int64_t>(2, n_now); n <= cap; n += n < 30 ? 1 : 5)
      if (equivalence_power(claim, *first.first, *first.second, pooled, n, n, alpha_each) >= kClaimPower) return n;
    return 0;
  }
  if (claim.statistic == "fisher") {
    const auto plan = stats::seeds_for_power(claim.effect_a, claim.effect_b, kClaimPower, alpha_each,
                                             claim.sided == 2 ? stats::Alternative::kTwoSided
                                                              : power_alternative(claim.direction),
                                             200);
    return plan.reached ? plan.n : 0;
  }
  for (int64_t n = std::max<int64_t>(2, n_now); n <= 200; n += n < 30 ? 1 : 10)
    if (mw_power(rb, signed_shift(claim), n, n, alpha_each / claim.sided, power_alternative(claim.direction)) >= kClaimPower)
      return n;
  return 0;
}

std::string sensitivity_line(const Claim& claim, const std::vector<ClaimComparison*>& used, double alpha) {
  std::string line;
  bool hangs = false;
  for (ClaimComparison* c : used) {
    if (c->sensitivity.empty()) continue;
    const bool at_stated = stats::significant(c->sensitivity.front().p, alpha);
    for (const auto& at : c->sensitivity) {
      line += fmt::format("{}{:.2f}: {}/{} vs {}/{} (p {:.3g})", line.empty() ? "" : "; ", at.threshold, at.k_a, c->n_a,
                          at.k_b, c->n_b, at.p);
      hangs = hangs || stats::significant(at.p, alpha) != at_stated;
    }
  }
  if (line.empty()) return "";
  return "lock-in at the stated and lower thresholds (best accuracy at or above it; unadjusted p): " + line +
         (hangs ? " — the significance hangs on the threshold" : " — the same significance at every threshold");
}

ClaimVerdict not_run(const Claim& claim, const char* sides) {
  ClaimVerdict v;
  v.claim = &claim;
  v.verdict = ClaimOutcome::kNotRun;
  v.note = !claim.needs.empty() ? "needs " + claim.needs
                                : std::string("no results match ") + sides +
                                      (claim.preset.empty() ? std::string() : " (run the battery " + claim.preset + ")");
  return v;
}

// The depths that can separate the arms; the others named in `left_out`.
std::vector<ClaimComparison*> informative(const Claim& claim, std::vector<ClaimComparison>& comparisons,
                                          std::string& left_out) {
  std::vector<ClaimComparison*> used;
  for (auto& c : comparisons) {
    if (c.uninformative.empty()) used.push_back(&c);
    else left_out += fmt::format("{}{}{}", left_out.empty() ? "" : "; ",
                                 c.depth.is_null() ? "" : claim.over + "=" + c.depth.dump() + ": ", c.uninformative);
  }
  return used;
}

// Holm over the depths in each direction (into p_expected_adj, p_opposite_adj); whether every depth is
// significant as expected and whether any is the other way.
std::pair<bool, bool> holm_over(std::vector<ClaimComparison*>& used, double alpha) {
  std::vector<double> pe, po;
  for (ClaimComparison* c : used) pe.push_back(c->p_expected), po.push_back(c->p_opposite);
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

ClaimVerdict judge(const Claim& claim, const std::vector<ConfigPair>& pairs) {
  if (pairs.empty()) return not_run(claim, "both sides");
  ClaimVerdict v;
  v.claim = &claim;
  const double alpha_each = claim.alpha / static_cast<double>(pairs.size());
  for (const auto& pair : pairs) v.comparisons.push_back(compare_pair(claim, pair, alpha_each));
  std::string left_out;
  std::vector<ClaimComparison*> used = informative(claim, v.comparisons, left_out);
  if (used.empty()) {
    v.verdict = ClaimOutcome::kNotInformative;
    v.note = left_out;
    v.sensitivity = sensitivity_line(claim, {&v.comparisons.front()}, claim.alpha);
    return v;
  }
  const auto [all_expected, any_opposite] = holm_over(used, claim.alpha);
  bool size_ruled_out = false, all_inside = true, any_outside = false;
  const double size = claimed_size(claim);
  const int sign = direction_sign(claim);
  v.power = 1.0;
  for (ClaimComparison* cp : used) {
    const ClaimComparison& c = *cp;
    const double reach = sign > 0 ? c.high : -c.low;  // how far the interval reaches in the expected direction
    size_ruled_out = size_ruled_out || reach < size;
    const bool inside = claim.direction == "none" ? c.low > -size && c.high < size : c.low > -size;
    const bool outside = claim.direction == "none" ? c.low > size || c.high < -size : c.high < -size;
    all_inside = all_inside && inside;
    any_outside = any_outside || outside;
    v.power = std::min(v.power, c.power);
  }
  const bool powered = v.power >= kClaimPower;
  if (!equivalence_kind(claim)) {
    if (all_expected) v.verdict = size_ruled_out ? ClaimOutcome::kDirectionOnly : ClaimOutcome::kReproduced;
    else if (any_opposite) v.verdict = ClaimOutcome::kContradicted;
    else v.verdict = powered ? ClaimOutcome::kSizeNotReproduced : ClaimOutcome::kUndecided;
  } else {
    v.verdict = all_inside    ? ClaimOutcome::kReproduced
                : any_outside ? ClaimOutcome::kContradicted
                              : ClaimOutcome::kUndecided;
  }
  v.note = effect_note(claim, v, used);
  if (v.verdict == ClaimOutcome::kUndecided) {
    v.seeds_needed = seeds_needed(claim, pairs.front(), v.comparisons.front().n_a, alpha_each);
    v.note += v.seeds_needed ? fmt::format("; {} seeds per arm would reach {:.0f}%", v.seeds_needed, 100 * kClaimPower)
                             : "; not reached within the search's seeds per arm";
  }
  if (!left_out.empty()) v.note += "; left out: " + left_out;
  v.sensitivity = sensitivity_line(claim, used, claim.alpha);
  return v;
}

// One-arm claims: the lottery's middle share, or recall at most a level (see claims.h).
ClaimVerdict judge_one_arm(const Claim& claim, const std::vector<ConfigPair>& pairs) {
  if (pairs.empty()) return not_run(claim, "side a");
  ClaimVerdict v;
  v.claim = &claim;
  const double alpha_each = claim.alpha / static_cast<double>(pairs.size());
  const bool lottery = claim.statistic == "lottery";
  for (const auto& pair : pairs) {
    const Config& a = *pair.first;
    ClaimComparison c;
    c.depth = claim.over.empty() ? json(nullptr) : a.task_options.at(claim.over);
    c.key_a = a.key;
    const judge::ConfigSummary sa = judge::summarize(a);
    c.n_a = sa.n;
    c.recall_a = sa.recall.median;
    const double floor = claim.floor >= 0 ? claim.floor : 0.5 * a.threshold();
    int64_t learned = 0;
    for (const auto& s : a.seeds) {
      const double best = std::max(std::isfinite(s.best_accuracy) ? s.best_accuracy : 0.0,
                                   std::isfinite(s.final_accuracy) ? s.final_accuracy : 0.0);
      learned += s.locked_in() || best >= floor ? 1 : 0;
      if (lottery) c.k_a += !s.locked_in() && best >= floor ? 1 : 0;  // in between: learned, never locked in
      else if (claim.statistic == "at-most") c.k_a += std::isfinite(s.final_accuracy) && s.final_accuracy > claim.bound ? 1 : 0;
      else c.k_a += !(std::isfinite(s.final_accuracy) && s.final_accuracy >= claim.bound) ? 1 : 0;  // at-least: below
    }
    if (lottery && sa.k == sa.n) c.uninformative = "ceiling: every seed locks in";
    if (lottery && learned == 0) c.uninformative = fmt::format("floor: no seed learns (best accuracy < {:.2f})", floor);
    const double p0 = lottery ? claim.bound : 0.5;
    c.p_expected = stats::binom_test(c.k_a, c.n_a, p0, stats::Alternative::kLess).p_value;
    c.p_opposite = stats::binom_test(c.k_a, c.n_a, p0, stats::Alternative::kGreater).p_value;
    const stats::Interval ci = stats::clopper_pearson(c.k_a, c.n_a, 1.0 - 2.0 * alpha_each);
    c.effect = static_cast<double>(c.k_a) / c.n_a, c.low = ci.low, c.high = ci.high;
    // Power when nothing sits in between (lottery) or every seed is below the level (at-most): whether
    // k = 0 is significant with these seeds.
    c.power = stats::significant(stats::binom_test(0, c.n_a, p0, stats::Alternative::kLess).p_value, alpha_each) ? 1.0 : 0.0;
    v.comparisons.push_back(c);
  }
  std::string left_out;
  std::vector<ClaimComparison*> used = informative(claim, v.comparisons, left_out);
  if (used.empty()) {
    v.verdict = ClaimOutcome::kNotInformative;
    v.note = left_out;
    return v;
  }
  const auto [all_expected, any_opposite] = holm_over(used, claim.alpha);
  v.power = 1.0;
  for (ClaimComparison* c : used) v.power = std::min(v.power, c->power);
  v.verdict = all_expected   ? ClaimOutcome::kReproduced
              : any_opposite ? ClaimOutcome::kContradicted
                             : ClaimOutcome::kUndecided;
  const double p0 = lottery ? claim.bound : 0.5;
  std::string observed;
  for (ClaimComparison* c : used)
    observed += fmt::format("{}{}/{} [{:.2f}, {:.2f}]", observed.empty() ? "" : ", ", c->k_a, c->n_a, c->low, c->high);
  v.note = lottery ? fmt::format("seeds in between (learned, never locked in): {}, claimed share < {:.2f}", observed, claim.bound)
                   : fmt::format("seeds {} recall {:.2f}: {}, claimed: fewer than half",
                                 claim.statistic == "at-most" ? "above" : "below", claim.bound, observed);
  if (v.verdict == ClaimOutcome::kUndecided) {
    v.seeds_needed = static_cast<int64_t>(std::ceil(std::log(alpha_each) / std::log(1.0 - p0)));
    v.note += fmt::format("; {} seeds would let a clean result (none {}) reach significance", v.seeds_needed,
                          lottery ? "in between" : claim.statistic == "at-most" ? "above" : "below");
  }
  if (!left_out.empty()) v.note += "; left out: " + left_out;
  return v;
}

// The conjunction of other claims' verdicts.
ClaimVerdict judge_all_of(const Claim& claim, const std::vector<ClaimVerdict>& parts) {
  ClaimVerdict v;
  v.claim = &claim;
  std::vector<ClaimOutcome> verdicts;
  std::string listed;
  for (const std::string& id : claim.of)
    for (const auto& p : parts)
      if (p.claim && p.claim->id == id) {
        verdicts.push_back(p.verdict);
        listed += fmt::format("{}{}: {}", listed.empty() ? "" : "; ", id, claim_outcome_name(p.verdict));
      }
  const auto any = [&](ClaimOutcome kind) { return std::find(verdicts.begin(), verdicts.end(), kind) != verdicts.end(); };
  const bool all_reproduced = std::all_of(verdicts.begin(), verdicts.end(),
                                          [](ClaimOutcome x) { return x == ClaimOutcome::kReproduced; });
  v.verdict = any(ClaimOutcome::kContradicted)     ? ClaimOutcome::kContradicted
              : any(ClaimOutcome::kNotRun)         ? ClaimOutcome::kNotRun
              : any(ClaimOutcome::kNotInformative) ? ClaimOutcome::kNotInformative
              : all_reproduced                     ? ClaimOutcome::kReproduced
                                                   : ClaimOutcome::kUndecided;
  v.note = "all of: " + listed;
  return v;
}

}  // namespace

std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results) {
  std::vector<const Config*> configs;
  for (const auto& r : results)
    for (const auto& c : r.configs) configs.push_back(&c);
  std::vector<ClaimVerdict> out;
  for (const auto& claim : set.claims) {
    if (claim.statistic == "all-of") out.emplace_back();  // after its parts
    else if (claim.direction == "one-arm") out.push_back(judge_one_arm(claim, match_sides(claim, configs)));
    else out.push_back(judge(claim, match_sides(claim, configs)));
  }
  for (size_t i = 0; i < set.claims.size(); ++i)
    if (set.claims[i].statistic == "all-of") out[i] = judge_all_of(set.claims[i], out);
  return out;
}

int verify_exit_code(const std::vector<ClaimVerdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.claim->gate && v.verdict != ClaimOutcome::kReproduced) return 1;
  return 0;
}

namespace {

std::string counts_text(const ClaimVerdict& v, const char* sep) {
  std::string out;
  const bool equivalence = equivalence_kind(*v.claim);
  for (const auto& c : v.comparisons) {
    if (!out.empty()) out += sep;
    const std::string depth = c.depth.is_null() ? "" : fmt::format("{}={}: ", v.claim->over, c.depth.dump());
    if (v.claim->direction == "one-arm") {
      out += fmt::format("{}{}{}/{} ({})", depth,
                         v.claim->statistic == "lottery" ? std::string("in between ")
                         : fmt::format("recall {:.3f}, {}: ", c.recall_a, v.claim->statistic == "at-most" ? "above" : "below"),
                         c.k_a, c.n_a,
                         c.uninformative.empty() ? fmt::format("p {:.3g}", c.p_expected_adj) : std::string("not tested"));
      continue;
    }
    const std::string sides = v.claim->statistic == "fisher"
                                  ? fmt::format("{}/{} vs {}/{}", c.k_a, c.n_a, c.k_b, c.n_b)
                                  : fmt::format("recall {:.3f} vs {:.3f}", c.recall_a, c.recall_b);
    const std::string test = !c.uninformative.empty() ? "not tested"
                             : equivalence ? fmt::format("Δ {:+.3f} [{:+.2f}, {:+.2f}]", c.effect, c.low, c.high)
                                           : fmt::format("p {:.3g}", c.p_expected_adj);
    out += fmt::format("{}{} ({})", depth, sides, test);
  }
  return out;
}

std::string sides_text(const Claim& c) {
  if (c.statistic == "all-of") return "all of " + fmt::format("{}", fmt::join(c.of, ", "));
  if (c.direction == "one-arm") return c.a.describe();
  return c.a.describe() + " vs " + c.b.describe();
}

json sensitivity_json(const ClaimComparison& c) {
  json out = json::array();
  for (const auto& at : c.sensitivity)
    out.push_back({{"threshold", at.threshold}, {"k_a", at.k_a}, {"k_b", at.k_b}, {"p", at.p}});
  return out;
}

}  // namespace

json verdicts_json(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  json arr = json::array();
  for (const auto& v : verdicts) {
    json cmps = json::array();
    for (const auto& c : v.comparisons)
      cmps.push_back({{"depth", c.depth}, {"a", c.key_a}, {"b", c.key_b}, {"k_a", c.k_a}, {"n_a", c.n_a},
                      {"k_b", c.k_b}, {"n_b", c.n_b}, {"recall_a", c.recall_a}, {"recall_b", c.recall_b},
                      {"p_expected", c.p_expected}, {"p_opposite", c.p_opposite},
                      {"p_expected_holm", c.p_expected_adj}, {"p_opposite_holm", c.p_opposite_adj}, {"power", c.power},
                      {"effect", c.effect}, {"low", c.low}, {"high", c.high},
                      {"uninformative", c.uninformative.empty() ? json(nullptr) : json(c.uninformative)},
                      {"sensitivity", sensitivity_json(c)}});
    arr.push_back({{"id", v.claim->id}, {"claim", v.claim->quote}, {"verdict", claim_outcome_name(v.verdict)},
                   {"statistic", v.claim->statistic}, {"direction", v.claim->direction}, {"gate", v.claim->gate},
                   {"power", v.comparisons.empty() ? json(nullptr) : json(v.power)},
                   {"sided", v.claim->sided},
                   {"seeds_needed", v.seeds_needed ? json(v.seeds_needed) : json(nullptr)}, {"note", v.note},
                   {"sensitivity", v.sensitivity.empty() ? json(nullptr) : json(v.sensitivity)},
                   {"comparisons", cmps}});
  }
  return {{"schema_version", kClaimsSchemaVersion}, {"kind", "recallbench.verdicts"}, {"claims_file", set.source},
          {"generated", utc_now()}, {"exit_code", verify_exit_code(verdicts)}, {"verdicts", arr}};
}

std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts)
    out += fmt::format("{:<13} {:<28} {}{}\n{:14}{}\n{}", claim_outcome_name(v.verdict), v.claim->id, v.claim->gate ? "[gate] " : "",
                       counts_text(v, "; "), "", v.note,
                       v.sensitivity.empty() ? "" : fmt::format("{:14}{}\n", "", v.sensitivity));
  return out;
}

namespace {

// The verdict table of the HTML page: the claim's id (a badge when it gates), the counts, the note and the
// threshold sensitivity, the sentence over the two sides.
Table verdicts_page_table(const std::vector<ClaimVerdict>& verdicts) {
  Table t{{{"claim"}, {"verdict"}, {"a vs b (Holm p; for ties, Δ and interval)"}, {"effect and power"}, {"sentence"}}};
  t.cls = "changes";
  t.labelled = true;
  for (const auto& [column, label] : {std::pair{2, "a vs b"}, {3, "power"}})
    t.columns[static_cast<size_t>(column)].data_label = label;
  for (const auto& v : verdicts) {
    Inline claim = Inline().code(v.claim->id);
    if (v.claim->gate) claim.text(" ").badge(Tone::kPlain, "gate");
    Inline power(v.note);
    if (!v.sensitivity.empty()) power.raw("<br><span class=\"key\">" + html_escape(v.sensitivity) + "</span>");
    Cell sentence(Inline(v.claim->quote).raw("<br><span class=\"key\">" + html_escape(sides_text(*v.claim)) + "</span>"));
    sentence.cls = "why";
    t.rows.push_back({{claim, Inline().strong(claim_outcome_name(v.verdict)), counts_text(v, "; "), power, sentence},
                      tone_class(tone_of(v.verdict))});
  }
  return t;
}

// The verdict table of the Markdown summary: the same with the effect's seeds needed, lines broken by <br>.
Table verdicts_summary_table(const std::vector<ClaimVerdict>& verdicts) {
  Table t{{{"claim"}, {"verdict"}, {"a vs b (Holm p; for ties, Δ and interval)"}, {"effect, power, seeds needed"},
           {"tested sentence"}}};
  t.rule = " --- ";
  for (const auto& v : verdicts) {
    t.rows.push_back({{Inline().code(v.claim->id).text(v.claim->gate ? " (gate)" : ""),
                       Inline().strong(claim_outcome_name(v.verdict)), counts_text(v, "<br>"),
                       v.note + (v.sensitivity.empty() ? "" : "<br>" + v.sensitivity), v.claim->quote}});
  }
  return t;
}

}  // namespace

Group verdicts_section(const std::vector<ClaimVerdict>& verdicts) {
  Group g{Group::Kind::kSection, "claims"};
  g.add(Heading{2, "Claims"}, Show::kHtmlOnly);
  g.add(verdicts_page_table(verdicts), Show::kHtmlOnly);
  g.add(verdicts_summary_table(verdicts), Show::kMarkdownOnly);
  return g;
}

Document verdicts_document(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  Document d{"recallbench claims"};
  d.json = verdicts_json(set, verdicts);  // the page shows its "generated" time: one timestamp for both
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
