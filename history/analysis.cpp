#include "history/analysis.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/history_page.h"
#include "reports/report.h"

namespace rb::history {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median_of(const std::vector<double>& v) { return rb::spread(v).median; }  // NaN when empty

stats::SurvivalObservation survival_of(const Outcome& o) {
  return o.lock_in_step ? stats::SurvivalObservation{static_cast<double>(*o.lock_in_step), true}
                        : stats::SurvivalObservation{static_cast<double>(o.budget), false};
}

bool selected(const std::string& selector, const std::string& key, const std::string& label) {
  if (selector.empty()) return true;
  std::stringstream ss(selector);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty() && (key.find(part) != std::string::npos || label.find(part) != std::string::npos)) return true;
  return false;
}

std::string short_hash7(const std::string& h) { return h.substr(0, 7); }

// One series under test: its groups (one per commit that has data) and which commit each group is.
struct Series {
  std::string name, label;
  Metric metric;
  stats::SeriesKind kind;
  std::vector<stats::SeriesGroup> groups;
  std::vector<int64_t> commit_index;  // per group
  int64_t budget = 0;
};

// The level of groups [lo, hi) of a series, as the changes list shows it.
double level(const Series& s, int64_t lo, int64_t hi) {
  std::vector<double> values;
  std::vector<stats::SurvivalObservation> times;
  for (int64_t g = lo; g < hi; ++g) {
    const auto& grp = s.groups[static_cast<size_t>(g)];
    values.insert(values.end(), grp.values.begin(), grp.values.end());
    times.insert(times.end(), grp.times.begin(), grp.times.end());
  }
  switch (s.metric) {
    case Metric::kLockIn: {
      double k = 0;
      for (double v : values) k += v;
      return values.empty() ? kNaN : k / static_cast<double>(values.size());
    }
    case Metric::kTime: return times.empty() ? kNaN : stats::restricted_mean(times, static_cast<double>(s.budget));
    case Metric::kRecall:
    case Metric::kSpeed: return median_of(values);
  }
  return kNaN;
}

Change make_change(const Series& s, const std::vector<CommitInfo>& commits, judge::ChangeKind kind, int64_t at,
                   int64_t lo, int64_t hi, double p, double p_adj) {
  Change c;
  c.series = s.name;
  c.label = s.label;
  c.metric = s.metric;
  c.kind = kind;
  c.index = s.commit_index[static_cast<size_t>(at)];
  c.commit = commits[static_cast<size_t>(c.index)].hash;
  if (kind == judge::ChangeKind::kDrift) {
    c.first_commit = commits[static_cast<size_t>(s.commit_index[static_cast<size_t>(lo)])].hash;
    c.last_commit = commits[static_cast<size_t>(s.commit_index[static_cast<size_t>(hi - 1)])].hash;
  } else if (at > 0 && c.index - s.commit_index[static_cast<size_t>(at - 1)] > 1) {
    c.first_commit = commits[static_cast<size_t>(s.commit_index[static_cast<size_t>(at - 1)] + 1)].hash;
    c.last_commit = c.commit;
  }
  c.before = level(s, lo, at);
  c.after = level(s, at, hi);
  c.p = p;
  c.p_adjusted = p_adj;
  return c;
}

struct Loaded {
  std::vector<CommitInfo> commits;
  std::map<std::string, int64_t> index;
  // config → commit index → outcomes
  std::map<std::string, std::map<int64_t, std::vector<Outcome>>> runs;
  std::map<std::string, std::string> label;
  std::map<std::string, std::map<int64_t, std::vector<double>>> bench;  // name → commit index → samples
};

std::string config_label(const History& h, const std::string& key, const std::string& latest_commit) {
  const json doc = h.config_document(latest_commit, key);
  if (!doc.is_object() || !doc.contains("cell") || !doc.at("cell").is_string()) return key;
  rb::Config cfg;  // just what the label needs (a stored identity carries no seeds)
  cfg.cell = doc.at("cell").get<std::string>();
  cfg.task = string_or(doc, "task", "");  // an imported document's task of another type: left out of the label
  if (doc.contains("task_options") && doc.at("task_options").is_object()) cfg.task_options = doc.at("task_options");
  return cfg.cell + " · " + cfg.task_label();
}

