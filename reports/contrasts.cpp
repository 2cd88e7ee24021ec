// The battery's contrasts: inferred from the cells' knobs, tested with Fisher, written as JSON (see contrasts.h).
#include "reports/contrasts.h"

#include <map>

#include <fmt/format.h>

#include "core/knobs.h"

namespace rb::reports {

std::vector<ContrastSpec> infer_contrasts(const std::vector<Config>& configs) {
  std::vector<ContrastSpec> out;
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t j = i + 1; j < configs.size(); ++j) {
      const Config& x = configs[i];
      const Config& y = configs[j];
      if (setting_key(x) != setting_key(y)) continue;
      const auto kc = knob_contrast(x.knobs, y.knobs);  // core/knobs.h, as the planner does
      if (!kc) continue;
      ContrastSpec s;
      s.knob = kc->knob;
      s.a = kc->first_carries ? x.key : y.key;
      s.b = kc->first_carries ? y.key : x.key;
      const Config& a = s.a == x.key ? x : y;
      const Config& b = s.a == x.key ? y : x;
      s.name = fmt::format("{}: {} vs {}, {}", s.knob, a.cell, b.cell, a.task_label());
      out.push_back(s);
    }
  }
  return out;
}

namespace {

// Both arms present: the counts, Fisher's test and odds ratio, and the recall difference (unadjusted).
void test_arms(ContrastResult& r, const Config& a, const Config& b) {
  const Tally ta = tally(a), tb = tally(b);
  r.k_a = ta.k, r.n_a = ta.n, r.k_b = tb.k, r.n_b = tb.n;
  r.rate_diff = ta.rate() - tb.rate();
  const auto f = stats::fisher_exact({r.k_a, r.n_a - r.k_a, r.k_b, r.n_b - r.k_b});
  r.p = f.p_value;
  r.odds_ratio = f.conditional_odds_ratio;
  r.or_low = f.ci_low;
  r.or_high = f.ci_high;
  const auto ra = recalls(a), rb = recalls(b);
  r.recall_diff = spread(ra).median - spread(rb).median;
  r.p_recall = stats::mann_whitney_u(ra, rb).p_value;
}

}  // namespace

std::vector<ContrastResult> test_contrasts(const std::vector<Config>& configs, const std::vector<ContrastSpec>& specs,
                                           double alpha, stats::AdjustMethod adjust) {
  std::map<std::string, const Config*> by_key;
  for (const auto& c : configs) by_key[c.key] = &c;
  std::vector<ContrastResult> out;
  std::vector<double> ps;
  std::vector<size_t> tested;
  for (const auto& spec : specs) {
    ContrastResult r;
    r.spec = spec;
    r.adjust = stats::adjust_method_name(adjust);
    const auto ia = by_key.find(spec.a), ib = by_key.find(spec.b);
    r.missing = ia == by_key.end() || ib == by_key.end();
    if (!r.missing) {
      test_arms(r, *ia->second, *ib->second);
      ps.push_back(r.p);
      tested.push_back(out.size());
    }
    out.push_back(r);
  }
  const auto adj = stats::p_adjust(ps, adjust);
  for (size_t i = 0; i < tested.size(); ++i) {
    out[tested[i]].p_adj = adj[i];
    out[tested[i]].significant = adj[i] <= alpha;
  }
  return out;
}

json contrasts_to_json(const std::vector<ContrastResult>& contrasts) {
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
      j["fisher_p_adjusted"] = r.p_adj;  // adjusted across the contrasts by `adjust`
      j["adjust"] = r.adjust;
      if (r.adjust == "holm") j["fisher_p_holm"] = r.p_adj;  // the older name, kept while it is true
      j["odds_ratio"] = json_number(r.odds_ratio);
      j["odds_ratio_ci"] = {json_number(r.or_low), json_number(r.or_high)};
      j["mann_whitney_p"] = r.p_recall;
      j["significant"] = r.significant;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace rb::reports
