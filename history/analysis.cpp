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

// Two runs of one seed are the same observation when their outcomes are bit-identical (runs are
// deterministic per seed: an unchanged commit repeats them exactly).
bool same_outcome(const Outcome& a, const Outcome& b) {
  return a.status == b.status && a.locked_in == b.locked_in && a.lock_in_step == b.lock_in_step &&
         a.budget == b.budget && a.recall == b.recall && a.best_recall == b.best_recall;
}

// An epoch: consecutive commits (with runs of the config) whose runs are bit-identical for every seed they
// share; one observation per seed however many commits it spans. A commit that shares no seed with the
// epoch before it starts a new one (nothing shows it repeats it).
struct Epoch {
  int64_t first = 0, last = 0;       // commit indices of its first and last commit
  std::map<int64_t, Outcome> seeds;  // per seed, its outcome
};

std::vector<Epoch> epochs_of(const std::map<int64_t, std::vector<Outcome>>& by_commit) {
  std::vector<Epoch> out;
  for (const auto& [i, outcomes] : by_commit) {
    bool shared = false, same = !out.empty();
    for (const auto& o : outcomes) {
      if (out.empty()) break;
      const auto it = out.back().seeds.find(o.seed);
      if (it == out.back().seeds.end()) continue;
      shared = true;
      same = same && same_outcome(it->second, o);
    }
    if (!(shared && same)) out.push_back(Epoch{i, i, {}});
    out.back().last = i;
    for (const auto& o : outcomes) out.back().seeds.emplace(o.seed, o);
  }
  return out;
}