Loaded load(const History& h, const std::string& selector) {
  Loaded d;
  d.commits = h.commits();
  for (size_t i = 0; i < d.commits.size(); ++i) d.index[d.commits[i].hash] = static_cast<int64_t>(i);
  for (auto& o : h.outcomes()) {
    const int64_t i = d.index.at(o.commit);
    d.runs[o.config][i].push_back(std::move(o));
  }
  for (auto it = d.runs.begin(); it != d.runs.end();) {
    const std::string latest = d.commits[static_cast<size_t>(it->second.rbegin()->first)].hash;
    const std::string label = config_label(h, it->first, latest);
    if (!selected(selector, it->first, label)) {
      it = d.runs.erase(it);
      continue;
    }
    d.label[it->first] = label;
    ++it;
  }
  for (const auto& b : h.benchmarks())
    if (selected(selector, b.name, b.name)) d.bench[b.name][d.index.at(b.commit)].push_back(b.value);
  return d;
}

std::vector<Series> build_series(const Loaded& d) {
  std::vector<Series> out;
  for (const auto& [key, by_commit] : d.runs) {
    Series lock{key, d.label.at(key), Metric::kLockIn, stats::SeriesKind::kBinary, {}, {}, 0};
    Series time{key, d.label.at(key), Metric::kTime, stats::SeriesKind::kSurvival, {}, {}, 0};
    Series recall{key, d.label.at(key), Metric::kRecall, stats::SeriesKind::kContinuous, {}, {}, 0};
    for (const auto& [i, outcomes] : by_commit) {
      stats::SeriesGroup gl, gt, gr;
      for (const auto& o : outcomes) {
        gl.values.push_back(o.locked_in ? 1.0 : 0.0);
        gt.times.push_back(survival_of(o));
        gr.values.push_back(o.recall);
        for (auto* g : {&gl, &gt, &gr}) g->ids.push_back(o.seed);
        time.budget = std::max(time.budget, o.budget);
      }
      for (auto* s : {&lock, &time, &recall}) s->commit_index.push_back(i);
      lock.groups.push_back(std::move(gl));
      time.groups.push_back(std::move(gt));
      recall.groups.push_back(std::move(gr));
    }
    lock.budget = recall.budget = time.budget;
    out.push_back(std::move(lock));
    out.push_back(std::move(time));
    out.push_back(std::move(recall));
  }
  for (const auto& [name, by_commit] : d.bench) {
    Series speed{name, name, Metric::kSpeed, stats::SeriesKind::kLogMeasure, {}, {}, 0};
    for (const auto& [i, values] : by_commit) {
      speed.groups.push_back({values, {}, {}});
      speed.commit_index.push_back(i);
    }
    out.push_back(std::move(speed));
  }
  return out;
}


// A recorded run as the comparisons take it (no curve, no timings: the history keeps outcomes only).
rb::SeedOutcome seed_outcome(const Outcome& o) {
  rb::SeedOutcome s;
  s.seed = o.seed;
  s.status = o.status;
  s.reached_threshold = o.locked_in;
  s.final_accuracy = o.recall;
  s.best_accuracy = o.best_recall.value_or(o.recall);
  s.lock_in_step = o.lock_in_step.value_or(-1);
  s.steps = o.lock_in_step.value_or(o.budget);
  s.train_fingerprint = o.train_fingerprint;
  return s;
}

// `base` with `seeds`, and with the identity (spec, state size, architecture, fingerprints) the history stored
// for (commit, base.key) when it holds that config's document.
rb::Config with_identity(const History& history, const std::string& commit, rb::Config base,
                              std::vector<rb::SeedOutcome> seeds) {
  base.seeds = std::move(seeds);
  if (json doc = history.config_document(commit, base.key); doc.is_object()) {
    doc["seeds"] = reports::config_to_json(base, false).at("seeds");  // the stored identity, these seeds
    doc.erase("summary");
    return reports::config_from_json(doc, history.path() + ": config " + base.key);
  }
  return base;
}

}  // namespace

