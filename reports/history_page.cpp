// The trend page of `recallbench history report` and its Markdown summary (see history_page.h): the trend
// document read once into a Document (document.h) that HtmlRenderer and MarkdownRenderer write. The page uses
// the report's stylesheet and script (html_page) plus a few rules of its own
// (reports/assets/history.css); its charts are html_parts' trend charts along the commit axis.
#include "reports/history_page.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "reports/document.h"
#include "reports/html_parts.h"
#include "reports/report.h"
#include "reports/report_assets.h"

namespace rb::reports {
namespace {

using json = nlohmann::json;

// ---- reading the document: absent fields and nulls are normal ------------------------------------------

const json& field(const json& o, const char* key) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  const auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}
double num(const json& o, const char* key) {
  const json& v = field(o, key);
  return v.is_number() ? v.get<double>() : NAN;
}
std::string str(const json& o, const char* key) {
  const json& v = field(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}
const json& list(const json& o, const char* key) {
  static const json kEmpty = json::array();
  const json& v = field(o, key);
  return v.is_array() ? v : kEmpty;
}

// At most `max` bytes of `s`, cut on a UTF-8 character boundary, with "…" when cut.
std::string clip(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "…";
}

// "1 claim", "3 claims".
std::string count_of(size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

// ---- number formats ------------------------------------------------------------------------------------

std::string fmt_p(double p) {
  if (!std::isfinite(p)) return "–";
  if (p > 0 && p < 1e-4) return fmt::format("{:.1e}", p);
  return fmt::format("{:.3g}", p);
}

std::string fmt_steps(double v) {
  if (!std::isfinite(v)) return "–";
  return fmt::format("{:.0f}", v);
}

// A metric's value as the tables show it.
std::string fmt_metric(const std::string& metric, double v) {
  if (!std::isfinite(v)) return "–";
  if (metric == "lock-in") return fmt::format("{:.0f}%", 100 * v);
  if (metric == "recall") return fmt::format("{:.3f}", v);
  if (metric == "time") return fmt_steps(v) + " steps";
  return fmt::format("{:.3g}", v);
}

// ---- commits: positions along the x axis, tooltips -------------------------------------------------------

struct Commit {
  std::string hex, short_hash, date, subject, branch;
};

struct Commits {
  std::vector<Commit> list;
  std::unordered_map<std::string, int> position_of;  // full hash → position in "commits"
  std::vector<std::string> tip;                       // per position: "short · date · subject"
  int count = 0;                                      // positions on the axis (≥ list.size())

  // The x position of `o`'s commit `key`; its "index" when the commit is not listed; -1 when neither.
  int position(const json& o, const char* key = "commit") const {
    const auto it = position_of.find(str(o, key));
    if (it != position_of.end()) return it->second;
    const double index = num(o, "index");
    return std::isfinite(index) && index >= 0 && index < 1e7 && std::string(key) == "commit" ? static_cast<int>(index) : -1;
  }
  std::string short_at(int pos, const std::string& hex = "") const {
    if (pos >= 0 && pos < static_cast<int>(list.size())) return list[static_cast<size_t>(pos)].short_hash;
    return hex.substr(0, 7);
  }
  std::string short_of(const std::string& hex) const {
    const auto it = position_of.find(hex);
    return it != position_of.end() ? short_at(it->second) : hex.substr(0, 7);
  }
  const Commit* at(int pos) const {
    return pos >= 0 && pos < static_cast<int>(list.size()) ? &list[static_cast<size_t>(pos)] : nullptr;
  }
  std::string tip_at(int pos, const std::string& hex) const {
    if (pos >= 0 && pos < static_cast<int>(tip.size())) return tip[static_cast<size_t>(pos)];
    return hex.substr(0, 7);
  }
};

Commits read_commits(const json& doc) {
  Commits c;
  for (const auto& j : list(doc, "commits")) {
    Commit k{str(j, "commit"), str(j, "short"), str(j, "date"), one_line(str(j, "subject")), str(j, "branch")};
    if (k.short_hash.empty()) k.short_hash = k.hex.substr(0, 7);
    c.position_of.emplace(k.hex, static_cast<int>(c.list.size()));
    c.tip.push_back(k.short_hash + " · " + k.date.substr(0, 10) + " · " + clip(k.subject, 72));
    c.list.push_back(std::move(k));
  }
  c.count = static_cast<int>(c.list.size());
  const auto extend = [&](const json& series) {
    for (const auto& s : series)
      for (const auto& p : list(s, "points")) c.count = std::max(c.count, c.position(p) + 1);
  };
  extend(list(doc, "configs"));
  extend(list(doc, "benchmarks"));
  return c;
}

// A series' points in commit order, with their positions.
std::vector<std::pair<int, const json*>> ordered_points(const json& series, const Commits& commits) {
  std::vector<std::pair<int, const json*>> out;
  for (const auto& p : list(series, "points")) {
    const int pos = commits.position(p);
    if (pos >= 0) out.push_back({pos, &p});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// ---- changes ---------------------------------------------------------------------------------------------

// Whether a change is a regression: its "direction" when given, else judge::direction_of its levels.
bool is_regression(const json& change) {
  const std::string direction = str(change, "direction");
  if (!direction.empty()) return direction == judge::direction_name(judge::ChangeDirection::kRegression);
  const std::string metric = str(change, "metric");
  if (metric.empty()) return false;
  return judge::direction_of(judge::parse_metric(metric), num(change, "before"), num(change, "after")) ==
         judge::ChangeDirection::kRegression;
}

// Regressions first, each group in the document's order (most significant first).
std::vector<const json*> ordered_changes(const json& doc) {
  std::vector<const json*> out;
  for (const auto& c : list(doc, "changes")) out.push_back(&c);
  std::stable_partition(out.begin(), out.end(), [](const json* c) { return is_regression(*c); });
  return out;
}

std::string change_summary(const json& c, const Commits& commits) {
  std::string s = fmt::format("{} {} at {}", str(c, "metric"), str(c, "kind"), commits.short_of(str(c, "commit")));
  if (!str(c, "first_commit").empty() && !str(c, "last_commit").empty())
    s += fmt::format(" (range {}..{})", commits.short_of(str(c, "first_commit")), commits.short_of(str(c, "last_commit")));
  s += fmt::format(": {} → {}, {}, p {} (adjusted {})", fmt_metric(str(c, "metric"), num(c, "before")),
                   fmt_metric(str(c, "metric"), num(c, "after")), str(c, "effect_label"), fmt_p(num(c, "p")),
                   fmt_p(num(c, "p_adjusted")));
  return s;
}

// ---- the trend charts ------------------------------------------------------------------------------------

constexpr const char* kRate = "#1f77b4";
constexpr const char* kMedian = "#ff7f0e";
constexpr const char* kRmst = "#8c564b";
constexpr const char* kRecall = "#2ca02c";
constexpr const char* kSpeed = "#9467bd";

using Points = std::vector<std::pair<int, const json*>>;

// A trend chart of `metric` over `commits` from lo to hi, with the change points among `changes` marked.
TrendChart trend_frame(const Commits& commits, double lo, double hi, const std::string& aria, const std::string& y_label,
                       const json& changes, const std::string& metric) {
  TrendChart t;
  t.aria = aria;
  t.y_label = y_label;
  t.n = commits.count;
  t.lo = lo;
  t.hi = hi;
  for (const auto& k : commits.list) t.ticks.push_back(k.short_hash);
  for (const auto& c : changes) {
    TrendChart::Marker m;
    m.pos = commits.position(c);
    m.regression = is_regression(c);
    m.own = str(c, "metric") == metric;
    m.summary = change_summary(c, commits);
    if (m.own) {
      m.first = commits.position(c, "first_commit");
      m.last = commits.position(c, "last_commit");
      m.commit = commits.short_at(m.pos, str(c, "commit"));
      m.label = m.commit + " " + str(c, "effect_label");
    }
    t.markers.push_back(std::move(m));
  }
  return t;
}

// A point of a trend chart at commit position `pos`.
TrendChart::Point trend_point(const Commits& commits, int pos, double y, const json& p, std::string values,
                              bool hollow = false) {
  const std::string hex = str(p, "commit");
  return {pos, y, commits.short_at(pos, hex), commits.tip_at(pos, hex), std::move(values), hollow};
}

// The exact interval of a point's lock-in rate, when it has one.
bool ci_of(const json& p, double& low, double& high) {
  const json& ci = field(p, "ci");
  if (!(ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())) return false;
  low = ci[0].get<double>();
  high = ci[1].get<double>();
  return true;
}

Figure lockin_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label) {
  TrendChart t = trend_frame(commits, 0, 1, label + ": lock-in rate per commit", "lock-in rate", changes, "lock-in");
  t.whisker_color = t.point_color = kRate;
  TrendChart::Line line{{}, kRate};
  for (const auto& [pos, p] : pts) {
    double low, high;
    const bool has_ci = ci_of(*p, low, high);
    if (has_ci) t.whiskers.emplace_back(pos, low, high);
    const double rate = num(*p, "rate");
    if (!std::isfinite(rate)) continue;
    line.points.push_back({pos, rate});
    std::string values = fmt::format("lock-in {}/{} ({:.0f}%)", fmt_steps(num(*p, "locked_in")), fmt_steps(num(*p, "n")), 100 * rate);
    if (has_ci) values += fmt::format(", 95% CI {:.0f}–{:.0f}%", 100 * low, 100 * high);
    t.points.push_back(trend_point(commits, pos, rate, *p, values));
  }
  t.lines.push_back(std::move(line));
  return {"lock-in rate · exact 95% interval", std::move(t), {}};
}

// Whether a point reports a median time to lock-in: a number, or null when the median was not reached.
bool has_median(const json& p) {
  return p.is_object() && p.contains("median_time") && (p.at("median_time").is_number() || p.at("median_time").is_null());
}

// The y range of the time chart: the budget, else the largest median or restricted mean.
double time_range(const Points& pts, double budget) {
  double hi = budget > 0 ? budget : 0;
  if (!(hi > 0))
    for (const auto& [pos, p] : pts) hi = std::max({hi, num(*p, "median_time") > 0 ? num(*p, "median_time") : 0.0,
                                                    num(*p, "rmst") > 0 ? num(*p, "rmst") : 0.0});
  return hi > 0 ? hi : 1;
}

Figure time_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label,
                  double budget) {
  const double hi = time_range(pts, budget);
  TrendChart t = trend_frame(commits, 0, hi, label + ": steps to lock-in per commit", "steps to lock-in", changes, "time");
  t.point_color = kMedian;
  TrendChart::Line median{{}, kMedian}, rmst{{}, kRmst, true};
  for (const auto& [pos, p] : pts) {
    const double r = num(*p, "rmst");
    if (std::isfinite(r)) rmst.points.push_back({pos, r});
    if (!has_median(*p)) continue;
    const double m = num(*p, "median_time");
    median.points.push_back({pos, std::isfinite(m) ? m : hi});
    const std::string rmst_text = std::isfinite(r) ? fmt::format(" · restricted mean {:.0f} steps", r) : "";
    const std::string values = std::isfinite(m) ? fmt::format("median {:.0f} steps", m) + rmst_text
                                                : (budget > 0 ? fmt::format("median not reached within {:.0f} steps", budget)
                                                              : std::string("median not reached")) + rmst_text;
    t.points.push_back(trend_point(commits, pos, std::isfinite(m) ? m : hi, *p, values, !std::isfinite(m)));
  }
  t.lines = {std::move(rmst), std::move(median)};
  return {"steps to lock-in (Kaplan–Meier)", std::move(t),
          {{kMedian, "median (hollow: not reached, at the budget)"}, {kRmst, "restricted mean", true}}};
}

Figure recall_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label) {
  TrendChart t = trend_frame(commits, 0, 1, label + ": median recall per commit", "recall", changes, "recall");
  t.band_color = t.point_color = kRecall;
  TrendChart::Line median{{}, kRecall};
  for (const auto& [pos, p] : pts) {
    const double q1 = num(*p, "recall_q1"), q3 = num(*p, "recall_q3"), m = num(*p, "recall_median");
    if (std::isfinite(q1) && std::isfinite(q3)) {
      t.band_high.push_back({pos, q3});
      t.band_low.push_back({pos, q1});
    }
    if (!std::isfinite(m)) continue;
    median.points.push_back({pos, m});
    std::string values = fmt::format("recall median {:.3f}", m);
    if (std::isfinite(q1) && std::isfinite(q3)) values += fmt::format(" (q1 {:.3f}, q3 {:.3f})", q1, q3);
    t.points.push_back(trend_point(commits, pos, m, *p, values));
  }
  t.lines.push_back(std::move(median));
  return {"recall · median and q1–q3", std::move(t), {}};
}

Figure speed_chart(const json& bench, const Commits& commits) {
  const std::string name = str(bench, "benchmark");
  const auto pts = ordered_points(bench, commits);
  double hi = 0;
  for (const auto& [pos, p] : pts)
    if (num(*p, "value") > hi) hi = num(*p, "value");
  TrendChart t = trend_frame(commits, 0, hi > 0 ? hi * 1.1 : 1, name + ": kernel time relative to the GEMM ceiling per commit",
                             "× GEMM time", list(bench, "changes"), "speed");
  t.point_color = kSpeed;
  TrendChart::Line line{{}, kSpeed};
  for (const auto& [pos, p] : pts) {
    const double v = num(*p, "value");
    if (!std::isfinite(v)) continue;
    line.points.push_back({pos, v});
    t.points.push_back(trend_point(commits, pos, v, *p, fmt::format("{:.3g} × the GEMM ceiling's time", v)));
  }
  t.lines.push_back(std::move(line));
  return {Inline().code(name), std::move(t), {}};
}

// ---- the document ----------------------------------------------------------------------------------------

struct Names {
  std::unordered_map<std::string, std::string> label_of, anchor_of;  // config key → its label, its section's id
  std::string of(const std::string& key) const {
    const auto it = label_of.find(key);
    return it != label_of.end() && !it->second.empty() ? it->second : key;
  }
};

Names config_names(const json& doc) {
  Names n;
  size_t i = 0;
  for (const auto& c : list(doc, "configs")) {
    n.label_of[str(c, "config")] = str(c, "label");
    n.anchor_of[str(c, "config")] = fmt::format("cfg-{}", i++);
  }
  return n;
}

// "(<code>abc1234</code> 2026-11-20 … <code>def5678</code> 2026-11-25)" after the count of commits.
Inline commits_covered(const Commits& commits) {
  Inline s(fmt::format("{} commits", commits.list.size()));
  if (!commits.list.empty())
    s.text(" (").code(commits.list.front().short_hash).text(" " + commits.list.front().date.substr(0, 10) + " … ")
        .code(commits.list.back().short_hash).text(" " + commits.list.back().date.substr(0, 10) + ")");
  return s;
}

Inline counts(const json& doc) {
  return Inline(fmt::format(" · {} · {} · {}", count_of(list(doc, "configs").size(), "config"),
                            count_of(list(doc, "benchmarks").size(), "benchmark"), count_of(list(doc, "claims").size(), "claim")));
}

// The page header (title, what is covered, the method) and the Markdown summary's first lines.
Group header(const json& doc, const Commits& commits, const std::vector<const json*>& changes) {
  const std::string battery = str(doc, "battery");
  const double alpha = num(doc, "alpha");
  Group g{Group::Kind::kHeader};
  g.add(Heading{1, "recallbench history" + (battery.empty() ? std::string() : ": " + battery)});
  Inline meta = battery.empty() ? Inline() : Inline("battery ").code(battery).text(" · ");
  meta.append(commits_covered(commits)).append(counts(doc)).text(" · database ").code(str(doc, "database"));
  if (!str(doc, "generated").empty()) meta.text(" · generated " + str(doc, "generated"));
  g.add(Paragraph{meta, "meta"}, Show::kHtmlOnly);
  if (!str(doc, "method").empty() || std::isfinite(alpha))
    g.add(Paragraph{str(doc, "method") + (std::isfinite(alpha) ? fmt::format("{}alpha {}", str(doc, "method").empty() ? "" : " · ", alpha)
                                                               : std::string()),
                    "note"},
          Show::kHtmlOnly);
  const auto regressions = std::count_if(changes.begin(), changes.end(), [](const json* c) { return is_regression(*c); });
  Inline summary = commits_covered(commits).append(counts(doc)).text(" · ").strong(Inline(
      count_of(changes.size(), "change") + ", " + count_of(static_cast<size_t>(regressions), "regression")));
  if (std::isfinite(alpha)) summary.text(fmt::format(" at alpha {}", alpha));
  if (!str(doc, "database").empty()) summary.text(" · database ").code(str(doc, "database"));
  g.add(Paragraph{summary}, Show::kMarkdownOnly);
  return g;
}

// "abc1234..def5678" when a change gives the range it happened in, else empty.
Inline change_range(const json& c, const Commits& commits) {
  if (str(c, "first_commit").empty() || str(c, "last_commit").empty()) return {};
  return Inline().code(commits.short_of(str(c, "first_commit"))).text("..").code(commits.short_of(str(c, "last_commit")));
}

// A change's commit: its short hash linked to its row, with the commit's subject clipped to `clip_at` bytes.
Inline change_commit(const json& c, const Commits& commits, size_t clip_at, bool with_range) {
  const std::string hex = str(c, "commit");
  const auto it = commits.position_of.find(hex);
  Inline code = Inline().code(commits.short_of(hex));
  Inline s = it == commits.position_of.end() ? code : Inline().link(fmt::format("#commit-{}", it->second), code);
  const Inline range = change_range(c, commits);
  if (with_range && !range.empty()) s.text(" (").append(range).text(")");
  if (it != commits.position_of.end()) s.text(" " + clip(commits.list[static_cast<size_t>(it->second)].subject, clip_at));
  return s;
}

Table changes_table(const std::vector<const json*>& changes, const Commits& commits, const Names& names) {
  Table t{{{""}, {"metric"}, {"config"}, {"commit"}, {"range"}, {"before → after"}, {"effect"}, {"p (adjusted)"}}};
  t.cls = "changes";
  t.labelled = true;
  for (const json* c : changes) {
    const bool reg = is_regression(*c);
    const std::string key = str(*c, "config"), metric = str(*c, "metric");
    Inline kind = Inline(metric);
    if (!str(*c, "kind").empty()) kind.text(" ").sub(Inline(str(*c, "kind")));
    const auto anchor = names.anchor_of.find(key);
    const Inline config = anchor == names.anchor_of.end() ? Inline(names.of(key)) : Inline().link("#" + anchor->second, names.of(key));
    const Inline range = change_range(*c, commits);
    t.rows.push_back({{Cell(Inline().strong(Inline(reg ? "regression" : "improvement"))), Cell(kind), Cell(config),
                       Cell(change_commit(*c, commits, 90, false)), Cell(range.empty() ? Inline("–") : range),
                       Cell(fmt_metric(metric, num(*c, "before")) + " → " + fmt_metric(metric, num(*c, "after"))),
                       Cell(Inline().strong(Inline(str(*c, "effect_label")))),
                       Cell(Inline(fmt_p(num(*c, "p_adjusted")) + " ").sub(Inline("(" + fmt_p(num(*c, "p")) + ")")))},
                      reg ? "v-reg" : "v-imp"});
  }
  return t;
}

constexpr size_t kMarkdownChanges = 30;  // rows of the Markdown changes table; the page has them all

// The changes table of the Markdown summary: the range beside the commit, at most kMarkdownChanges rows.
Table changes_summary(const std::vector<const json*>& changes, const Commits& commits, const Names& names) {
  Table t{{{""}, {"metric"}, {"config"}, {"commit"}, {"before → after"}, {"effect"}, {"p (adjusted)"}}};
  for (size_t i = 0; i < changes.size() && i < kMarkdownChanges; ++i) {
    const json& c = *changes[i];
    const std::string metric = str(c, "metric");
    t.rows.push_back({{is_regression(c) ? Inline().strong(Inline("regression")) : Inline("improvement"),
                       metric + " " + str(c, "kind"), names.of(str(c, "config")), change_commit(c, commits, 60, true),
                       fmt_metric(metric, num(c, "before")) + " → " + fmt_metric(metric, num(c, "after")),
                       str(c, "effect_label"), fmt_p(num(c, "p_adjusted"))}});
  }
  return t;
}

Group section_changes(const json& doc, const Commits& commits, const std::vector<const json*>& changes, const Names& names) {
  Group g{Group::Kind::kSection, "changes"};
  if (changes.empty()) {  // the Markdown summary leaves the section out
    const double alpha = num(doc, "alpha");
    g.add(Heading{2, "Changes"}, Show::kHtmlOnly);
    g.add(Paragraph{fmt::format("No change point found{}.", std::isfinite(alpha) ? fmt::format(" at alpha {}", alpha) : "")},
          Show::kHtmlOnly);
    return g;
  }
  g.add(Heading{2, "Changes"});
  const auto regressions = std::count_if(changes.begin(), changes.end(), [](const json* c) { return is_regression(*c); });
  g.add(Paragraph{fmt::format("{}, {} first; p adjusted for the number of series and commits tested. A range is where "
                              "the change may have happened.",
                              count_of(changes.size(), "change point"), count_of(static_cast<size_t>(regressions), "regression")),
                  "note"},
        Show::kHtmlOnly);
  g.add(changes_table(changes, commits, names), Show::kHtmlOnly);
  g.add(changes_summary(changes, commits, names), Show::kMarkdownOnly);
  if (changes.size() > kMarkdownChanges)
    g.add(Paragraph{fmt::format("… and {} more in the HTML page.", changes.size() - kMarkdownChanges)}, Show::kMarkdownOnly);
  return g;
}

std::string latest_text(const json* p, double budget) {
  if (!p) return "no points";
  std::string s = fmt::format("{}/{} locked in", fmt_steps(num(*p, "locked_in")), fmt_steps(num(*p, "n")));
  if (has_median(*p)) {
    const double m = num(*p, "median_time");
    s += std::isfinite(m) ? fmt::format(", median {:.0f} steps", m)
                          : budget > 0 ? fmt::format(", median not reached in {:.0f} steps", budget) : ", median not reached";
  }
  if (std::isfinite(num(*p, "recall_median"))) s += fmt::format(", recall {:.3f}", num(*p, "recall_median"));
  return s;
}

// One config as the page shows it: its row of the index and its section of three charts.
struct ConfigView {
  std::string key, label, id;
  double budget = NAN;
  Points pts;
  const json* latest = nullptr;
  const json* changes = nullptr;
};

ConfigView config_view(const json& c, const Commits& commits, size_t i) {
  ConfigView v{str(c, "config"), str(c, "label"), fmt::format("cfg-{}", i), num(c, "budget"), ordered_points(c, commits)};
  if (v.label.empty()) v.label = v.key;
  v.latest = v.pts.empty() ? nullptr : v.pts.back().second;
  v.changes = &list(c, "changes");
  return v;
}

Row config_index_row(const ConfigView& v) {
  const double rate = v.latest ? num(*v.latest, "rate") : NAN, recall = v.latest ? num(*v.latest, "recall_median") : NAN;
  const size_t changes = v.changes->size();
  return {{Cell(Inline().link("#" + v.id, v.label)),
           Cell(v.latest ? fmt::format("{}/{}", fmt_steps(num(*v.latest, "locked_in")), fmt_steps(num(*v.latest, "n"))) : "–",
                std::isfinite(rate) ? rate : -1),
           Cell(std::isfinite(recall) ? fmt::format("{:.3f}", recall) : "–", std::isfinite(recall) ? recall : -1),
           Cell(changes == 0 ? std::string("–") : std::to_string(changes), static_cast<double>(changes)),
           Cell(std::to_string(v.pts.size()), static_cast<double>(v.pts.size()))}};
}

Group config_section(const ConfigView& v, const Commits& commits) {
  Group g{Group::Kind::kSection, "", "config"};
  g.id = v.id;
  g.add(Heading{3, v.label});
  Inline note = Inline().code(v.key);
  if (v.budget > 0) note.text(fmt::format(" · budget {:.0f} steps", v.budget));
  note.text(fmt::format(" · {} commits · latest", v.pts.size()));
  if (v.latest) note.text(" ").code(commits.short_at(v.pts.back().first, str(*v.latest, "commit")));
  note.text(": " + latest_text(v.latest, v.budget));
  if (!v.changes->empty()) note.text(" · ").strong(Inline(count_of(v.changes->size(), "change")));
  g.add(Paragraph{note, "note"});
  Group grid{Group::Kind::kDiv, "", "grid trends"};
  grid.add(lockin_chart(v.pts, commits, *v.changes, v.label));
  grid.add(time_chart(v.pts, commits, *v.changes, v.label, v.budget));
  grid.add(recall_chart(v.pts, commits, *v.changes, v.label));
  g.add(std::move(grid));
  return g;
}

// The Markdown summary's last table: per config its latest point.
Row latest_row(const ConfigView& v, const Commits& commits) {
  if (!v.latest) return {{v.label, "–", "–", "–", "–"}};
  const json& p = *v.latest;
  const double m = num(p, "median_time"), recall = num(p, "recall_median");
  const std::string median = std::isfinite(m)   ? fmt::format("{:.0f}", m)
                             : !has_median(p)   ? std::string("–")
                             : v.budget > 0     ? fmt::format("not reached (> {:.0f})", v.budget)
                                                : std::string("not reached");
  return {{v.label, Inline().code(commits.short_at(v.pts.back().first, str(p, "commit"))),
           fmt::format("{}/{}", fmt_steps(num(p, "locked_in")), fmt_steps(num(p, "n"))),
           Inline().raw(html_escape(median), median),  // "not reached (> 800)": a number, not markup
           std::isfinite(recall) ? fmt::format("{:.3f}", recall) : "–"}};
}

constexpr const char* kConfigsNote =
    "Per config and commit, oldest to newest: the lock-in rate with its exact (Clopper–Pearson) 95% interval, the "
    "steps to lock in (Kaplan–Meier median, hollow where fewer than half the seeds locked in within the budget, drawn "
    "at the budget; and the restricted mean), and the median recall with its interquartile band. Dashed lines mark "
    "change points (a shaded span: the range where it happened), red for regressions. Hover a point for its commit "
    "and values; click it for the commit.";

// The configs: an index, a section of charts each (HTML), and the latest point of each (Markdown).
Group section_configs(const json& doc, const Commits& commits) {
  Group g{Group::Kind::kSection, "configs"};
  Table index{{{"config"}, {"latest lock-in", true}, {"latest recall", true}, {"changes", true}, {"commits", true}}};
  index.cls = "sortable";
  index.id = "config-index";
  Table latest{{{"config"}, {"commit"}, {"lock-in"}, {"median time"}, {"recall"}}};
  std::vector<Group> sections;
  size_t i = 0;
  for (const auto& c : list(doc, "configs")) {
    const ConfigView v = config_view(c, commits, i++);
    index.rows.push_back(config_index_row(v));
    latest.rows.push_back(latest_row(v, commits));
    sections.push_back(config_section(v, commits));
  }
  if (i == 0) return g;
  g.add(Heading{2, "Configs"}, Show::kHtmlOnly);
  g.add(Paragraph{kConfigsNote, "note"}, Show::kHtmlOnly);
  g.add(std::move(index), Show::kHtmlOnly);
  for (auto& s : sections) g.add(std::move(s), Show::kHtmlOnly);
  g.add(Heading{2, "Latest per config"}, Show::kMarkdownOnly);
  g.add(std::move(latest), Show::kMarkdownOnly);
  return g;
}

// A section of the page: its id, its heading and a note under it.
Group page_section(const char* id, const char* heading, Inline note) {
  Group g{Group::Kind::kSection, id};
  g.add(Heading{2, heading});
  g.add(Paragraph{std::move(note), "note"});
  return g;
}

constexpr const char* kBenchmarksNote =
    "Kernel time relative to the same run's GEMM ceiling (lower is faster), per commit.";

Group section_benchmarks(const json& doc, const Commits& commits) {
  const json& benchmarks = list(doc, "benchmarks");
  if (benchmarks.empty()) return {};
  Group g = page_section("benchmarks", "Kernel speed", Inline().raw(kBenchmarksNote, kBenchmarksNote));  // as written
  Group grid{Group::Kind::kDiv, "", "grid trends"};
  for (const auto& b : benchmarks) grid.add(speed_chart(b, commits));
  g.add(std::move(grid));
  return g;
}

// A verdict's mark and its class.
std::pair<const char*, const char*> verdict_mark(const std::string& v) {
  if (v == "reproduced") return {"✓", "vr"};
  if (v == "contradicted") return {"✗", "vc"};
  if (v == "no effect") return {"0", "vn"};
  return {"?", "vu"};
}

// The claims table: claim × commit, a mark per verdict.
Table claims_table(const json& claims, const Commits& commits) {
  std::vector<int> columns;  // commit positions where some claim has a verdict
  for (const auto& c : claims)
    for (const auto& p : list(c, "points"))
      if (commits.position(p) >= 0 && !str(p, "verdict").empty()) columns.push_back(commits.position(p));
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  Table t{{{"claim"}}};
  t.cls = "claims";
  for (int pos : columns) {
    const Commit* k = commits.at(pos);
    t.columns.push_back({Inline().link(fmt::format("#commit-{}", pos), k ? k->short_hash : std::to_string(pos)), false, "vh",
                         commits.tip_at(pos, "")});
  }
  for (const auto& c : claims) {
    std::unordered_map<int, std::string> verdict_at;
    for (const auto& p : list(c, "points"))
      if (commits.position(p) >= 0) verdict_at[commits.position(p)] = str(p, "verdict");
    Row row;
    row.cells.push_back(Cell(str(c, "claim")));
    row.cells.back().header = true;
    for (int pos : columns) {
      const auto it = verdict_at.find(pos);
      Cell cell;
      if (it != verdict_at.end() && !it->second.empty()) {
        const auto [mark, cls] = verdict_mark(it->second);
        cell = Cell(mark);
        cell.cls = cls;
        cell.title = str(c, "claim") + " at " + commits.short_at(pos) + ": " + it->second;
      }
      row.cells.push_back(std::move(cell));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Group section_claims(const json& doc, const Commits& commits) {
  const json& claims = list(doc, "claims");
  if (claims.empty()) return {};
  Group g = page_section("claims", "Claims",
                         Inline("The verdict of ")
                             .code("recallbench verify")
                             .text(" per claim at the commits where it was checked: ")
                             .raw("<span class=\"vr\">✓</span>", "✓")
                             .text(" reproduced, ")
                             .raw("<span class=\"vc\">✗</span>", "✗")
                             .text(" contradicted, ")
                             .raw("<span class=\"vn\">0</span>", "0")
                             .text(" no effect, ")
                             .raw("<span class=\"vu\">?</span>", "?")
                             .text(" undecided."));
  g.add(claims_table(claims, commits));
  return g;
}

Group section_commits(const Commits& commits) {
  if (commits.list.empty()) return {};
  Group g{Group::Kind::kSection, "commits"};
  g.add(Heading{2, "Commits"});
  Group details{Group::Kind::kDetails};
  details.summary = Inline(fmt::format("{} commits, oldest first", commits.list.size()));
  Table t{{{"#"}, {"commit"}, {"date"}, {"branch"}, {"subject"}}};
  t.cls = "commits";
  for (size_t i = 0; i < commits.list.size(); ++i) {
    const Commit& k = commits.list[i];
    Row row{{Cell(std::to_string(i)), Cell(Inline().code(k.short_hash, k.hex)), Cell(k.date), Cell(k.branch), Cell(k.subject)}};
    row.cells[2].cls = "sub";
    row.id = fmt::format("commit-{}", i);
    t.rows.push_back(std::move(row));
  }
  details.add(std::move(t));
  g.add(std::move(details));
  return g;
}

// Adds a section unless it is empty.
void add_section(Document& d, Group g, Show show = Show::kAll) {
  if (!g.blocks.empty()) d.add(std::move(g), show);
}

}  // namespace

std::string effect_label(judge::Metric metric, double effect) {
  switch (metric) {
    case judge::Metric::kLockIn: return fmt::format("{:+.0f} points", 100.0 * effect);
    case judge::Metric::kRecall: return fmt::format("{:+.3f} recall", effect);
    case judge::Metric::kTime:
    case judge::Metric::kSpeed:
      if (!std::isfinite(effect)) return "n/a";
      return effect >= 1.0 ? fmt::format("x{:.2f} slower", effect) : fmt::format("x{:.2f} faster", 1.0 / effect);
  }
  return "n/a";
}

Document history_document(const json& doc) {
  const Commits commits = read_commits(doc);
  const auto changes = ordered_changes(doc);
  const Names names = config_names(doc);
  const std::string battery = str(doc, "battery");
  Document d{"recallbench history" + (battery.empty() ? std::string() : ": " + battery)};
  d.add(Raw{std::string("<style>") + kHistoryCss + "</style>"}, Show::kHtmlOnly);
  d.add(header(doc, commits, changes));
  add_section(d, section_changes(doc, commits, changes, names));
  add_section(d, section_configs(doc, commits));
  add_section(d, section_benchmarks(doc, commits), Show::kHtmlOnly);
  add_section(d, section_claims(doc, commits), Show::kHtmlOnly);
  add_section(d, section_commits(commits), Show::kHtmlOnly);
  d.json = doc;
  d.markdown_escape = MarkdownEscape::kHtmlSafe;  // a job summary reads <, > and backquotes as markup
  return d;
}

std::string history_html(const json& doc) { return HtmlRenderer().render(history_document(doc)); }

std::string history_markdown(const json& doc) { return MarkdownRenderer().render(history_document(doc)); }

}  // namespace rb::reports
