#include "suite/history_text.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "reports/history_page.h"

namespace rb {

using history::Analysis;
using history::Metric;
using history::metric_name;

namespace {

std::string short7(const std::string& hash) { return hash.substr(0, 7); }

// What the tests that left the family would need ("" when none left it).
std::string undecided_text(const Analysis& a) {
  if (a.undecided.empty()) return "";
  std::map<std::string, std::pair<int64_t, int64_t>> pairs, groups;  // series → (has, needs), the largest need
  for (const auto& u : a.undecided) {
    const bool paired = u.design == judge::Design::kPairs;  // one test of the config's three metrics
    auto& slot = (paired ? pairs : groups)[paired ? u.label : u.label + " " + metric_name(u.metric)];
    if (u.needs > slot.second) slot = {u.has, u.needs};
  }
  std::string out = "left the family (they cannot reach alpha/K with the data they have):\n";
  for (const auto& [what, hn] : pairs)
    out += fmt::format("  {}: needs {} seeds that differ between epochs (has at most {})\n", what, hn.second, hn.first);
  for (const auto& [what, hn] : groups)
    out += fmt::format("  {}: needs {} epochs (has {}), {} more\n", what, hn.second, hn.first, hn.second - hn.first);
  return out;
}

}  // namespace

std::string changes_table(const Analysis& a) {
  int64_t epochs = 0;
  for (const auto& c : a.configs) epochs = std::max(epochs, c.epochs);
  // The counts once: the tests, those in Tarone's family (judged at alpha/K, K = a.family), and those that left it
  // (a.undecided, listed below). K can exceed the members: with one test that cannot reach alpha, K = 1 and no
  // test is in the family.
  const auto left = static_cast<int64_t>(a.undecided.size());
  const int64_t members = a.tests - left;
  const std::string over =
      fmt::format("{} commits, at most {} epochs per config; {} test{}: {} in the family, judged at alpha/{} "
                  "(Bonferroni over the tests that can reach it, Tarone){}",
                  a.commits.size(), epochs, a.tests, a.tests == 1 ? "" : "s", members == 0 ? "none" : std::to_string(members),
                  a.family, left == 0 ? "" : fmt::format(", {} left it", left)) +
      (a.battery_tests > 0 ? fmt::format("; the battery's {} pooled tests share one of the {} places, each at alpha/{}",
                                         a.battery_tests, a.family, a.family * a.battery_tests)
                           : "");
  if (a.changes.empty()) return fmt::format("no change found over {}\n", over) + undecided_text(a);
  std::string out = fmt::format("{:<8} {:<6} {:<19} {:<10} {:>12} {:>12} {:<16} {:>9}  {}\n", "metric", "kind",
                                "commit", "", "before", "after", "effect", "p (adj.)", "config");
  for (const auto& c : a.changes) {
    const std::string where = c.first_commit.empty() ? short7(c.commit)
                                                     : short7(c.first_commit) + ".." + short7(c.last_commit);
    out += fmt::format("{:<8} {:<6} {:<19} {:<10} {:>12.4g} {:>12.4g} {:<16} {:>9.2g}  {}\n", metric_name(c.metric),
                       judge::change_kind_name(c.kind), where, a.commits[static_cast<size_t>(c.index)].date.substr(0, 10),
                       c.before, c.after, reports::effect_label(c.metric, c.effect()), c.p_adjusted, c.label);
  }
  return out + fmt::format("over {}\n", over) + undecided_text(a);
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
    std::string row = fmt::format("{:<8} {:<10} {:<32.32}", short7(info.hash), info.date.substr(0, 10), info.subject);
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

}  // namespace rb