Analysis analyse(const History& history, const AnalysisOptions& options) {
  RB_CHECK_INPUT(options.alpha > 0 && options.alpha < 1, "alpha must be in (0, 1)");
  const Loaded d = load(history, options.config_selector);
  Analysis a;
  a.commits = d.commits;
  for (const auto& [key, by_commit] : d.runs) {
    Analysis::ConfigSeries cs;
    cs.key = key;
    cs.label = d.label.at(key);
    for (const auto& [i, outcomes] : by_commit) {
      ConfigPoint p;
      p.commit = d.commits[static_cast<size_t>(i)].hash;
      p.index = i;
      std::vector<stats::SurvivalObservation> times;
      std::vector<double> recall;
      for (const auto& o : outcomes) {
        p.n += 1;
        p.k += o.locked_in ? 1 : 0;
        p.budget = std::max(p.budget, o.budget);
        times.push_back(survival_of(o));
        recall.push_back(o.recall);
      }
      p.ci = stats::clopper_pearson(p.k, p.n);
      p.median_time = stats::kaplan_meier_median(times);
      p.rmst = stats::restricted_mean(times, static_cast<double>(p.budget));
      const auto sp = rb::spread(recall);
      p.recall_median = sp.median;
      p.recall_q1 = sp.q1;
      p.recall_q3 = sp.q3;
      cs.budget = std::max(cs.budget, p.budget);
      cs.points.push_back(p);
    }
    a.configs.push_back(std::move(cs));
  }
  for (const auto& [name, by_commit] : d.bench) {
    Analysis::BenchSeries bs{name, {}};
    for (const auto& [i, values] : by_commit) bs.points.emplace_back(i, median_of(values));
    a.benchmarks.push_back(std::move(bs));
  }

  if (!options.detect) return a;
  const std::vector<Series> series = build_series(d);
  // The family: a step and a drift test per series. Enough permutations that the smallest p a series can
  // reach is well below alpha / family size (Holm's first threshold).
  const auto family = static_cast<int64_t>(4 * series.size());  // at most 4 tests a series
  stats::ChangeTestOptions perm = options.permutation;
  perm.max_permutations = std::max<int64_t>(
      perm.max_permutations, std::min<int64_t>(999999, static_cast<int64_t>(std::ceil(20.0 * static_cast<double>(family) / options.alpha))));
  struct Entry {
    size_t series;
    bool drift;
    stats::ChangeTest test;
  };
  // Two designs: whole commits permuted (fresh seeds per commit), and, where commits rerun the same seeds,
  // each seed's outcomes permuted among its commits (stats/changepoint.h). A series' family members are fixed
  // by the data's layout, not its values.
  std::vector<bool> replicated(series.size(), false);
  for (size_t s = 0; s < series.size(); ++s) {
    std::map<int64_t, int> seen;
    for (const auto& g : series[s].groups)
      for (int64_t id : std::set<int64_t>(g.ids.begin(), g.ids.end())) replicated[s] = replicated[s] || ++seen[id] >= 2;
  }
  std::vector<Entry> entries;
  for (size_t s = 0; s < series.size(); ++s) {
    const auto n = static_cast<int64_t>(series[s].groups.size());
    entries.push_back({s, false, stats::step_test(series[s].groups, 0, n, series[s].kind, perm)});
    entries.push_back({s, true, stats::trend_test(series[s].groups, 0, n, series[s].kind, perm)});
    if (replicated[s]) {
      entries.push_back({s, false, stats::step_test_within_seeds(series[s].groups, 0, n, series[s].kind, perm)});
      entries.push_back({s, true, stats::trend_test_within_seeds(series[s].groups, 0, n, series[s].kind, perm)});
    }
  }
  a.tests = static_cast<int64_t>(entries.size());
  std::vector<double> p;
  for (const auto& e : entries) p.push_back(e.test.p);
  const std::vector<double> p_adj = p.empty() ? p : stats::p_adjust(p, stats::AdjustMethod::kHolm);

  // Per series: its most significant rejected step (either design) places the changes, with binary
  // segmentation below it in the same design; a rejected drift is reported when no step is, or when a trend
  // remains inside the steps' segments.
  std::map<size_t, size_t> best_step, best_drift;  // series → entry
  for (size_t e = 0; e < entries.size(); ++e) {
    if (p_adj[e] > options.alpha) continue;
    if (!entries[e].drift && entries[e].test.split < 0) continue;
    auto& slot = entries[e].drift ? best_drift : best_step;
    auto it = slot.find(entries[e].series);
    if (it == slot.end() || p_adj[e] < p_adj[it->second] ||
        (p_adj[e] == p_adj[it->second] && entries[e].test.statistic > entries[it->second].test.statistic))
      slot[entries[e].series] = e;
  }
  for (const auto& [si, e] : best_step) {
    const Series& s = series[si];
    const auto n = static_cast<int64_t>(s.groups.size());
    auto splits = stats::segment_below(s.groups, 0, n, entries[e].test, s.kind, options.alpha, perm);
    std::vector<int64_t> cuts{0};
    for (const auto& t : splits) cuts.push_back(t.split);
    cuts.push_back(n);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t t = 0; t < splits.size(); ++t) {
      const int64_t at = splits[t].split;
      const auto pos = std::lower_bound(cuts.begin(), cuts.end(), at) - cuts.begin();
      a.changes.push_back(make_change(s, d.commits, judge::ChangeKind::kStep, at, cuts[static_cast<size_t>(pos - 1)],
                                      cuts[static_cast<size_t>(pos + 1)], splits[t].p, t == 0 ? p_adj[e] : splits[t].p));
      a.changes.back().design = splits[t].within_seeds ? judge::Design::kSeeds : judge::Design::kCommits;
    }
    if (auto it = best_drift.find(si); it != best_drift.end()) {
      const bool within = entries[it->second].test.within_seeds;
      bool residual = false;
      for (size_t c = 0; c + 1 < cuts.size() && !residual; ++c)
        if (cuts[c + 1] - cuts[c] >= 3)
          residual = (within ? stats::trend_test_within_seeds(s.groups, cuts[c], cuts[c + 1], s.kind, perm)
                             : stats::trend_test(s.groups, cuts[c], cuts[c + 1], s.kind, perm))
                         .p <= options.alpha;
      if (!residual) best_drift.erase(it);  // explained by the steps
    }
  }
  for (const auto& [si, e] : best_drift) {
    const Series& s = series[si];
    const auto n = static_cast<int64_t>(s.groups.size());
    a.changes.push_back(make_change(s, d.commits, judge::ChangeKind::kDrift, n / 2, 0, n, entries[e].test.p, p_adj[e]));
    a.changes.back().design = entries[e].test.within_seeds ? judge::Design::kSeeds : judge::Design::kCommits;
  }
  std::stable_sort(a.changes.begin(), a.changes.end(), [](const Change& x, const Change& y) {
    return x.p_adjusted != y.p_adjusted ? x.p_adjusted < y.p_adjusted : x.index < y.index;
  });
  return a;
}