// One series under test: its groups (one per epoch of a config, or per commit of a benchmark), the commits
// each group spans, and for a config the epochs themselves (the paired tests read the seeds' outcomes).
struct Series {
  std::string name, label;
  Metric metric;
  stats::SeriesKind kind;
  std::vector<stats::SeriesGroup> groups;
  std::vector<int64_t> commit_index;  // per group: its first commit
  std::vector<int64_t> last_index;    // per group: its last commit
  int64_t budget = 0;
  const std::vector<Epoch>* epochs = nullptr;  // configs only
  bool paired = false;  // some seed is in two epochs: the tests pair seeds across epochs
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

// A change at group `at` with levels of groups [lo, at) before and [at, hi) after. A step whose group follows
// a gap (commits without runs of the series) is the range from the commit after the previous group's last to
// `at`'s first; a drift spans groups [lo, hi).
Change make_change(const Series& s, const std::vector<CommitInfo>& commits, judge::ChangeKind kind, int64_t at,
                   int64_t lo, int64_t hi, double p, double p_adj) {
  const auto hash = [&](int64_t i) { return commits[static_cast<size_t>(i)].hash; };
  Change c;
  c.series = s.name;
  c.label = s.label;
  c.metric = s.metric;
  c.kind = kind;
  c.index = s.commit_index[static_cast<size_t>(at)];
  c.commit = hash(c.index);
  if (kind == judge::ChangeKind::kDrift) {
    c.first_commit = hash(s.commit_index[static_cast<size_t>(lo)]);
    c.last_commit = hash(s.last_index[static_cast<size_t>(hi - 1)]);
  } else if (at > 0 && c.index - s.last_index[static_cast<size_t>(at - 1)] > 1) {
    c.first_commit = hash(s.last_index[static_cast<size_t>(at - 1)] + 1);
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

std::string config_label(const json& doc, const std::string& key) {
  if (!doc.is_object() || !doc.contains("cell") || !doc.at("cell").is_string()) return key;
  rb::Config cfg;  // just what the label needs (a stored identity carries no seeds)
  cfg.cell = doc.at("cell").get<std::string>();
  cfg.task = string_or(doc, "task", "");  // an imported document's task of another type: left out of the label
  if (doc.contains("task_options") && doc.at("task_options").is_object()) cfg.task_options = doc.at("task_options");
  return cfg.cell + " · " + cfg.task_label();
}

// The options a config's label leaves out, flattened: "lr" → 0.001 for the recipe, model and cell options (what
// can tell two configs of one cell and task apart); the last part of the path names it.
std::map<std::string, json> identity_options(const json& doc) {
  std::map<std::string, json> out;
  if (!doc.is_object()) return out;
  for (const char* part : {"cell_options", "model", "train", "task_options"}) {
    if (!doc.contains(part) || !doc.at(part).is_object()) continue;
    const json flat = doc.at(part).flatten();
    for (const auto& [path, value] : flat.items()) out[std::string(part) + path] = value;
  }
  return out;
}

// Configs whose labels coincide (one cell and task, another learning rate, say) get the options that tell them
// apart appended, "diag · mqar pairs:8 · lr 0.001", so no two rows of a table read the same.
void distinguish_labels(std::map<std::string, std::string>& label, const std::map<std::string, json>& docs) {
  std::map<std::string, std::vector<std::string>> by_label;
  for (const auto& [key, text] : label) by_label[text].push_back(key);
  for (const auto& group : by_label) {
    const std::vector<std::string>& keys = group.second;  // a named reference: lambdas below capture it
    if (keys.size() < 2) continue;
    std::map<std::string, std::map<std::string, json>> options;
    std::set<std::string> paths;
    for (const auto& key : keys) {
      options[key] = identity_options(docs.at(key));
      for (const auto& [path, value] : options[key]) paths.insert(path);
    }
    const auto value_of = [&](const std::string& key, const std::string& path) {
      const auto it = options[key].find(path);
      return it == options[key].end() ? json(nullptr) : it->second;
    };
    std::vector<std::string> differing;
    for (const auto& path : paths)
      if (std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return value_of(k, path) != value_of(keys[0], path); }))
        differing.push_back(path);
    for (const auto& key : keys) {
      std::string& out = label[key];
      for (const auto& path : differing) {
        const json value = value_of(key, path);
        out += fmt::format(" · {} {}", path.substr(path.rfind('/') + 1), value.is_string() ? value.get<std::string>() : value.dump());
      }
      if (differing.empty()) out += " · " + key.substr(key.rfind('/') + 1);  // only the key's hash differs
    }
  }
}

Loaded load(const History& h, const std::string& selector) {
  Loaded d;
  std::map<std::string, json> docs;
  d.commits = h.commits();
  for (size_t i = 0; i < d.commits.size(); ++i) d.index[d.commits[i].hash] = static_cast<int64_t>(i);
  for (auto& o : h.outcomes()) {
    const int64_t i = d.index.at(o.commit);
    d.runs[o.config][i].push_back(std::move(o));
  }
  for (auto it = d.runs.begin(); it != d.runs.end();) {
    const std::string latest = d.commits[static_cast<size_t>(it->second.rbegin()->first)].hash;
    json doc = h.config_document(latest, it->first);
    const std::string label = config_label(doc, it->first);
    if (!selected(selector, it->first, label)) {
      it = d.runs.erase(it);
      continue;
    }
    d.label[it->first] = label;
    docs[it->first] = std::move(doc);
    ++it;
  }
  distinguish_labels(d.label, docs);
  for (const auto& b : h.benchmarks())
    if (selected(selector, b.name, b.name)) d.bench[b.name][d.index.at(b.commit)].push_back(b.value);
  return d;
}

// Per config its epochs (kept in `epochs`, which the series point into) and three series over them; per
// benchmark one series over its commits (every measurement is new).
std::vector<Series> build_series(const Loaded& d, std::map<std::string, std::vector<Epoch>>& epochs) {
  std::vector<Series> out;
  for (const auto& [key, by_commit] : d.runs) {
    const std::vector<Epoch>& ep = epochs[key] = epochs_of(by_commit);
    Series lock{key, d.label.at(key), Metric::kLockIn, stats::SeriesKind::kBinary, {}, {}, {}, 0, &ep, false};
    Series time{key, d.label.at(key), Metric::kTime, stats::SeriesKind::kSurvival, {}, {}, {}, 0, &ep, false};
    Series recall{key, d.label.at(key), Metric::kRecall, stats::SeriesKind::kContinuous, {}, {}, {}, 0, &ep, false};
    std::map<int64_t, int> epochs_of_seed;
    for (const auto& e : ep) {
      stats::SeriesGroup gl, gt, gr;
      for (const auto& [seed, o] : e.seeds) {
        gl.values.push_back(o.locked_in ? 1.0 : 0.0);
        gt.times.push_back(survival_of(o));
        gr.values.push_back(o.recall);
        for (auto* g : {&gl, &gt, &gr}) g->ids.push_back(seed);
        time.budget = std::max(time.budget, o.budget);
        lock.paired = lock.paired || ++epochs_of_seed[seed] >= 2;
      }
      for (auto* s : {&lock, &time, &recall}) {
        s->commit_index.push_back(e.first);
        s->last_index.push_back(e.last);
      }
      lock.groups.push_back(std::move(gl));
      time.groups.push_back(std::move(gt));
      recall.groups.push_back(std::move(gr));
    }
    lock.budget = recall.budget = time.budget;
    time.paired = recall.paired = lock.paired;
    out.push_back(std::move(lock));
    out.push_back(std::move(time));
    out.push_back(std::move(recall));
  }
  for (const auto& [name, by_commit] : d.bench) {
    Series speed{name, name, Metric::kSpeed, stats::SeriesKind::kLogMeasure, {}, {}, {}, 0, nullptr, false};
    for (const auto& [i, values] : by_commit) {
      speed.groups.push_back({values, {}, {}});
      speed.commit_index.push_back(i);
      speed.last_index.push_back(i);
    }
    out.push_back(std::move(speed));
  }
  return out;
}

// The paired test of a config between epochs a and b on the seeds both hold, exact under "the commits
// between do not matter" (a seed's two outcomes are then exchangeable: equal, or two draws from one
// distribution): per seed its contributions to three statistics, lock-in (+1 lost, −1 gained: McNemar's),
// time to lock-in (+1 when the later epoch's run locks in later, censoring respected: the sign test) and
// recall (the signed rank of the difference), flipped together (stats::paired_max_t). p[m] in the order of
// the config's series: lock-in, time, recall.
using Contributions = std::vector<std::vector<double>>;  // per metric (lock-in, time, recall), per pair

Contributions paired_contributions(const Epoch& a, const Epoch& b) {
  Contributions c(3);
  std::vector<double> differences;
  for (const auto& [seed, x] : a.seeds) {
    const auto it = b.seeds.find(seed);
    if (it == b.seeds.end()) continue;
    const Outcome& y = it->second;
    c[0].push_back(static_cast<double>(static_cast<int>(x.locked_in) - static_cast<int>(y.locked_in)));
    c[1].push_back(static_cast<double>(stats::later_of_pair(survival_of(x), survival_of(y))));
    differences.push_back(y.recall - x.recall);
  }
  // Signed ranks of the recall differences (mid-ranks of |d| among the nonzero ones).
  std::vector<size_t> idx(differences.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return std::fabs(differences[i]) < std::fabs(differences[j]); });
  c[2].assign(differences.size(), 0.0);
  double rank = 0.0;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && std::fabs(differences[idx[j + 1]]) == std::fabs(differences[idx[i]])) ++j;
    const bool zero = differences[idx[i]] == 0.0;
    const double mid = rank + 0.5 * static_cast<double>(j - i) + 1.0;
    for (size_t k = i; k <= j; ++k) c[2][idx[k]] = zero ? 0.0 : std::copysign(mid, differences[idx[k]]);
    if (!zero) rank += static_cast<double>(j - i + 1);
    i = j + 1;
  }
  return c;
}

