// Reading a claims file into the claim model (judge/claims.h): names become enums here, once; every
// bad field is a UsageError naming the claim and the field. The format: reports/claims_schema.md.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "judge/claims.h"

namespace rb::judge {
namespace {

const char* const kHint = "see reports/claims_schema.md";

void check_fields(const json& obj, const std::string& where,
                  const std::vector<std::string>& known) {
  for (const auto& [k, v] : obj.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw UsageError(where + ": unknown field '" + k + "'", kHint);
}

ClaimSide side_from_json(const json& j, const std::string& where) {
  if (!j.is_object())
    throw UsageError(where + ": expected an object {\"cell\", \"task\", ...}", kHint);
  check_fields(j, where, {"cell", "task", "task_options", "model", "train"});
  ClaimSide s;
  s.cell = require_field<std::string>(j, "cell", where);
  s.task = require_field<std::string>(j, "task", where);
  for (auto [field, target] :
       {std::pair{"task_options", &s.task_options}, {"model", &s.model}, {"train", &s.train}}) {
    if (!j.contains(field)) continue;
    if (!j.at(field).is_object())
      throw UsageError(where + ": field '" + field + "' must be an object", kHint);
    *target = j.at(field);
  }
  return s;
}

// An all-of claim's parts (`of`), which must name claims (checked once the whole file is read).
void read_all_of(Claim& c, const json& j, const std::string& w) {
  for (const char* f : {"a", "b", "over", "effect", "direction"})
    if (j.contains(f)) throw UsageError(w + ": an all-of claim has no field '" + f + "'", kHint);
  const json of = require_field<json>(j, "of", w);
  if (!of.is_array() || of.empty())
    throw UsageError(w + ": field 'of' must be a non-empty array of claim ids", kHint);
  for (const auto& id : of) {
    if (!id.is_string()) throw UsageError(w + ": field 'of' must hold claim ids (strings)", kHint);
    c.of.push_back(id.get<std::string>());
  }
}

// The claimed effect, by statistic: Fisher's two rates, Mann–Whitney's shift, a one-arm claim's
// bound. `direction` is nullopt when the file's name is unknown (read_test says so, after the
// effect is read).
void read_effect(Claim& c, const json& effect, const std::string& w,
                 std::optional<Direction> direction) {
  if (c.statistic == Statistic::kFisher) {
    c.effect_a = require_field<double>(effect, "a", w + ": effect");
    c.effect_b = require_field<double>(effect, "b", w + ": effect");
    if (!(c.effect_a >= 0 && c.effect_a <= 1 && c.effect_b >= 0 && c.effect_b <= 1) ||
        c.effect_a == c.effect_b)
      throw UsageError(w + ": field 'effect': rates a and b must be distinct, in [0, 1]", kHint);
    const bool up = c.effect_a > c.effect_b;
    const bool down_claimed = direction == Direction::kLess || direction == Direction::kNotLess;
    const bool up_claimed = direction == Direction::kGreater || direction == Direction::kNotGreater;
    if ((up_claimed && !up) || (down_claimed && up))
      throw UsageError(w + ": field 'effect': the rates must point the way the power is computed "
                           "(greater and not-greater: a > b, the smallest gain that matters; "
                           "less and not-less: a < b, the smallest loss that matters)",
                       kHint);
  } else if (c.statistic == Statistic::kMannWhitney) {
    c.shift = require_field<double>(effect, "shift", w + ": effect");
    if (!(c.shift > 0 && c.shift <= 1))
      throw UsageError(w + ": field 'effect.shift' must be in (0, 1]", kHint);
    if (effect.contains("quoted")) {
      const json& q = effect.at("quoted");
      const double qa = require_field<double>(q, "a", w + ": effect.quoted"),
                   qb = require_field<double>(q, "b", w + ": effect.quoted");
      if (!(qa >= 0 && qa <= 1 && qb >= 0 && qb <= 1))
        throw UsageError(w + ": field 'effect.quoted': the recall levels a and b must be in [0, 1]", kHint);
      c.quoted = std::pair{qa, qb};
    }
  } else if (c.statistic != Statistic::kLottery && effect.contains("above_chance")) {
    // at-most and at-least: the task's chance plus a margin, per depth.
    if (effect.contains("recall"))
      throw UsageError(w + ": field 'effect': give 'recall' (a level) or 'above_chance' (chance plus a margin), "
                           "not both",
                       kHint);
    c.above_chance = require_field<double>(effect, "above_chance", w + ": effect");
    if (!(*c.above_chance >= 0 && *c.above_chance < 1))
      throw UsageError(w + ": field 'effect.above_chance' must be in [0, 1)", kHint);
  } else {
    // The lottery's share in between; at-most and at-least: a recall level.
    const char* field = c.statistic == Statistic::kLottery ? "middle" : "recall";
    c.bound = require_field<double>(effect, field, w + ": effect");
    if (!(c.bound > 0 && c.bound < 1))
      throw UsageError(w + ": field 'effect." + field + "' must be in (0, 1)", kHint);
  }
  if (effect.contains("lock_in_margin")) {
    c.lock_in_margin = require_field<double>(effect, "lock_in_margin", w + ": effect");
    if (c.statistic != Statistic::kMannWhitney || !(c.lock_in_margin > 0 && c.lock_in_margin < 1))
      throw UsageError(w + ": field 'effect.lock_in_margin' is a mann-whitney tie's margin on lock-in rates, in "
                           "(0, 1)",
                       kHint);
  }
}

// The direction (its name checked here), the sidedness of the test and the recall floor.
void read_test(Claim& c, const json& j, const std::string& w, const std::string& direction_text) {
  const bool one_arm = c.one_arm();
  if (one_arm && j.contains("direction"))
    throw UsageError(w + ": a " + std::string(statistic_name(c.statistic)) +
                         " claim has no direction (it states a bound)",
                     kHint);
  if (!one_arm) {
    const std::optional<Direction> direction = parse_direction(direction_text);
    if (!direction)
      throw UsageError(w + ": field 'direction': got '" + direction_text +
                           "', expected greater, less, none, not-less or not-greater",
                       kHint);
    c.direction = *direction;
  }
  // Compared as JSON, not converted first: a huge or fractional number must be refused, not cast.
  const json sided = j.value("sided", json(1));
  if (one_arm && j.contains("sided"))
    throw UsageError(w + ": field 'sided' is for two-arm claims", kHint);
  if (sided != json(1) && sided != json(2))
    throw UsageError(w + ": field 'sided' got " + sided.dump() + ", expected 1 or 2", kHint);
  c.sided = sided == json(2) ? 2 : 1;
  if (c.sided == 2 && (one_arm || c.equivalence()))
    throw UsageError(
        w + ": field 'sided': a two-sided test is for a directional claim (greater or less)",
        kHint);
  c.floor = j.value("floor", -1.0);
  if (j.contains("floor") && !(c.floor >= 0 && c.floor <= 1))
    throw UsageError(w + ": field 'floor' must be a recall in [0, 1]", kHint);
  if (j.contains("floor_above_chance")) {
    if (c.statistic != Statistic::kLottery || j.contains("floor"))
      throw UsageError(w + ": field 'floor_above_chance' is for a lottery claim without 'floor'", kHint);
    const double m = require_field<double>(j, "floor_above_chance", w);
    if (!(m >= 0 && m < 1)) throw UsageError(w + ": field 'floor_above_chance' must be in [0, 1)", kHint);
    c.floor_above_chance = m;
  }
}

// "preset": one battery's name, or an array of them.
void read_presets(Claim& c, const json& j, const std::string& w) {
  if (!j.contains("preset")) return;
  const json& p = j.at("preset");
  if (p.is_string()) {
    c.presets = {p.get<std::string>()};
  } else if (p.is_array() && !p.empty() && std::all_of(p.begin(), p.end(), [](const json& x) { return x.is_string(); })) {
    for (const auto& x : p) c.presets.push_back(x.get<std::string>());
  } else {
    throw UsageError(w + ": field 'preset' must be a battery's name or a non-empty array of names", kHint);
  }
  for (const auto& name : c.presets) c.preset += (c.preset.empty() ? "" : " and ") + name;
}

// The sides, the depth option, the effect and the test of a two-arm or one-arm claim. An unknown
// statistic is named once the fields every claim needs are read (as two-arm, the most fields).
void read_compared(Claim& c, const json& j, const std::string& w,
                   const std::string& statistic_text) {
  const std::optional<Statistic> statistic = parse_statistic(statistic_text);
  if (statistic) c.statistic = *statistic;
  const bool one_arm = statistic && c.one_arm();
  if (j.contains("of")) throw UsageError(w + ": field 'of' is for all-of claims", kHint);
  c.a = side_from_json(require_field<json>(j, "a", w), w + ": a");
  if (one_arm && j.contains("b"))
    throw UsageError(w + ": a " + statistic_text + " claim has one side, a", kHint);
  if (!one_arm) c.b = side_from_json(require_field<json>(j, "b", w), w + ": b");
  c.over = j.value("over", "");
  if (j.contains("gap")) {
    if (one_arm) throw UsageError(w + ": field 'gap' is for two-arm claims (the gap between it and b)", kHint);
    c.gap_side = side_from_json(j.at("gap"), w + ": gap");
  }
  const std::string direction_text = one_arm ? "" : require_field<std::string>(j, "direction", w);
  const json effect = require_field<json>(j, "effect", w);
  if (!statistic)
    throw UsageError(w + ": field 'statistic': got '" + statistic_text +
                         "', expected fisher, mann-whitney, lottery, at-most, at-least or all-of",
                     kHint);
  read_effect(c, effect, w, one_arm ? std::nullopt : parse_direction(direction_text));
  read_test(c, j, w, direction_text);
  if (c.observation && !one_arm && c.direction != Direction::kNone)
    throw UsageError(w + ": an observation of two arms reports whether they differ: its direction is none", kHint);
}

// One claim; `w` names it in messages ("FILE: claims[3]", then "FILE: claim 'ID'" once its id is
// read).
void read_claim(Claim& c, const json& j, std::string& w, const std::string& where) {
  if (!j.is_object()) throw UsageError(w + ": expected an object");
  check_fields(j, w,
               {"id", "claim", "source", "preset", "a", "b", "over", "statistic", "direction",
                "effect", "alpha", "sided", "floor", "gate", "needs", "note", "of", "setting", "proxy",
                "observation", "premise", "gap", "floor_above_chance"});
  c.id = require_field<std::string>(j, "id", w);
  w = fmt::format("{}: claim '{}'", where, c.id);
  c.quote = require_field<std::string>(j, "claim", w);
  c.source = j.value("source", "");
  read_presets(c, j, w);
  c.setting = j.value("setting", "");
  c.proxy = j.value("proxy", "");
  c.observation = j.value("observation", false);
  c.premise = j.value("premise", "");
  if (c.observation && j.value("gate", false))
    throw UsageError(w + ": an observation is not graded, so it cannot gate", kHint);
  const std::string statistic = require_field<std::string>(j, "statistic", w);
  c.alpha = j.value("alpha", 0.05);
  c.gate = j.value("gate", false);
  c.needs = j.value("needs", "");
  if (!(c.alpha > 0 && c.alpha < 1))
    throw UsageError(w + ": field 'alpha' must be in (0, 1)", kHint);
  if (parse_statistic(statistic) == Statistic::kAllOf) {
    c.statistic = Statistic::kAllOf;
    return read_all_of(c, j, w);
  }
  read_compared(c, j, w, statistic);
}

// A premise names a graded claim of this file that compares runs and has no premise itself.
void check_premises(const ClaimSet& set, const std::string& where) {
  for (const Claim& c : set.claims) {
    if (c.premise.empty()) continue;
    const std::string w = where + ": claim '" + c.id + "': field 'premise' names '" + c.premise + "'";
    const auto p = std::find_if(set.claims.begin(), set.claims.end(), [&](const Claim& x) { return x.id == c.premise; });
    if (p == set.claims.end()) throw UsageError(w + ", which is not a claim here", kHint);
    if (p->all_of() || p->observation || !p->premise.empty() || p->id == c.id)
      throw UsageError(w + ": a premise is a graded claim on runs (not all-of, not an observation) without a "
                           "premise of its own",
                       kHint);
    if (c.all_of()) throw UsageError(w + ": an all-of claim takes its parts' premises, not one of its own", kHint);
  }
}

// Every all-of claim names claims of this file, none of them all-of claims themselves.
void check_all_of_parts(const ClaimSet& set, const std::string& where) {
  for (const Claim& c : set.claims)
    for (const std::string& id : c.of) {
      const auto part = std::find_if(set.claims.begin(), set.claims.end(),
                                     [&](const Claim& x) { return x.id == id; });
      if (part == set.claims.end())
        throw UsageError(where + ": claim '" + c.id + "': field 'of' names '" + id +
                             "', which is not a claim here",
                         kHint);
      if (part->all_of())
        throw UsageError(where + ": claim '" + c.id + "': field 'of' names the all-of claim '" +
                             id + "' (name its parts instead)",
                         kHint);
      if (part->observation)
        throw UsageError(where + ": claim '" + c.id + "': field 'of' names the observation '" + id +
                             "' (observations are not graded, so no verdict rests on them)",
                         kHint);
    }
}

}  // namespace

ClaimSet claims_from_json(const json& doc, const std::string& where) {
  if (kind_of(doc) != "recallbench.claims")
    throw UsageError(where + ": got no 'recallbench.claims' document", kHint);
  const json version = doc.value("schema_version", json(nullptr));
  if (!version.is_number_integer() || version.get<int64_t>() != kClaimsSchemaVersion)
    throw UsageError(fmt::format("{}: got schema_version {}, expected {}", where, version.dump(),
                                 kClaimsSchemaVersion),
                     kHint);
  check_fields(doc, where, {"schema_version", "kind", "description", "source", "claims"});
  const json claims = require_field<json>(doc, "claims", where);
  if (!claims.is_array() || claims.empty())
    throw UsageError(where + ": field 'claims' must be a non-empty array", kHint);
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
  check_premises(set, where);
  return set;
}

ClaimSet read_claims(const std::filesystem::path& path) {
  if (!std::filesystem::is_regular_file(path))
    throw UsageError("claims file " + path.string() + " not found", kHint);
  return claims_from_json(read_json_file(path), "claims " + path.string());
}

}  // namespace rb::judge