json change_json(const Change& c, const Analysis& a) {
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json j = {{"config", c.series},  {"label", c.label},   {"metric", metric_name(c.metric)},
            {"kind", judge::change_kind_name(c.kind)}, {"design", judge::design_name(c.design)},
            {"direction", judge::direction_name(c.direction())},
            {"commit", c.commit},  {"index", c.index},   {"before", num(c.before)},        {"after", num(c.after)},
            {"effect", num(c.effect())}, {"effect_label", reports::effect_label(c.metric, c.effect())}, {"p", c.p},  {"p_adjusted", c.p_adjusted}};
  if (!c.first_commit.empty()) {
    j["first_commit"] = c.first_commit;
    j["last_commit"] = c.last_commit;
  }
  const auto& info = a.commits[static_cast<size_t>(c.index)];
  j["subject"] = info.subject;
  j["date"] = info.date;
  return j;
}

json analysis_json(const Analysis& a, const History& history, const AnalysisOptions& options) {
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json commits = json::array();
  for (size_t i = 0; i < a.commits.size(); ++i) {
    const auto& c = a.commits[i];
    commits.push_back({{"commit", c.hash}, {"short", short_hash7(c.hash)}, {"date", c.date}, {"subject", c.subject},
                       {"branch", c.branch}, {"parent", c.parent.empty() ? json(nullptr) : json(c.parent)},
                       {"index", static_cast<int64_t>(i)}});
  }
  std::map<std::string, json> changes_of;
  json all = json::array();
  for (const auto& c : a.changes) {
    const json j = change_json(c, a);
    all.push_back(j);
    changes_of[c.series].push_back(j);
  }
  json configs = json::array();
  for (const auto& cs : a.configs) {
    json points = json::array();
    for (const auto& p : cs.points)
      points.push_back({{"commit", p.commit}, {"index", p.index}, {"n", p.n}, {"locked_in", p.k},
                        {"rate", static_cast<double>(p.k) / static_cast<double>(p.n)}, {"ci", {p.ci.low, p.ci.high}},
                        {"median_time", num(p.median_time)}, {"rmst", num(p.rmst)}, {"budget", p.budget},
                        {"recall_median", num(p.recall_median)}, {"recall_q1", num(p.recall_q1)},
                        {"recall_q3", num(p.recall_q3)}});
    configs.push_back({{"config", cs.key}, {"label", cs.label}, {"budget", cs.budget}, {"points", points},
                       {"changes", changes_of.count(cs.key) ? changes_of[cs.key] : json::array()}});
  }
  json benchmarks = json::array();
  for (const auto& b : a.benchmarks) {
    json points = json::array();
    for (const auto& [i, v] : b.points)
      points.push_back({{"commit", a.commits[static_cast<size_t>(i)].hash}, {"index", i}, {"value", v}});
    benchmarks.push_back({{"benchmark", b.name}, {"points", points},
                          {"changes", changes_of.count(b.name) ? changes_of[b.name] : json::array()}});
  }
  std::map<std::string, json> claim_points;
  std::map<std::string, int64_t> index;
  for (size_t i = 0; i < a.commits.size(); ++i) index[a.commits[i].hash] = static_cast<int64_t>(i);
  for (const auto& v : history.verdicts())
    claim_points[v.claim].push_back({{"commit", v.commit}, {"index", index.at(v.commit)}, {"verdict", v.verdict}});
  json claims = json::array();
  for (auto& [claim, points] : claim_points) {
    std::sort(points.begin(), points.end(), [](const json& x, const json& y) { return x.at("index") < y.at("index"); });
    claims.push_back({{"claim", claim}, {"points", points}});
  }
  return {{"kind", "recallbench.history_report"},
          {"schema_version", 1},
          {"database", history.path()},
          {"battery", history.battery()},
          {"generated", reports::utc_now()},
          {"alpha", options.alpha},
          {"tests", a.tests},
          {"method",
           "per config and metric: a step (best split of the commit series: two-proportion z on lock-in, log-rank on "
           "time to lock-in censored at the budget, Mann-Whitney on recall, mean log time on kernel speed) and a "
           "drift (linear trend over commits); p-values by permuting whole commits and, where commits rerun the same "
           "seeds, each seed's outcomes among its commits; Holm over every test of the history at alpha; binary "
           "segmentation below a significant step"},
          {"commits", commits},
          {"configs", configs},
          {"benchmarks", benchmarks},
          {"claims", claims},
          {"changes", all}};
}