stats::PairedMaxT paired_test(const Epoch& a, const Epoch& b) { return stats::paired_max_t(paired_contributions(a, b)); }

// The smallest p a whole-group permutation can give: a step over g groups at best separates the middle
// split's two halves (2 of C(g, g/2) orders), a trend at best orders all g groups (2 of g!); neither below the
// permutation count's resolution.
double permutation_min_p(int64_t groups, bool trend, const stats::ChangeTestOptions& perm) {
  if (groups < 2) return 1.0;
  const double g = static_cast<double>(groups);
  const double log_orders = trend ? std::lgamma(g + 1.0) : stats::log_choose(groups, groups / 2);
  return std::min(1.0, std::max(2.0 * std::exp(-log_orders), 1.0 / static_cast<double>(1 + perm.max_permutations)));
}

// One test of the family: a step at group `at` (a paired boundary between groups at − 1 and at, or a
// permutation split), or a drift / anchor comparison over groups [lo, hi).
struct Entry {
  size_t series = 0;
  judge::ChangeKind kind = judge::ChangeKind::kStep;
  judge::Design design = judge::Design::kCommits;
  int64_t at = -1, lo = 0, hi = 0;
  double p = 1.0, min_p = 1.0, statistic = 0.0;
  int64_t untied = 0;
  stats::ChangeTest test;         // the permutation design's test (for the segmentation below it)
  std::vector<double> metric_p;   // paired: per metric of the config (lock-in, time, recall), max-T adjusted
  // A battery test (series == kBattery): its member configs, each as (its lock-in series, the epoch boundary
  // tested there: a step's new epoch, or for the drift the newest epoch).
  std::vector<std::pair<size_t, int64_t>> members;
};

constexpr size_t kBattery = static_cast<size_t>(-1);  // Entry::series of a battery test

