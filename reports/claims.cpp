// Claims as data and their verdicts. See claims.h.
#include "reports/claims.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
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

std::vector<double> recalls(const Config& c) {
  std::vector<double> out;
  for (const auto& s : c.seeds) out.push_back(std::isfinite(s.final_accuracy) ? s.final_accuracy : 0.0);
  return out;
}

// Mann–Whitney power by resampling b's seeds; arm a is b shifted by `shift` (signed).
double mw_power(const std::vector<double>& b, double shift, int64_t n_a, int64_t n_b, double alpha,
                stats::Alternative alt) {
  if (b.empty() || n_a < 1 || n_b < 1) return 0.0;
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<size_t> pick(0, b.size() - 1);
  constexpr int kDraws = 400;
  int hits = 0;
  std::vector<double> x(n_a), y(n_b);
  for (int d = 0; d < kDraws; ++d) {
    for (auto& v : x) v = std::clamp(b[pick(rng)] + shift, 0.0, 1.0);
    for (auto& v : y) v = b[pick(rng)];
    hits += stats::significant(stats::mann_whitney_u(x, y, alt).p_value, alpha) ? 1 : 0;
  }
  return static_cast<double>(hits) / kDraws;
}

double signed_shift(const Claim& c) { return c.direction == "greater" || c.direction == "none" ? c.shift : -c.shift; }

}  // namespace

bool ClaimSide::matches(const Config& c) const {
  return c.cell == cell && c.task == task && subset_of(task_options, c.task_options) && subset_of(model, c.model) &&
         subset_of(train, c.train);
}

std::string ClaimSide::describe() const {
  return cell + " on " + task + describe_json(task_options) + describe_json(model) + describe_json(train);
}

ClaimSet claims_from_json(const json& doc, const std::string& where) {
  if (!doc.is_object() || doc.value("kind", "") != "recallbench.claims")
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
    const json& j = claims[i];
    std::string w = fmt::format("{}: claims[{}]", where, i);
    Claim c;
    with_json_errors(w, [&] {
      if (!j.is_object()) throw UsageError(w + ": expected an object");
      check_fields(j, w, {"id", "claim", "source", "preset", "a", "b", "over", "statistic", "direction", "effect",
                          "alpha", "gate", "needs", "note"});
      c.id = require_field<std::string>(j, "id", w);
      w = fmt::format("{}: claim '{}'", where, c.id);
      c.quote = require_field<std::string>(j, "claim", w);
      c.source = j.value("source", "");
      c.preset = j.value("preset", "");
      c.a = side_from_json(require_field<json>(j, "a", w), w + ": a");
      c.b = side_from_json(require_field<json>(j, "b", w), w + ": b");
      c.over = j.value("over", "");
      c.statistic = require_field<std::string>(j, "statistic", w);
      c.direction = require_field<std::string>(j, "direction", w);
      c.alpha = j.value("alpha", 0.05);
      c.gate = j.value("gate", false);
      c.needs = j.value("needs", "");
      const json effect = require_field<json>(j, "effect", w);
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
      } else {
        throw UsageError(w + ": field 'statistic': got '" + c.statistic + "', expected fisher or mann-whitney", kHint);
      }
      if (c.direction != "greater" && c.direction != "less" && c.direction != "none" && c.direction != "not-less")
        throw UsageError(w + ": field 'direction': got '" + c.direction + "', expected greater, less, none or not-less",
                         kHint);
      if (!(c.alpha > 0 && c.alpha < 1)) throw UsageError(w + ": field 'alpha' must be in (0, 1)", kHint);
    });
    if (!ids.insert(c.id).second) throw UsageError(w + ": id '" + c.id + "' appears twice", kHint);
    set.claims.push_back(std::move(c));
  }
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
  for (const auto& [depth, slot] : by_depth)
    if (slot.first && slot.second) pairs.push_back(slot);
  std::sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
    if (claim.over.empty()) return false;
    const json& a = x.first->task_options.at(claim.over);
    const json& b = y.first->task_options.at(claim.over);
    return a.is_number() && b.is_number() ? a.get<double>() < b.get<double>() : a.dump() < b.dump();
  });
  return pairs;
}