std::string changes_table(const Analysis& a) {
  if (a.changes.empty())
    return fmt::format("no change found over {} commits ({} tests, Holm at the history level)\n", a.commits.size(), a.tests);
  std::string out = fmt::format("{:<8} {:<6} {:<19} {:<10} {:>12} {:>12} {:<16} {:>9}  {}\n", "metric", "kind",
                                "commit", "", "before", "after", "effect", "p (Holm)", "config");
  for (const auto& c : a.changes) {
    const std::string where = c.first_commit.empty() ? short_hash7(c.commit)
                                                     : short_hash7(c.first_commit) + ".." + short_hash7(c.last_commit);
    out += fmt::format("{:<8} {:<6} {:<19} {:<10} {:>12.4g} {:>12.4g} {:<16} {:>9.2g}  {}\n", metric_name(c.metric),
                       judge::change_kind_name(c.kind), where, a.commits[static_cast<size_t>(c.index)].date.substr(0, 10),
                       c.before, c.after, reports::effect_label(c.metric, c.effect()), c.p_adjusted, c.label);
  }
  return out;
}

std::string log_table(const Analysis& a, Metric metric) {
  std::vector<std::string> names;
  std::vector<std::map<int64_t, std::string>> cells;
  if (metric == Metric::kSpeed) {
    for (const auto& b : a.benchmarks) {
      names.push_back(b.name);
      std::map<int64_t, std::string> m;
      for (const auto& [i, v] : b.points) m[i] = fmt::format("{:.4g}", v);
      cells.push_back(std::move(m));
    }
  } else {
    for (const auto& cs : a.configs) {
      names.push_back(cs.label);
      std::map<int64_t, std::string> m;
      for (const auto& p : cs.points)
        m[p.index] = metric == Metric::kLockIn ? fmt::format("{}/{}", p.k, p.n)
                     : metric == Metric::kTime ? (std::isfinite(p.median_time) ? fmt::format("{:.0f}", p.median_time)
                                                                               : fmt::format(">{}", p.budget))
                                               : fmt::format("{:.3f}", p.recall_median);
      cells.push_back(std::move(m));
    }
  }
  if (names.empty())
    return fmt::format("no {} recorded for {}{}\n", metric == Metric::kSpeed ? "benchmarks" : "configs",
                       metric_name(metric),
                       metric == Metric::kSpeed ? " (history add a `recallbench bench --out` file)"
                                                : " (history add a results store; --metric speed for benchmarks)");
  std::string out = fmt::format("{} per commit ({}):\n", metric_name(metric),
                                metric == Metric::kLockIn  ? "seeds locked in / seeds"
                                : metric == Metric::kTime  ? "Kaplan-Meier median steps to lock-in; >budget when not reached"
                                : metric == Metric::kRecall ? "median final recall"
                                                            : "median time relative to the GEMM ceiling");
  for (size_t c = 0; c < names.size(); ++c) out += fmt::format("  [{}] {}\n", c + 1, names[c]);
  out += fmt::format("{:<8} {:<10} {:<32}", "commit", "date", "subject");
  for (size_t c = 0; c < names.size(); ++c) out += fmt::format(" {:>9}", fmt::format("[{}]", c + 1));
  out += "\n";
  for (size_t i = 0; i < a.commits.size(); ++i) {
    const auto& info = a.commits[i];
    std::string row = fmt::format("{:<8} {:<10} {:<32.32}", short_hash7(info.hash), info.date.substr(0, 10), info.subject);
    bool any = false;
    for (const auto& m : cells) {
      auto it = m.find(static_cast<int64_t>(i));
      any |= it != m.end();
      row += fmt::format(" {:>9}", it == m.end() ? "-" : it->second);
    }
    if (any) out += row + "\n";
  }
  return out;
}