// A series' tests. A config whose seeds recur across epochs is tested once per epoch boundary for all three
// of its series (held by its lock-in series; the metrics that moved are read from metric_p), and once for
// the oldest epoch against the newest (steps too small to be found one by one add up there). Otherwise: the
// best split and the trend, by permuting whole groups.
void add_tests(std::vector<Entry>& entries, size_t si, const Series& s, const stats::ChangeTestOptions& perm) {
  const auto n = static_cast<int64_t>(s.groups.size());
  if (s.paired) {
    if (s.metric != Metric::kLockIn) return;
    const auto& ep = *s.epochs;
    const auto add = [&](judge::ChangeKind kind, int64_t at, int64_t lo, int64_t hi, const Epoch& a, const Epoch& b) {
      const stats::PairedMaxT t = paired_test(a, b);
      entries.push_back({si, kind, judge::Design::kPairs, at, lo, hi, t.joint_p, t.min_p, 0, t.untied, {}, t.p, {}});
    };
    for (int64_t b = 1; b < n; ++b)
      add(judge::ChangeKind::kStep, b, b - 1, b + 1, ep[static_cast<size_t>(b - 1)], ep[static_cast<size_t>(b)]);
    if (n >= 3) add(judge::ChangeKind::kDrift, n - 1, 0, n, ep.front(), ep.back());
    return;
  }
  const stats::ChangeTest step = stats::step_test(s.groups, 0, n, s.kind, perm);
  entries.push_back({si, judge::ChangeKind::kStep, judge::Design::kCommits, step.split, 0, n, step.p,
                     permutation_min_p(n, false, perm), step.statistic, n, step, {}, {}});
  const stats::ChangeTest trend = stats::trend_test(s.groups, 0, n, s.kind, perm);
  entries.push_back({si, judge::ChangeKind::kDrift, judge::Design::kCommits, n / 2, 0, n, trend.p,
                     permutation_min_p(n, true, perm), trend.statistic, n, trend, {}, {}});
}

// The battery's tests (issue 61): a change that moves every config a little is seen by all their pairs
// together, where each config's own test at alpha / K has too few. Stratified by config: the same per-pair
// contributions as each config's paired test (paired_contributions), every pair flipped on its own, so under
// "the commits between do not matter" for every member the pooled test is exact like the per-config one.
//   step   at every commit where two or more paired configs start a new epoch: their boundaries' pairs pooled
//   drift  every paired config's oldest epoch against its newest, pooled
// Both join the one family (Tarone, Bonferroni at alpha / K), so the history's false-alarm bound is unchanged.
void add_battery_tests(std::vector<Entry>& entries, const std::vector<Series>& series) {
  std::vector<size_t> paired;
  for (size_t si = 0; si < series.size(); ++si)
    if (series[si].paired && series[si].metric == Metric::kLockIn) paired.push_back(si);
  if (paired.size() < 2) return;
  const auto add = [&](judge::ChangeKind kind, int64_t at, const std::vector<std::pair<size_t, int64_t>>& members) {
    Contributions pooled(3);
    for (const auto& [si, b] : members) {
      const auto& ep = *series[si].epochs;
      const Epoch& from = kind == judge::ChangeKind::kDrift ? ep.front() : ep[static_cast<size_t>(b - 1)];
      const Contributions c = paired_contributions(from, ep[static_cast<size_t>(b)]);
      for (size_t m = 0; m < pooled.size(); ++m) pooled[m].insert(pooled[m].end(), c[m].begin(), c[m].end());
    }
    const stats::PairedMaxT t = stats::paired_max_t(pooled);
    Entry e{kBattery, kind, judge::Design::kPairs, at, 0, 0, t.joint_p, t.min_p, 0, t.untied, {}, t.p, members};
    entries.push_back(std::move(e));
  };
  std::map<int64_t, std::vector<std::pair<size_t, int64_t>>> at_commit;  // a new epoch's first commit → members
  std::vector<std::pair<size_t, int64_t>> drift;
  for (size_t si : paired) {
    const auto n = static_cast<int64_t>(series[si].groups.size());
    for (int64_t b = 1; b < n; ++b) at_commit[series[si].commit_index[static_cast<size_t>(b)]].emplace_back(si, b);
    if (n >= 2) drift.emplace_back(si, n - 1);
  }
  for (const auto& [commit, members] : at_commit)
    if (members.size() >= 2) add(judge::ChangeKind::kStep, commit, members);
  if (drift.size() >= 2) add(judge::ChangeKind::kDrift, -1, drift);
}

