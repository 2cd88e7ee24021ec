// The battery's contrasts: inferred from the cells' knobs and tested with Fisher (see contrasts.h).
#include "judge/contrasts.h"

#include <map>

#include <fmt/format.h>

#include "core/knobs.h"

namespace rb::judge {

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
    out[tested[i]].significant = stats::significant(adj[i], alpha);
  }
  return out;
}

}  // namespace rb::judge