// One depth: the claim's test in its expected and opposite directions, and its power for the claimed effect.
ClaimComparison compare_pair(const Claim& claim, const ConfigPair& pair, double alpha_each) {
  const auto& [a, b] = pair;
  const stats::Alternative expected = claim.direction == "less" ? stats::Alternative::kLess
                                      : claim.direction == "none" ? stats::Alternative::kTwoSided
                                                                  : stats::Alternative::kGreater;
  const stats::Alternative opposite =
      expected == stats::Alternative::kTwoSided ? stats::Alternative::kTwoSided : flip(expected);
  ClaimComparison cmp;
  cmp.depth = claim.over.empty() ? json(nullptr) : a->task_options.at(claim.over);
  cmp.key_a = a->key;
  cmp.key_b = b->key;
  const ConfigSummary sa = summarize(*a), sb = summarize(*b);
  cmp.k_a = sa.k, cmp.n_a = sa.n, cmp.k_b = sb.k, cmp.n_b = sb.n;
  cmp.recall_a = sa.recall.median, cmp.recall_b = sb.recall.median;
  if (claim.statistic == "fisher") {
    const stats::Table2x2 t{sa.k, sa.n - sa.k, sb.k, sb.n - sb.k};
    cmp.p_expected = stats::fisher_p_value(t, expected);
    cmp.p_opposite = stats::fisher_p_value(t, opposite);
    cmp.power = stats::fisher_power(claim.effect_a, claim.effect_b, sa.n, sb.n, alpha_each,
                                    power_alternative(claim.direction));
  } else {
    const auto ra = recalls(*a), rb = recalls(*b);
    cmp.p_expected = stats::mann_whitney_u(ra, rb, expected).p_value;
    cmp.p_opposite = stats::mann_whitney_u(ra, rb, opposite).p_value;
    cmp.power = mw_power(rb, signed_shift(claim), sa.n, sb.n, alpha_each, power_alternative(claim.direction));
  }
  return cmp;
}

// "observed +0.800 lock-in rate, claimed +0.50 lock-in rate; power 1.00 for the claimed effect": the observed
// effect beside the claimed one (significance alone does not say the size reproduced).
std::string effect_note(const Claim& claim, const ClaimVerdict& v) {
  double observed = 0.0;
  for (const auto& c : v.comparisons)
    observed += claim.statistic == "fisher"
                    ? static_cast<double>(c.k_a) / std::max<int64_t>(c.n_a, 1) - static_cast<double>(c.k_b) / std::max<int64_t>(c.n_b, 1)
                    : c.recall_a - c.recall_b;
  observed /= static_cast<double>(v.comparisons.size());
  const double size = claim.statistic == "fisher" ? std::abs(claim.effect_a - claim.effect_b) : claim.shift;
  const char* unit = claim.statistic == "fisher" ? "lock-in rate" : "recall";
  const std::string claimed = claim.direction == "greater" ? fmt::format("+{:.2f} {}", size, unit)
                              : claim.direction == "less"  ? fmt::format("−{:.2f} {}", size, unit)
                              : claim.direction == "none"  ? fmt::format("|Δ| < {:.2f} {}", size, unit)
                                                           : fmt::format("Δ > −{:.2f} {} (not worse)", size, unit);
  return fmt::format("observed {:+.3f}{}, claimed {}; power {:.2f} for the claimed effect", observed,
                     claim.statistic == "fisher" ? " lock-in rate" : " recall", claimed, v.power);
}