// The family's tests and what was found: per test its raw p and minimum attainable p; Tarone's rule with
// Bonferroni (stats/stats.h) over them all.
// The battery's tests share one place in the family (a weighted Bonferroni): together they are one test, the
// smallest of their p's times their number, so they cost each config's tests one test of alpha, not one per
// battery test, and each battery test is judged at alpha / (K · battery tests).
struct Detection {
  std::vector<Entry> entries;     // the series' tests, then the battery's (from first_battery on)
  size_t first_battery = 0, battery_tests = 0;
  stats::ChangeTestOptions perm;  // the permutations used
  stats::TaroneResult family;     // over the series' tests and, last, the battery's one place
  bool is_battery(size_t e) const { return e >= first_battery; }
  bool in_family(size_t e) const { return family.in_family[is_battery(e) ? first_battery : e]; }
  // Its test's weight in the family: 1, or the number of battery tests sharing the battery's place.
  double weight(size_t e) const { return is_battery(e) ? static_cast<double>(battery_tests) : 1.0; }
  double adjusted(size_t e) const {
    return is_battery(e) ? std::min(1.0, static_cast<double>(family.family) * weight(e) * entries[e].p) : family.adjusted[e];
  }
  bool rejected(size_t e, double alpha) const { return in_family(e) && stats::significant(adjusted(e), alpha); }
};

Detection detect(const std::vector<Series>& series, double alpha, stats::ChangeTestOptions perm) {
  // Enough permutations that a permutation test can get below alpha / (the number of tests).
  const auto tests = static_cast<int64_t>(4 * series.size());
  perm.max_permutations = std::max<int64_t>(
      perm.max_permutations,
      std::min<int64_t>(999999, static_cast<int64_t>(std::ceil(20.0 * static_cast<double>(tests) / alpha))));
  Detection d;
  d.perm = perm;
  for (size_t s = 0; s < series.size(); ++s) add_tests(d.entries, s, series[s], perm);
  d.first_battery = d.entries.size();
  add_battery_tests(d.entries, series);
  d.battery_tests = d.entries.size() - d.first_battery;
  std::vector<double> p, min_p;
  for (size_t e = 0; e < d.first_battery; ++e) {
    p.push_back(d.entries[e].p);
    min_p.push_back(d.entries[e].min_p);
  }
  if (d.battery_tests > 0) {  // the battery's one place: Bonferroni inside it
    double bp = 1.0, bmin = 1.0;
    for (size_t e = d.first_battery; e < d.entries.size(); ++e)
      bp = std::min(bp, d.entries[e].p), bmin = std::min(bmin, d.entries[e].min_p);
    const double n = static_cast<double>(d.battery_tests);
    p.push_back(std::min(1.0, n * bp));
    min_p.push_back(std::min(1.0, n * bmin));
  }
  d.family = stats::tarone_bonferroni(p, min_p, alpha);
  return d;
}

// What a test outside the family would need to reach alpha / K: untied pairs (paired: 2^(1 − d) <= alpha / K),
// or groups (a whole-group permutation).
int64_t needed_to_reach(const Entry& e, double level, const stats::ChangeTestOptions& perm) {
  if (e.design == judge::Design::kPairs) {
    int64_t d = 1;
    while (!stats::significant(stats::sign_test_min_p(d), level) && d < 1000) ++d;
    return d;
  }
  int64_t g = 2;
  while (!stats::significant(permutation_min_p(g, e.kind == judge::ChangeKind::kDrift, perm), level) && g < 100000) ++g;
  return g;
}

// The changes of a paired config's series (metric m of lock-in, time, recall): at each rejected test of the
// config, the metrics whose own max-T p passes alpha / K; a drift (the oldest epoch against the newest) only
// where the series has no step.
void paired_changes(Analysis& a, const Series& s, size_t si, const Detection& det, double alpha) {
  const size_t m = s.metric == Metric::kLockIn ? 0 : s.metric == Metric::kTime ? 1 : 2;
  const double k = static_cast<double>(det.family.family);
  bool stepped = false;
  for (const auto kind : {judge::ChangeKind::kStep, judge::ChangeKind::kDrift}) {
    for (size_t e = 0; e < det.entries.size() && !(kind == judge::ChangeKind::kDrift && stepped); ++e) {
      const Entry& t = det.entries[e];
      if (t.series != si - m || t.kind != kind || !det.rejected(e, alpha)) continue;
      const double p_adj = std::min(1.0, k * t.metric_p[m]);
      if (!stats::significant(p_adj, alpha)) continue;
      stepped = stepped || kind == judge::ChangeKind::kStep;
      a.changes.push_back(make_change(s, a.commits, kind, t.at, t.lo, t.hi, t.metric_p[m], p_adj));
      Change& c = a.changes.back();
      c.design = judge::Design::kPairs;
      if (kind == judge::ChangeKind::kDrift) {  // the anchor: the oldest epoch against the newest
        c.before = level(s, 0, 1);
        c.after = level(s, t.hi - 1, t.hi);
      }
    }
  }
}