reports::Baseline pooled_baseline(const History& history, const std::vector<rb::Config>& current,
                                  const std::string& exclude_commit, double alpha, std::vector<std::string>* notes) {
  const auto commits = history.commits();
  std::map<std::string, int64_t> index;
  for (size_t i = 0; i < commits.size(); ++i) index[commits[i].hash] = static_cast<int64_t>(i);
  reports::Baseline base;
  base.battery = history.battery();
  base.created = reports::utc_now();
  base.context = {{"history", history.path()}};
  for (const auto& cur : current) {
    std::map<int64_t, std::vector<Outcome>> by_commit;
    for (auto& o : history.outcomes(cur.key))
      if (o.commit != exclude_commit && o.commit.rfind(exclude_commit.empty() ? "\x01" : exclude_commit, 0) != 0)
        by_commit[index.at(o.commit)].push_back(std::move(o));
    if (by_commit.empty()) {
      if (notes) notes->push_back(cur.key + ": not in the history (no baseline)");
      continue;
    }
    // Identity: only the commits whose model and data match the latest recorded one.
    std::vector<int64_t> chain;
    const Outcome& latest = by_commit.rbegin()->second.front();
    for (auto it = by_commit.rbegin(); it != by_commit.rend(); ++it) {
      const Outcome& o = it->second.front();
      if (o.architecture != latest.architecture || o.state_size != latest.state_size ||
          o.eval_fingerprint != latest.eval_fingerprint)
        break;
      chain.insert(chain.begin(), it->first);
    }
    // The last change in lock-in, time or recall along that chain.
    std::vector<stats::SeriesGroup> lock, time, recall;
    for (int64_t i : chain) {
      stats::SeriesGroup gl, gt, gr;
      for (const auto& o : by_commit[i]) {
        gl.values.push_back(o.locked_in ? 1.0 : 0.0);
        gt.times.push_back(survival_of(o));
        gr.values.push_back(o.recall);
        for (auto* g : {&gl, &gt, &gr}) g->ids.push_back(o.seed);
      }
      lock.push_back(std::move(gl));
      time.push_back(std::move(gt));
      recall.push_back(std::move(gr));
    }
    const auto n = static_cast<int64_t>(chain.size());
    int64_t start = 0;
    const std::pair<const std::vector<stats::SeriesGroup>*, stats::SeriesKind> tests[] = {
        {&lock, stats::SeriesKind::kBinary}, {&time, stats::SeriesKind::kSurvival}, {&recall, stats::SeriesKind::kContinuous}};
    for (const auto& [groups, kind] : tests)
      for (const auto& top : {stats::step_test(*groups, 0, n, kind), stats::step_test_within_seeds(*groups, 0, n, kind)}) {
        if (top.split < 0 || top.p > alpha / 6.0) continue;
        for (const auto& t : stats::segment_below(*groups, 0, n, top, kind, alpha / 6.0)) start = std::max(start, t.split);
      }
    const std::string latest_commit = commits[static_cast<size_t>(chain.back())].hash;
    std::map<int64_t, rb::SeedOutcome> seeds;  // per seed, the latest commit's run
    for (int64_t c = start; c < n; ++c)
      for (const auto& o : by_commit[chain[static_cast<size_t>(c)]]) seeds[o.seed] = seed_outcome(o);
    std::vector<rb::SeedOutcome> pooled;
    for (auto& [seed, s] : seeds) pooled.push_back(std::move(s));
    rb::Config cfg = with_identity(history, latest_commit, cur, std::move(pooled));
    if (notes)
      notes->push_back(fmt::format("{}: {} seeds pooled from {} commits ({}..{}){}", cur.key, cfg.seeds.size(), n - start,
                                   short_hash7(commits[static_cast<size_t>(chain[static_cast<size_t>(start)])].hash),
                                   short_hash7(latest_commit),
                                   start > 0 ? ", since the change at " +
                                                   short_hash7(commits[static_cast<size_t>(chain[static_cast<size_t>(start)])].hash)
                                             : ""));
    base.configs.push_back(std::move(cfg));
  }
  return base;
}