// Seeds per arm (equal) that reach kClaimPower at these depths; 0 when 200 do not.
int64_t seeds_needed(const Claim& claim, const ConfigPair& first, int64_t n_now, double alpha_each) {
  if (claim.statistic == "fisher") {
    const auto plan = stats::seeds_for_power(claim.effect_a, claim.effect_b, kClaimPower, alpha_each,
                                             power_alternative(claim.direction), 200);
    return plan.reached ? plan.n : 0;
  }
  const auto rb = recalls(*first.second);
  for (int64_t n = std::max<int64_t>(2, n_now); n <= 200; n += n < 30 ? 1 : 10)
    if (mw_power(rb, signed_shift(claim), n, n, alpha_each, power_alternative(claim.direction)) >= kClaimPower) return n;
  return 0;
}

ClaimVerdict judge(const Claim& claim, const std::vector<ConfigPair>& pairs) {
  ClaimVerdict v;
  v.claim = &claim;
  if (pairs.empty()) {
    v.verdict = "not run";
    v.note = !claim.needs.empty() ? "needs " + claim.needs
                                  : "no results match both sides" +
                                        (claim.preset.empty() ? std::string() : " (run the battery " + claim.preset + ")");
    return v;
  }
  const double alpha_each = claim.alpha / static_cast<double>(pairs.size());
  std::vector<double> pe, po;
  for (const auto& pair : pairs) {
    v.comparisons.push_back(compare_pair(claim, pair, alpha_each));
    pe.push_back(v.comparisons.back().p_expected);
    po.push_back(v.comparisons.back().p_opposite);
  }
  // Holm over the depths, in each direction.
  const auto pe_adj = stats::p_adjust(pe, stats::AdjustMethod::kHolm);
  const auto po_adj = stats::p_adjust(po, stats::AdjustMethod::kHolm);
  bool all_expected = true, any_opposite = false;
  v.power = 1.0;
  for (size_t i = 0; i < v.comparisons.size(); ++i) {
    v.comparisons[i].p_expected_adj = pe_adj[i];
    v.comparisons[i].p_opposite_adj = po_adj[i];
    all_expected = all_expected && stats::significant(pe_adj[i], claim.alpha);
    any_opposite = any_opposite || stats::significant(po_adj[i], claim.alpha);
    v.power = std::min(v.power, v.comparisons[i].power);
  }
  const bool powered = v.power >= kClaimPower;
  if (claim.direction == "greater" || claim.direction == "less") {
    if (all_expected) v.verdict = "reproduced";
    else if (any_opposite) v.verdict = "contradicted";
    else v.verdict = powered ? "no effect" : "undecided";
  } else {
    if (any_opposite) v.verdict = "contradicted";
    else v.verdict = powered ? "reproduced" : "undecided";
  }
  v.note = effect_note(claim, v);
  if (v.verdict == "undecided") {
    v.seeds_needed = seeds_needed(claim, pairs.front(), v.comparisons.front().n_a, alpha_each);
    v.note += v.seeds_needed ? fmt::format("; {} seeds per arm would reach {:.0f}%", v.seeds_needed, 100 * kClaimPower)
                             : "; not reached with 200 seeds per arm";
  }
  return v;
}

}  // namespace

std::vector<ClaimVerdict> verify_claims(const ClaimSet& set, const std::vector<RunSet>& results) {
  std::vector<const Config*> configs;
  for (const auto& r : results)
    for (const auto& c : r.configs) configs.push_back(&c);
  std::vector<ClaimVerdict> out;
  for (const auto& claim : set.claims) out.push_back(judge(claim, match_sides(claim, configs)));
  return out;
}

int verify_exit_code(const std::vector<ClaimVerdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.claim->gate && v.verdict != "reproduced") return 1;
  return 0;
}