// The changes of a series tested by permuting whole groups: the best rejected step with binary
// segmentation below it; the trend only where no step is.
void series_changes(Analysis& a, const Series& s, size_t si, const Detection& det, double alpha,
                    const stats::ChangeTestOptions& perm) {
  if (s.paired) return paired_changes(a, s, si, det, alpha);
  const auto n = static_cast<int64_t>(s.groups.size());
  bool stepped = false;
  for (size_t e = 0; e < det.entries.size(); ++e) {
    const Entry& t = det.entries[e];
    if (t.series != si || t.kind != judge::ChangeKind::kStep || !det.rejected(e, alpha) || t.at < 0) continue;
    stepped = true;
    auto splits = stats::segment_below(s.groups, 0, n, t.test, s.kind, alpha, perm);
    std::vector<int64_t> cuts{0, n};
    for (const auto& sp : splits) cuts.push_back(sp.split);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t k = 0; k < splits.size(); ++k) {
      const auto pos = static_cast<size_t>(std::lower_bound(cuts.begin(), cuts.end(), splits[k].split) - cuts.begin());
      a.changes.push_back(make_change(s, a.commits, judge::ChangeKind::kStep, splits[k].split, cuts[pos - 1], cuts[pos + 1],
                                      splits[k].p, k == 0 ? det.adjusted(e) : splits[k].p));
    }
  }
  if (stepped) return;
  for (size_t e = 0; e < det.entries.size(); ++e) {
    const Entry& t = det.entries[e];
    if (t.series != si || t.kind != judge::ChangeKind::kDrift || !det.rejected(e, alpha)) continue;
    a.changes.push_back(make_change(s, a.commits, judge::ChangeKind::kDrift, t.at, t.lo, t.hi, t.p, det.adjusted(e)));
  }
}

std::string battery_label(const Entry& t) { return fmt::format("the battery ({} configs)", t.members.size()); }

// The commit a battery test is about: a step's commit; the drift's newest epoch's latest first commit.
int64_t battery_index(const Entry& t, const std::vector<Series>& series) {
  if (t.kind == judge::ChangeKind::kStep) return t.at;
  int64_t index = 0;
  for (const auto& [si, b] : t.members) index = std::max(index, series[si].commit_index[static_cast<size_t>(b)]);
  return index;
}

// The battery's changes: at each rejected battery test, the metrics whose own max-T p passes alpha / K (a
// drift only for a metric without a battery step). Its levels are the members' means (geometric for time), each
// member's level on its own series on either side of its boundary (the drift: its oldest and newest epochs).
void battery_changes(Analysis& a, const std::vector<Series>& series, const Detection& det, double alpha) {
  const double k = static_cast<double>(det.family.family);
  std::set<size_t> stepped;
  for (const auto kind : {judge::ChangeKind::kStep, judge::ChangeKind::kDrift}) {
    for (size_t e = 0; e < det.entries.size(); ++e) {
      const Entry& t = det.entries[e];
      if (t.series != kBattery || t.kind != kind || !det.rejected(e, alpha)) continue;
      for (size_t m = 0; m < t.metric_p.size(); ++m) {
        const double p_adj = std::min(1.0, k * det.weight(e) * t.metric_p[m]);
        if (!stats::significant(p_adj, alpha) || (kind == judge::ChangeKind::kDrift && stepped.count(m))) continue;
        if (kind == judge::ChangeKind::kStep) stepped.insert(m);
        Change c;
        c.series = kBatterySeries;
        c.label = battery_label(t);
        c.metric = series[t.members.front().first + m].metric;
        c.kind = kind;
        c.design = judge::Design::kPairs;
        c.index = battery_index(t, series);
        c.commit = a.commits[static_cast<size_t>(c.index)].hash;
        // Geometric means for a ratio (time: configs' times differ in scale), arithmetic for a difference.
        const bool ratio = judge::effect_is_ratio(c.metric);
        double before = 0, after = 0;
        int64_t n = 0, first = c.index, last = c.index;
        for (const auto& [si, b] : t.members) {
          const Series& s = series[si + m];
          const int64_t lo = kind == judge::ChangeKind::kDrift ? 0 : b - 1;
          const double x = level(s, lo, lo + 1), y = level(s, b, b + 1);
          first = std::min(first, s.commit_index[static_cast<size_t>(lo)]);
          last = std::max(last, s.last_index[static_cast<size_t>(b)]);
          if (!std::isfinite(x) || !std::isfinite(y) || (ratio && (x <= 0 || y <= 0))) continue;
          before += ratio ? std::log(x) : x, after += ratio ? std::log(y) : y, ++n;
        }
        const auto mean = [&](double sum) {
          if (!n) return kNaN;
          return ratio ? std::exp(sum / static_cast<double>(n)) : sum / static_cast<double>(n);
        };
        c.before = mean(before);
        c.after = mean(after);
        if (kind == judge::ChangeKind::kDrift) {
          c.first_commit = a.commits[static_cast<size_t>(first)].hash;
          c.last_commit = a.commits[static_cast<size_t>(last)].hash;
        }
        c.p = t.metric_p[m];
        c.p_adjusted = p_adj;
        a.changes.push_back(std::move(c));
      }
    }
  }
}