reports::BaselineSource history_baseline_source(const std::string& database, double alpha) {
  return [database, alpha](const rb::RunSet& current) {
    const History h(database, History::Mode::kRead);
    std::string exclude = string_or(current.context, "git_commit", "");
    if (exclude.size() > 6 && exclude.compare(exclude.size() - 6, 6, "-dirty") == 0) exclude.resize(exclude.size() - 6);
    std::vector<std::string> notes;
    reports::Baseline base = pooled_baseline(h, current.configs, exclude, alpha, &notes);
    if (base.configs.empty())
      throw UsageError("history " + database + " holds no runs of these configs (or only of this commit)",
                       "record earlier commits first: recallbench history add DIR");
    std::fprintf(stderr, "baseline from the history %s:\n", database.c_str());
    for (const auto& n : notes) std::fprintf(stderr, "  %s\n", n.c_str());
    return base;
  };
}

std::vector<rb::Config> commit_configs(const History& history, const std::string& commit,
                                            const std::vector<std::string>& keys) {
  std::map<std::string, std::vector<Outcome>> by_config;
  if (keys.empty()) {
    for (auto& o : history.outcomes())
      if (o.commit == commit) by_config[o.config].push_back(std::move(o));
  } else {
    for (const auto& k : keys)
      for (auto& o : history.outcomes(k))
        if (o.commit == commit) by_config[k].push_back(std::move(o));
  }
  std::vector<rb::Config> out;
  for (const auto& [key, runs] : by_config) {
    // Without a stored document the key names the task and the cell ("mqar/diag+conv/...") and the
    // outcomes carry the rest of the identity.
    rb::Config base;
    base.key = key;
    const auto slash = key.find('/');
    base.task = key.substr(0, slash);
    if (slash != std::string::npos) base.cell = key.substr(slash + 1, key.find('/', slash + 1) - slash - 1);
    base.set_train({{"steps", runs.front().budget}});
    base.state_size = runs.front().state_size;
    base.architecture = runs.front().architecture;
    base.eval_fingerprint = runs.front().eval_fingerprint;
    std::vector<rb::SeedOutcome> seeds;
    for (const auto& o : runs) seeds.push_back(seed_outcome(o));
    std::sort(seeds.begin(), seeds.end(), [](const auto& a, const auto& b) { return a.seed < b.seed; });
    out.push_back(with_identity(history, commit, std::move(base), std::move(seeds)));
  }
  return out;
}

}  // namespace rb::history