namespace {

std::string counts_text(const ClaimVerdict& v, const char* sep) {
  std::string out;
  for (const auto& c : v.comparisons) {
    if (!out.empty()) out += sep;
    const std::string depth = c.depth.is_null() ? "" : fmt::format("{}={}: ", v.claim->over, c.depth.dump());
    if (v.claim->statistic == "fisher")
      out += fmt::format("{}{}/{} vs {}/{} (p {:.3g})", depth, c.k_a, c.n_a, c.k_b, c.n_b,
                         v.claim->direction == "none" || v.claim->direction == "not-less" ? c.p_opposite_adj
                                                                                            : c.p_expected_adj);
    else
      out += fmt::format("{}recall {:.3f} vs {:.3f} (p {:.3g})", depth, c.recall_a, c.recall_b,
                         v.claim->direction == "none" || v.claim->direction == "not-less" ? c.p_opposite_adj
                                                                                            : c.p_expected_adj);
  }
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
                      {"p_expected_holm", c.p_expected_adj}, {"p_opposite_holm", c.p_opposite_adj}, {"power", c.power}});
    arr.push_back({{"id", v.claim->id}, {"claim", v.claim->quote}, {"verdict", v.verdict},
                   {"statistic", v.claim->statistic}, {"direction", v.claim->direction}, {"gate", v.claim->gate},
                   {"power", v.comparisons.empty() ? json(nullptr) : json(v.power)},
                   {"seeds_needed", v.seeds_needed ? json(v.seeds_needed) : json(nullptr)}, {"note", v.note},
                   {"comparisons", cmps}});
  }
  return {{"schema_version", kClaimsSchemaVersion}, {"kind", "recallbench.verdicts"}, {"claims_file", set.source},
          {"generated", utc_now()}, {"exit_code", verify_exit_code(verdicts)}, {"verdicts", arr}};
}

std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts)
    out += fmt::format("{:<13} {:<28} {}{}\n{:14}{}\n", v.verdict, v.claim->id, v.claim->gate ? "[gate] " : "",
                       counts_text(v, "; "), "", v.note);
  return out;
}

std::string verdicts_markdown(const std::vector<ClaimVerdict>& verdicts) {
  std::string md = "| claim | verdict | a vs b (Holm p) | power / seeds needed | tested sentence |\n"
                   "| --- | --- | --- | --- | --- |\n";
  for (const auto& v : verdicts) {
    std::string quote = v.claim->quote;
    std::replace(quote.begin(), quote.end(), '|', '/');
    md += fmt::format("| `{}`{} | **{}** | {} | {} | {} |\n", v.claim->id, v.claim->gate ? " (gate)" : "", v.verdict,
                      counts_text(v, "<br>"), v.note, quote);
  }
  return md;
}

std::string verdicts_section_html(const std::vector<ClaimVerdict>& verdicts) {
  std::string body =
      "<section id=\"claims\"><h2>Claims</h2><div class=\"scroll\"><table class=\"changes\"><thead><tr><th>claim</th>"
      "<th>verdict</th><th>a vs b (Holm p)</th><th>effect and power</th><th>sentence</th></tr></thead><tbody>";
  for (const auto& v : verdicts) {
    const std::string cls = v.verdict == "reproduced" ? "v-imp" : v.verdict == "contradicted" ? "v-reg" : v.verdict == "undecided" ? "v-inc" : "";
    body += fmt::format("<tr class=\"{}\"><td data-label=\"claim\"><code>{}</code>{}</td><td data-label=\"verdict\"><b>{}"
                        "</b></td><td data-label=\"a vs b\">{}</td><td data-label=\"power\">{}</td><td data-label=\"sentence\" "
                        "class=\"why\">{}<br><span class=\"key\">{} vs {}</span></td></tr>",
                        cls, html_escape(v.claim->id), v.claim->gate ? " <span class=\"badge\">gate</span>" : "",
                        html_escape(v.verdict), html_escape(counts_text(v, "; ")), html_escape(v.note),
                        html_escape(v.claim->quote), html_escape(v.claim->a.describe()), html_escape(v.claim->b.describe()));
  }
  return body + "</tbody></table></div></section>";
}

std::string verdicts_html(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts) {
  const std::string header =
      fmt::format("<header><h1>recallbench: claims</h1><p class=\"meta\">{} claims from <code>{}</code> · {}</p></header>",
                  verdicts.size(), html_escape(set.source), utc_now());
  return html_page("recallbench claims", header + verdicts_section_html(verdicts));
}

}  // namespace rb::reports