// One change is one entry: a drift of a config (any metric) whose span holds a step of the same config (any
// metric) is the step seen again over a longer range, and is dropped. series_changes already keeps drifts
// out of a series that has a step; this applies the rule across a config's metrics.
void drop_drifts_a_step_explains(Analysis& a) {
  std::map<std::string, int64_t> position;
  for (size_t i = 0; i < a.commits.size(); ++i) position[a.commits[i].hash] = static_cast<int64_t>(i);
  const auto at = [&](const std::string& hash, int64_t fallback) {
    const auto it = position.find(hash);
    return it == position.end() ? fallback : it->second;
  };
  std::vector<bool> drop(a.changes.size(), false);
  for (size_t d = 0; d < a.changes.size(); ++d) {
    const Change& drift = a.changes[d];
    if (drift.kind != judge::ChangeKind::kDrift) continue;
    const int64_t lo = at(drift.first_commit, drift.index), hi = at(drift.last_commit, drift.index);
    for (const Change& step : a.changes)
      if (step.kind == judge::ChangeKind::kStep && step.series == drift.series && step.index >= lo && step.index <= hi)
        drop[d] = true;
  }
  std::vector<Change> kept;
  for (size_t i = 0; i < a.changes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(a.changes[i]));
  a.changes = std::move(kept);
}

void find_changes(Analysis& a, const std::vector<Series>& series, const AnalysisOptions& options) {
  const Detection det = detect(series, options.alpha, options.permutation);
  a.tests = static_cast<int64_t>(det.entries.size());
  a.family = det.family.family;
  a.battery_tests = static_cast<int64_t>(det.battery_tests);
  const double level = options.alpha / static_cast<double>(std::max<int64_t>(1, a.family));
  for (size_t e = 0; e < det.entries.size(); ++e) {
    if (det.in_family(e)) continue;
    const Entry& t = det.entries[e];
    if (t.series == kBattery) {
      a.undecided.push_back({kBatterySeries, battery_label(t), Metric::kLockIn, t.kind, t.design, battery_index(t, series),
                             t.min_p, t.untied, needed_to_reach(t, level / det.weight(e), det.perm)});
      continue;
    }
    const Series& s = series[t.series];
    a.undecided.push_back({s.name, s.label, s.metric, t.kind, t.design,
                           s.commit_index[static_cast<size_t>(std::max<int64_t>(0, t.at))], t.min_p, t.untied,
                           needed_to_reach(t, level, det.perm)});
  }
  for (size_t s = 0; s < series.size(); ++s) series_changes(a, series[s], s, det, options.alpha, det.perm);
  battery_changes(a, series, det, options.alpha);
  drop_drifts_a_step_explains(a);
  std::stable_sort(a.changes.begin(), a.changes.end(), [](const Change& x, const Change& y) {
    return x.p_adjusted != y.p_adjusted ? x.p_adjusted < y.p_adjusted : x.index < y.index;
  });
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
  s.learning = o.learning;  // no curve here: the label recorded when the run was added
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
  std::map<std::string, std::vector<Epoch>> epochs;
  const std::vector<Series> series = build_series(d, epochs);
  for (auto& cs : a.configs) cs.epochs = static_cast<int64_t>(epochs[cs.key].size());
  find_changes(a, series, options);
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
    configs.push_back({{"config", cs.key}, {"label", cs.label}, {"budget", cs.budget}, {"epochs", cs.epochs}, {"points", points},
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
  json undecided = json::array();
  for (const auto& u : a.undecided)
    undecided.push_back({{"config", u.series}, {"label", u.label},
                         {"metric", u.design == judge::Design::kPairs ? "lock-in, time, recall" : metric_name(u.metric)},
                         {"kind", judge::change_kind_name(u.kind)}, {"design", judge::design_name(u.design)},
                         {"commit", a.commits[static_cast<size_t>(u.index)].hash}, {"min_p", u.min_p},
                         {u.design == judge::Design::kPairs ? "untied_pairs" : "groups", u.has},
                         {u.design == judge::Design::kPairs ? "untied_pairs_needed" : "groups_needed", u.needs}});
  return {{"kind", "recallbench.history_report"},
          {"schema_version", 1},
          {"database", history.path()},
          {"battery", history.battery()},
          {"generated", reports::utc_now()},
          {"alpha", options.alpha},
          {"tests", a.tests},
          {"family", a.family},
          {"battery_tests", a.battery_tests},
          {"undecided", undecided},
          {"method",
           "per config, epochs: consecutive commits whose runs are bit-identical per seed are one observation. Where "
           "seeds recur across epochs: a paired step test at every epoch boundary (McNemar's exact test on lock-in, "
           "the sign test on which run locks in first, the signed-rank test on recall) and the oldest epoch against "
           "the newest, and the same paired tests pooled over the configs (the battery: at every commit where two or "
           "more configs start a new epoch, and over each one's oldest and newest epoch; together one place of the family, "
           "each at alpha/(K x battery tests)); otherwise a step (best split: two-proportion z, log-rank, Mann-Whitney, mean log time on "
           "kernel speed) and a drift (linear trend), by permuting whole epochs or commits, with binary segmentation "
           "below a step. Every test of the history in one family: Bonferroni at alpha/K over the K tests that can "
           "reach alpha/K (Tarone); the others are listed as undecided with what they would need"},
          {"commits", commits},
          {"configs", configs},
          {"benchmarks", benchmarks},
          {"claims", claims},
          {"changes", all}};
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
  const std::vector<Acceptance> acceptances = history.acceptances();
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
    // The anchor: the epoch after the last improvement in lock-in, time or recall along that chain (a
    // regression does not move it, so steps each below the gate's floors add up against it). Per seed, its
    // run at the first epoch since the anchor that has it.
    std::map<int64_t, std::vector<Outcome>> chained;
    for (int64_t i : chain) chained[i] = std::move(by_commit[i]);
    Loaded one;
    one.runs[cur.key] = chained;
    one.label[cur.key] = cur.key;
    std::map<std::string, std::vector<Epoch>> epochs;
    const std::vector<Series> series = build_series(one, epochs);
    const std::vector<Epoch>& ep = epochs[cur.key];
    const Detection det = detect(series, alpha, {});
    size_t start = 0;
    Analysis found;
    found.commits = commits;
    for (size_t si = 0; si < series.size(); ++si) series_changes(found, series[si], si, det, alpha, det.perm);
    for (const auto& c : found.changes) {
      if (c.kind != judge::ChangeKind::kStep || c.direction() != judge::ChangeDirection::kImprovement) continue;
      for (size_t e = 0; e < ep.size(); ++e)
        if (ep[e].first == c.index) start = std::max(start, e);
    }
    // An accepted change (`history accept`) at a commit of the chain moves the anchor to the epoch holding it.
    std::string accepted_note;
    for (const auto& a : acceptances) {
      if (a.config != cur.key || !index.count(a.commit)) continue;
      const int64_t at = index.at(a.commit);
      if (at < chain.front() || at > chain.back()) continue;  // another identity's commit
      size_t e = 0;
      while (e + 1 < ep.size() && ep[e + 1].first <= at) ++e;
      if (e >= start) {
        start = e;
        accepted_note = fmt::format(", since the change accepted at {} ({})", short_hash7(a.commit), a.reason);
      }
    }
    const std::string latest_commit = commits[static_cast<size_t>(chain.back())].hash;
    std::map<int64_t, rb::SeedOutcome> seeds;
    for (size_t e = start; e < ep.size(); ++e)
      for (const auto& [seed, o] : ep[e].seeds) seeds.emplace(seed, seed_outcome(o));
    std::vector<rb::SeedOutcome> pooled;
    for (auto& [seed, o] : seeds) pooled.push_back(std::move(o));
    const std::string anchor = short_hash7(commits[static_cast<size_t>(ep[start].first)].hash);
    rb::Config cfg = with_identity(history, latest_commit, cur, std::move(pooled));
    if (notes)
      notes->push_back(fmt::format("{}: {} seeds, each at its first epoch from {} on ({} epoch{} over {} commits, {}..{}){}",
                                   cur.key, cfg.seeds.size(), anchor, ep.size() - start, ep.size() - start == 1 ? "" : "s",
                                   chain.size(),
                                   short_hash7(commits[static_cast<size_t>(chain.front())].hash), short_hash7(latest_commit),
                                   !accepted_note.empty() ? accepted_note
                                   : start > 0            ? ", since the improvement at " + anchor
                                                          : ""));
    base.configs.push_back(std::move(cfg));
  }
  return base;
}

std::vector<std::string> configs_at(const History& history, const std::string& commit, const std::string& selector) {
  std::set<std::string> keys;
  for (const auto& o : history.outcomes())
    if (o.commit == commit) keys.insert(o.config);
  std::vector<std::string> out;
  for (const auto& key : keys)
    if (selected(selector, key, config_label(history.config_document(commit, key), key))) out.push_back(key);
  return out;
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
