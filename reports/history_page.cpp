// The trend page of `recallbench history report` and its Markdown summary (see history_page.h). The page
// uses the report's stylesheet and script (html_page) plus a few rules of its own; charts are inline SVG
// along the commit axis, kept lean for long histories: per series one <path>, per point one <circle> with
// its <title> (the hover tooltip), no per-point text.
#include "reports/history_page.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "reports/html_parts.h"
#include "reports/report.h"

namespace rb::reports {
namespace {

using json = nlohmann::json;

std::string esc(const std::string& s) { return html_escape(s); }

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

std::string tick_label(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:g}k", v / 1000);
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

// ---- commits: positions along the x axis, tooltips -------------------------------------------------------

struct Commit {
  std::string hex, short_hash, date, subject, branch;
};

struct Commits {
  std::vector<Commit> list;
  std::unordered_map<std::string, int> position_of;  // full hash → position in "commits"
  std::vector<std::string> tip;                       // per position: escaped "short · date · subject"
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
    return esc(hex.substr(0, 7));
  }
};

Commits read_commits(const json& doc) {
  Commits c;
  for (const auto& j : list(doc, "commits")) {
    Commit k{str(j, "commit"), str(j, "short"), str(j, "date"), one_line(str(j, "subject")), str(j, "branch")};
    if (k.short_hash.empty()) k.short_hash = k.hex.substr(0, 7);
    c.position_of.emplace(k.hex, static_cast<int>(c.list.size()));
    c.tip.push_back(esc(k.short_hash + " · " + k.date.substr(0, 10) + " · " + clip(k.subject, 72)));
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

// Whether a change is a regression: its "direction" when given, else from before → after (lock-in and
// recall down, time and kernel time up), else from its label.
bool is_regression(const json& change) {
  const std::string direction = str(change, "direction");
  if (!direction.empty()) return direction == "regression";
  const std::string metric = str(change, "metric");
  const double before = num(change, "before"), after = num(change, "after");
  const bool higher_is_worse = metric == "time" || metric == "speed";
  if (std::isfinite(before) && std::isfinite(after) && before != after) return higher_is_worse ? after > before : after < before;
  const std::string label = str(change, "effect_label");
  return label.find("slower") != std::string::npos || label.rfind("-", 0) == 0 || label.rfind("−", 0) == 0;
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

// ---- the trend chart -------------------------------------------------------------------------------------

// A chart in a 360×200 viewBox scaled to its container; the plot leaves room above for change labels.
constexpr double kW = 360, kH = 200, kL = 40, kR = 8, kT = 26, kB = 30;
constexpr double kPw = kW - kL - kR, kPh = kH - kT - kB;
constexpr double kInset = 4;  // keeps the first and last commit off the axes

struct Frame {
  int n = 1;  // commit positions on the axis
  double lo = 0, hi = 1;
  double x(int pos) const {
    return n > 1 ? kL + kInset + (kPw - 2 * kInset) * pos / (n - 1) : kL + kPw / 2;
  }
  double y(double v) const {
    const double t = hi > lo ? (std::clamp(v, lo, hi) - lo) / (hi - lo) : 0.5;
    return kT + kPh - t * kPh;
  }
  // The point radius: smaller as commits crowd the axis.
  double r() const { return std::clamp(0.35 * (kPw - 2 * kInset) / std::max(n - 1, 1), 1.2, 3.0); }
};

std::string open_chart(const Frame& f, const Commits& commits, const std::string& aria, const std::string& ylabel) {
  std::string s = fmt::format(
      "<svg class=\"chart trend\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">",
      kW, kH, esc(aria));
  auto out = std::back_inserter(s);
  for (double t : nice_ticks(f.lo, f.hi)) {
    fmt::format_to(out, "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", kL, kL + kPw, f.y(t), f.y(t));
    fmt::format_to(out, "<text x=\"{}\" y=\"{:.1f}\" class=\"tl\" text-anchor=\"end\">{}</text>", kL - 4, f.y(t) + 3,
                   tick_label(t));
  }
  std::vector<double> xt = nice_ticks(0, std::max(f.n - 1, 0), 3);
  for (double t : xt) {
    if (t != std::round(t)) continue;  // positions are whole commits
    const int pos = static_cast<int>(t);
    const double x = f.x(pos);
    const char* anchor = x < kL + 20 ? "start" : x > kL + kPw - 20 ? "end" : "middle";
    fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"tick\"/>", x, kT + kPh, kT + kPh + 4);
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{}\" class=\"tl\" text-anchor=\"{}\">{}</text>", x, kT + kPh + 13, anchor,
                   esc(commits.short_at(pos, std::to_string(pos))));
  }
  fmt::format_to(out, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"axis\"/>", kL, kL + kPw, kT + kPh);
  fmt::format_to(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>", kL, kT, kT + kPh);
  fmt::format_to(out, "<text x=\"{}\" y=\"{}\" class=\"al\" text-anchor=\"middle\">commit (oldest → newest)</text>",
                 kL + kPw / 2, kH - 4);
  fmt::format_to(out, "<text transform=\"translate(11 {}) rotate(-90)\" class=\"al\" text-anchor=\"middle\">{}</text>",
                 kT + kPh / 2, esc(ylabel));
  return s;
}

// Change points of `metric` among `changes`: a dashed line at the change commit (a shaded span for a range
// first_commit..last_commit), labelled with the short hash and the effect; the full description on hover.
// Changes of the series' other metrics get a faint unlabelled line, so that a lock-in drop shows in the
// recall chart too.
void draw_changes(std::string& s, const Frame& f, const Commits& commits, const json& changes, const std::string& metric) {
  auto out = std::back_inserter(s);
  int drawn = 0;
  for (const auto& c : changes) {
    const int pos = commits.position(c);
    if (pos < 0 || pos >= f.n) continue;
    const char* color = is_regression(c) ? "#d62728" : "#1a9850";
    if (str(c, "metric") != metric) {
      fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" class=\"cpo\"><title>{4}"
                          "</title></line>",
                     f.x(pos), kT, kT + kPh, color, esc(change_summary(c, commits)));
      continue;
    }
    fmt::format_to(out, "<g class=\"cp\" data-commit=\"{}\"><title>{}</title>", esc(commits.short_at(pos, str(c, "commit"))),
                   esc(change_summary(c, commits)));
    const int first = commits.position(c, "first_commit"), last = commits.position(c, "last_commit");
    if (first >= 0 && last >= first && last < f.n) {
      const double x0 = f.x(first) - (first == last ? 2 : 0), x1 = f.x(last) + (first == last ? 2 : 0);
      fmt::format_to(out, "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" class=\"span\"/>", x0, kT,
                     std::max(x1 - x0, 1.0), kPh, color);
    }
    const double x = f.x(pos);
    fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" class=\"cpl\"/>", x, kT - 4,
                   kT + kPh, color);
    const bool right = x > kL + kPw * 0.55;
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{}\" fill=\"{}\" class=\"cpt\" text-anchor=\"{}\">{}</text></g>",
                   right ? x - 3 : x + 3, 9 + 10 * (drawn % 2), color, right ? "end" : "start",
                   esc(commits.short_at(pos, str(c, "commit")) + " " + str(c, "effect_label")));
    ++drawn;
  }
}

// A polyline through (x, y) pixel points as one path ("M x y L x y ...").
std::string path_of(const std::vector<std::pair<double, double>>& pts) {
  std::string d;
  for (size_t i = 0; i < pts.size(); ++i) fmt::format_to(std::back_inserter(d), "{}{:.1f} {:.1f}", i ? "L" : "M", pts[i].first, pts[i].second);
  return d;
}

// One point: a circle that links to its commit's row and tells commit, date, subject and `values` on hover.
// Its colour comes from the enclosing points group (open_points); hollow: the value is a stand-in.
void draw_point(std::string& s, const Frame& f, const Commits& commits, int pos, double y_px, const std::string& hex,
                const std::string& values, bool hollow = false) {
  fmt::format_to(std::back_inserter(s),
                 "<a href=\"#commit-{}\"><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\"{} data-commit=\"{}\">"
                 "<title>{}\n{}</title></circle></a>",
                 pos, f.x(pos), y_px, f.r(), hollow ? " class=\"nr\"" : "", esc(commits.short_at(pos, hex)),
                 commits.tip_at(pos, hex), esc(values));
}
std::string open_points(const char* color) { return fmt::format("<g class=\"pts\" fill=\"{0}\" stroke=\"{0}\">", color); }

std::string figure(const std::string& caption, const std::string& svg, const std::string& legend = "") {
  return "<figure><figcaption>" + caption + "</figcaption>" + svg + "</svg>" +
         (legend.empty() ? "" : "<div class=\"legend\">" + legend + "</div>") + "</figure>";
}

std::string legend_item(const char* color, const std::string& label, const char* extra = "") {
  return fmt::format("<span><i style=\"background:{}\"{}></i>{}</span>", color, extra, label);
}

constexpr const char* kRate = "#1f77b4";
constexpr const char* kMedian = "#ff7f0e";
constexpr const char* kRmst = "#8c564b";
constexpr const char* kRecall = "#2ca02c";
constexpr const char* kSpeed = "#9467bd";

using Points = std::vector<std::pair<int, const json*>>;

std::string lockin_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label) {
  const Frame f{commits.count, 0, 1};
  std::string s = open_chart(f, commits, label + ": lock-in rate per commit", "lock-in rate");
  draw_changes(s, f, commits, changes, "lock-in");
  std::string bars;
  std::vector<std::pair<double, double>> line;
  for (const auto& [pos, p] : pts) {
    const json& ci = field(*p, "ci");
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
      fmt::format_to(std::back_inserter(bars), "M{:.1f} {:.1f}V{:.1f}", f.x(pos), f.y(ci[1].get<double>()), f.y(ci[0].get<double>()));
    const double rate = num(*p, "rate");
    if (std::isfinite(rate)) line.push_back({f.x(pos), f.y(rate)});
  }
  if (!bars.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ci\"/>", bars, kRate);
  if (!line.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln\"/>", path_of(line), kRate);
  s += open_points(kRate);
  for (const auto& [pos, p] : pts) {
    const double rate = num(*p, "rate");
    if (!std::isfinite(rate)) continue;
    const json& ci = field(*p, "ci");
    std::string values = fmt::format("lock-in {}/{} ({:.0f}%)", fmt_steps(num(*p, "locked_in")), fmt_steps(num(*p, "n")), 100 * rate);
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
      values += fmt::format(", 95% CI {:.0f}–{:.0f}%", 100 * ci[0].get<double>(), 100 * ci[1].get<double>());
    draw_point(s, f, commits, pos, f.y(rate), str(*p, "commit"), values);
  }
  s += "</g>";
  return figure("lock-in rate · exact 95% interval", s);
}

// Whether a point reports a median time to lock-in: a number, or null when the median was not reached.
bool has_median(const json& p) {
  return p.is_object() && p.contains("median_time") && (p.at("median_time").is_number() || p.at("median_time").is_null());
}

std::string time_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label,
                       double budget) {
  double hi = budget > 0 ? budget : 0;
  if (!(hi > 0))
    for (const auto& [pos, p] : pts) hi = std::max({hi, num(*p, "median_time") > 0 ? num(*p, "median_time") : 0.0,
                                                    num(*p, "rmst") > 0 ? num(*p, "rmst") : 0.0});
  if (!(hi > 0)) hi = 1;
  const Frame f{commits.count, 0, hi};
  std::string s = open_chart(f, commits, label + ": steps to lock-in per commit", "steps to lock-in");
  draw_changes(s, f, commits, changes, "time");
  std::vector<std::pair<double, double>> median, rmst;
  for (const auto& [pos, p] : pts) {
    const double r = num(*p, "rmst");
    if (std::isfinite(r)) rmst.push_back({f.x(pos), f.y(r)});
    if (!has_median(*p)) continue;
    const double m = num(*p, "median_time");
    median.push_back({f.x(pos), f.y(std::isfinite(m) ? m : hi)});
  }
  if (!rmst.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln dash\"/>", path_of(rmst), kRmst);
  if (!median.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln\"/>", path_of(median), kMedian);
  s += open_points(kMedian);
  for (const auto& [pos, p] : pts) {
    const double r = num(*p, "rmst");
    const std::string rmst_text = std::isfinite(r) ? fmt::format(" · restricted mean {:.0f} steps", r) : "";
    if (has_median(*p)) {
      const double m = num(*p, "median_time");
      const std::string values = std::isfinite(m) ? fmt::format("median {:.0f} steps", m) + rmst_text
                                                  : (budget > 0 ? fmt::format("median not reached within {:.0f} steps", budget)
                                                                : std::string("median not reached")) + rmst_text;
      draw_point(s, f, commits, pos, f.y(std::isfinite(m) ? m : hi), str(*p, "commit"), values, !std::isfinite(m));
    }
  }
  s += "</g>";
  return figure("steps to lock-in (Kaplan–Meier)", s,
                legend_item(kMedian, "median (hollow: not reached, at the budget)") +
                    legend_item(kRmst, "restricted mean", " class=\"dash\""));
}

std::string recall_chart(const Points& pts, const Commits& commits, const json& changes, const std::string& label) {
  const Frame f{commits.count, 0, 1};
  std::string s = open_chart(f, commits, label + ": median recall per commit", "recall");
  draw_changes(s, f, commits, changes, "recall");
  std::vector<std::pair<double, double>> upper, lower, median;
  for (const auto& [pos, p] : pts) {
    const double q1 = num(*p, "recall_q1"), q3 = num(*p, "recall_q3"), m = num(*p, "recall_median");
    if (std::isfinite(q1) && std::isfinite(q3)) {
      upper.push_back({f.x(pos), f.y(q3)});
      lower.push_back({f.x(pos), f.y(q1)});
    }
    if (std::isfinite(m)) median.push_back({f.x(pos), f.y(m)});
  }
  if (!upper.empty()) {
    std::reverse(lower.begin(), lower.end());
    std::string d = path_of(upper);
    for (const auto& [x, y] : lower) fmt::format_to(std::back_inserter(d), "L{:.1f} {:.1f}", x, y);
    s += fmt::format("<path d=\"{}Z\" fill=\"{}\" class=\"band\"/>", d, kRecall);
  }
  if (!median.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln\"/>", path_of(median), kRecall);
  s += open_points(kRecall);
  for (const auto& [pos, p] : pts) {
    const double q1 = num(*p, "recall_q1"), q3 = num(*p, "recall_q3"), m = num(*p, "recall_median");
    if (!std::isfinite(m)) continue;
    std::string values = fmt::format("recall median {:.3f}", m);
    if (std::isfinite(q1) && std::isfinite(q3)) values += fmt::format(" (q1 {:.3f}, q3 {:.3f})", q1, q3);
    draw_point(s, f, commits, pos, f.y(m), str(*p, "commit"), values);
  }
  s += "</g>";
  return figure("recall · median and q1–q3", s);
}

std::string speed_chart(const json& bench, const Commits& commits) {
  const std::string name = str(bench, "benchmark");
  const auto pts = ordered_points(bench, commits);
  double hi = 0;
  for (const auto& [pos, p] : pts)
    if (num(*p, "value") > hi) hi = num(*p, "value");
  hi = hi > 0 ? hi * 1.1 : 1;
  const Frame f{commits.count, 0, hi};
  std::string s = open_chart(f, commits, name + ": kernel time relative to the GEMM ceiling per commit", "× GEMM time");
  draw_changes(s, f, commits, list(bench, "changes"), "speed");
  std::vector<std::pair<double, double>> line;
  for (const auto& [pos, p] : pts)
    if (std::isfinite(num(*p, "value"))) line.push_back({f.x(pos), f.y(num(*p, "value"))});
  if (!line.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln\"/>", path_of(line), kSpeed);
  s += open_points(kSpeed);
  for (const auto& [pos, p] : pts) {
    const double v = num(*p, "value");
    if (std::isfinite(v))
      draw_point(s, f, commits, pos, f.y(v), str(*p, "commit"), fmt::format("{:.3g} × the GEMM ceiling's time", v));
  }
  s += "</g>";
  return figure("<code>" + esc(name) + "</code>", s);
}

// ---- page sections ---------------------------------------------------------------------------------------

std::string commit_cell(const json& c, const Commits& commits) {
  const std::string hex = str(c, "commit");
  const auto it = commits.position_of.find(hex);
  std::string s = fmt::format("<code>{}</code>", esc(commits.short_of(hex)));
  if (it != commits.position_of.end())
    s = fmt::format("<a href=\"#commit-{}\">{}</a> {}", it->second, s, esc(clip(commits.list[static_cast<size_t>(it->second)].subject, 90)));
  return s;
}

std::string section_changes(const json& doc, const Commits& commits, const std::unordered_map<std::string, std::string>& label_of,
                            const std::unordered_map<std::string, std::string>& anchor_of) {
  const auto changes = ordered_changes(doc);
  const double alpha = num(doc, "alpha");
  std::string s = "<section id=\"changes\"><h2>Changes</h2>";
  if (changes.empty())
    return s + fmt::format("<p>No change point found{}.</p></section>",
                           std::isfinite(alpha) ? fmt::format(" at alpha {}", alpha) : std::string());
  const auto regressions = std::count_if(changes.begin(), changes.end(), [](const json* c) { return is_regression(*c); });
  s += fmt::format("<p class=\"note\">{}, {} first; p adjusted for the number of series and "
                   "commits tested. A range is where the change may have happened.</p>",
                   count_of(changes.size(), "change point"), count_of(static_cast<size_t>(regressions), "regression"));
  s += "<div class=\"scroll\"><table class=\"changes\"><thead><tr><th></th><th>metric</th><th>config</th><th>commit</th>"
       "<th>range</th><th>before → after</th><th>effect</th><th>p (adjusted)</th></tr></thead><tbody>";
  auto out = std::back_inserter(s);
  for (const json* c : changes) {
    const bool reg = is_regression(*c);
    const std::string key = str(*c, "config"), metric = str(*c, "metric");
    const auto label = label_of.find(key);
    const auto anchor = anchor_of.find(key);
    std::string config = esc(label != label_of.end() && !label->second.empty() ? label->second : key);
    if (anchor != anchor_of.end()) config = fmt::format("<a href=\"#{}\">{}</a>", anchor->second, config);
    std::string range = "–";
    if (!str(*c, "first_commit").empty() && !str(*c, "last_commit").empty())
      range = fmt::format("<code>{}</code>..<code>{}</code>", esc(commits.short_of(str(*c, "first_commit"))),
                          esc(commits.short_of(str(*c, "last_commit"))));
    fmt::format_to(out,
                   "<tr class=\"{}\"><td data-label=\"\"><b>{}</b></td><td data-label=\"metric\">{}{}</td>"
                   "<td data-label=\"config\">{}</td><td data-label=\"commit\">{}</td><td data-label=\"range\">{}</td>"
                   "<td data-label=\"before → after\">{} → {}</td><td data-label=\"effect\"><b>{}</b></td>"
                   "<td data-label=\"p (adjusted)\">{} <span class=\"sub\">({})</span></td></tr>",
                   reg ? "v-reg" : "v-imp", reg ? "regression" : "improvement", esc(metric),
                   str(*c, "kind").empty() ? "" : " <span class=\"sub\">" + esc(str(*c, "kind")) + "</span>", config,
                   commit_cell(*c, commits), range, esc(fmt_metric(metric, num(*c, "before"))),
                   esc(fmt_metric(metric, num(*c, "after"))), esc(str(*c, "effect_label")), fmt_p(num(*c, "p_adjusted")),
                   fmt_p(num(*c, "p")));
  }
  return s + "</tbody></table></div></section>";
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

std::string section_configs(const json& doc, const Commits& commits) {
  const json& configs = list(doc, "configs");
  if (configs.empty()) return "";
  std::string index = "<div class=\"scroll\"><table class=\"sortable\" id=\"config-index\"><thead><tr><th>config</th>"
                      "<th data-col=\"1\">latest lock-in</th><th data-col=\"2\">latest recall</th><th data-col=\"3\">changes"
                      "</th><th data-col=\"4\">commits</th></tr></thead><tbody>";
  std::string sections;
  size_t i = 0;
  for (const auto& c : configs) {
    const std::string key = str(c, "config");
    const std::string label = str(c, "label").empty() ? key : str(c, "label");
    const double budget = num(c, "budget");
    const json& changes = list(c, "changes");
    const auto pts = ordered_points(c, commits);
    const json* latest = pts.empty() ? nullptr : pts.back().second;
    const std::string id = fmt::format("cfg-{}", i++);
    const double rate = latest ? num(*latest, "rate") : NAN, recall = latest ? num(*latest, "recall_median") : NAN;
    fmt::format_to(std::back_inserter(index),
                   "<tr><td><a href=\"#{}\">{}</a></td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}"
                   "</td><td data-v=\"{}\">{}</td></tr>",
                   id, esc(label), std::isfinite(rate) ? rate : -1,
                   latest ? fmt::format("{}/{}", fmt_steps(num(*latest, "locked_in")), fmt_steps(num(*latest, "n"))) : "–",
                   std::isfinite(recall) ? recall : -1, std::isfinite(recall) ? fmt::format("{:.3f}", recall) : "–",
                   changes.size(), changes.empty() ? std::string("–") : std::to_string(changes.size()), pts.size(), pts.size());
    sections += fmt::format(
        "<section class=\"config\" id=\"{}\"><h3>{}</h3><p class=\"note\"><code>{}</code>{} · {} commits · latest{}: {}{}"
        "</p><div class=\"grid trends\">",
        id, esc(label), esc(key), budget > 0 ? fmt::format(" · budget {:.0f} steps", budget) : "", pts.size(),
        latest ? " <code>" + esc(commits.short_at(pts.back().first, str(*latest, "commit"))) + "</code>" : "",
        esc(latest_text(latest, budget)),
        changes.empty() ? "" : " · <b>" + count_of(changes.size(), "change") + "</b>");
    sections += lockin_chart(pts, commits, changes, label);
    sections += time_chart(pts, commits, changes, label, budget);
    sections += recall_chart(pts, commits, changes, label);
    sections += "</div></section>";
  }
  return "<section id=\"configs\"><h2>Configs</h2><p class=\"note\">Per config and commit, oldest to newest: the lock-in "
         "rate with its exact (Clopper–Pearson) 95% interval, the steps to lock in (Kaplan–Meier median, hollow where "
         "fewer than half the seeds locked in within the budget, drawn at the budget; and the restricted mean), and the "
         "median recall with its interquartile band. Dashed lines mark change points (a shaded span: the range where "
         "it happened), red for regressions. Hover a point for its commit and values; click it for the commit.</p>" +
         index + "</tbody></table></div>" + sections + "</section>";
}

std::string section_benchmarks(const json& doc, const Commits& commits) {
  const json& benchmarks = list(doc, "benchmarks");
  if (benchmarks.empty()) return "";
  std::string s = "<section id=\"benchmarks\"><h2>Kernel speed</h2><p class=\"note\">Kernel time relative to the same "
                  "run's GEMM ceiling (lower is faster), per commit.</p><div class=\"grid trends\">";
  for (const auto& b : benchmarks) s += speed_chart(b, commits);
  return s + "</div></section>";
}

// A verdict's mark and its class.
std::pair<const char*, const char*> verdict_mark(const std::string& v) {
  if (v == "reproduced") return {"✓", "vr"};
  if (v == "contradicted") return {"✗", "vc"};
  if (v == "no effect") return {"0", "vn"};
  return {"?", "vu"};
}

std::string section_claims(const json& doc, const Commits& commits) {
  const json& claims = list(doc, "claims");
  if (claims.empty()) return "";
  std::vector<int> columns;  // commit positions where some claim has a verdict
  for (const auto& c : claims)
    for (const auto& p : list(c, "points"))
      if (commits.position(p) >= 0 && !str(p, "verdict").empty()) columns.push_back(commits.position(p));
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  std::string s = "<section id=\"claims\"><h2>Claims</h2><p class=\"note\">The verdict of <code>recallbench verify</code> "
                  "per claim at the commits where it was checked: <span class=\"vr\">✓</span> reproduced, <span "
                  "class=\"vc\">✗</span> contradicted, <span class=\"vn\">0</span> no effect, <span class=\"vu\">?</span> "
                  "undecided.</p><div class=\"scroll\"><table class=\"claims\"><thead><tr><th>claim</th>";
  for (int pos : columns) {
    const Commit* k = commits.at(pos);
    s += fmt::format("<th class=\"vh\" title=\"{}\"><a href=\"#commit-{}\">{}</a></th>", commits.tip_at(pos, ""), pos,
                     esc(k ? k->short_hash : std::to_string(pos)));
  }
  s += "</tr></thead><tbody>";
  for (const auto& c : claims) {
    std::unordered_map<int, std::string> verdict_at;
    for (const auto& p : list(c, "points"))
      if (commits.position(p) >= 0) verdict_at[commits.position(p)] = str(p, "verdict");
    s += "<tr><th scope=\"row\">" + esc(str(c, "claim")) + "</th>";
    for (int pos : columns) {
      const auto it = verdict_at.find(pos);
      if (it == verdict_at.end() || it->second.empty()) {
        s += "<td></td>";
        continue;
      }
      const auto [mark, cls] = verdict_mark(it->second);
      s += fmt::format("<td class=\"{}\" title=\"{} at {}: {}\">{}</td>", cls, esc(str(c, "claim")),
                       esc(commits.short_at(pos)), esc(it->second), mark);
    }
    s += "</tr>";
  }
  return s + "</tbody></table></div></section>";
}

std::string section_commits(const Commits& commits) {
  if (commits.list.empty()) return "";
  std::string s = fmt::format("<section id=\"commits\"><h2>Commits</h2><details><summary>{} commits, oldest first</summary>"
                              "<div class=\"scroll\"><table class=\"commits\"><thead><tr><th>#</th><th>commit</th><th>date</th>"
                              "<th>branch</th><th>subject</th></tr></thead><tbody>",
                              commits.list.size());
  auto out = std::back_inserter(s);
  for (size_t i = 0; i < commits.list.size(); ++i) {
    const Commit& k = commits.list[i];
    fmt::format_to(out, "<tr id=\"commit-{}\"><td>{}</td><td><code title=\"{}\">{}</code></td><td class=\"sub\">{}</td><td>{}</td>"
                        "<td>{}</td></tr>",
                   i, i, esc(k.hex), esc(k.short_hash), esc(k.date), esc(k.branch), esc(k.subject));
  }
  return s + "</tbody></table></div></details></section>";
}

constexpr const char* kHistoryCss =
    "<style>svg.trend .ln{fill:none;stroke-width:1.6}svg.trend .dash{stroke-dasharray:4 3}"
    "svg.trend .ci{fill:none;stroke-width:1;opacity:.45}svg.trend .band{opacity:.18;stroke:none}"
    "svg.trend .pts circle{stroke-width:0}svg.trend .pts circle.nr{fill:#fff;stroke-width:1.3}svg.trend a circle:hover{stroke:#1d232a;stroke-width:1.5}"
    "svg.trend .cpl{stroke-width:1.2;stroke-dasharray:4 3}svg.trend .cpo{stroke-width:1;stroke-dasharray:2 3;opacity:.45}svg.trend .span{opacity:.13}"
    "svg.trend .cpt{font-size:9px;font-weight:600}"
    ".legend i.dash{background:none!important;border-top:2px dashed #8c564b;height:0;vertical-align:3px}"
    "section.config h3{font-size:1.02em;margin:22px 0 2px;overflow-wrap:anywhere}"
    "section.config .note{margin:0 0 8px}"
    ".grid.trends{grid-template-columns:repeat(auto-fill,minmax(290px,1fr))}"
    "table.claims{width:auto}table.claims td{text-align:center;min-width:2.2em;font-weight:600}"
    "table.claims th.vh{font-weight:normal;font-size:.8em;padding:4px 3px}"
    "table.claims th.vh a{writing-mode:vertical-rl;font-family:ui-monospace,monospace}"
    ".vr{color:#1a9850}.vc{color:#d73027}.vn{color:#5b6670}.vu{color:#b8860b}"
    "table.commits td{white-space:nowrap}table.commits td:last-child{white-space:normal;min-width:16em}"
    "tr:target td{background:#fff6e0}details summary{cursor:pointer;color:#5b6670}"
    "table.changes td{overflow-wrap:anywhere}table.changes td:first-child,table.changes code{white-space:nowrap}"
    "header .meta{word-break:normal;overflow-wrap:anywhere}header .meta code{white-space:nowrap}"
    "@media (max-width:600px){table.changes td[data-label=\"\"]:before{content:none}}"
    "</style>";

}  // namespace

std::string history_html(const json& doc) {
  const Commits commits = read_commits(doc);
  std::unordered_map<std::string, std::string> label_of, anchor_of;
  {
    size_t i = 0;
    for (const auto& c : list(doc, "configs")) {
      label_of[str(c, "config")] = str(c, "label");
      anchor_of[str(c, "config")] = fmt::format("cfg-{}", i++);
    }
  }
  const std::string battery = str(doc, "battery");
  const double alpha = num(doc, "alpha");
  std::string body = kHistoryCss;
  body += "<header><h1>recallbench history" + (battery.empty() ? std::string() : ": " + esc(battery)) + "</h1>";
  std::string covered = fmt::format("{} commits", commits.list.size());
  if (!commits.list.empty())
    covered += fmt::format(" (<code>{}</code> {} … <code>{}</code> {})", esc(commits.list.front().short_hash),
                           esc(commits.list.front().date.substr(0, 10)), esc(commits.list.back().short_hash),
                           esc(commits.list.back().date.substr(0, 10)));
  body += fmt::format("<p class=\"meta\">{}{} · {} · {} · {} · database <code>{}</code>{}</p>",
                      battery.empty() ? "" : "battery <code>" + esc(battery) + "</code> · ", covered,
                      count_of(list(doc, "configs").size(), "config"), count_of(list(doc, "benchmarks").size(), "benchmark"),
                      count_of(list(doc, "claims").size(), "claim"),
                      esc(str(doc, "database")),
                      str(doc, "generated").empty() ? "" : " · generated " + esc(str(doc, "generated")));
  if (!str(doc, "method").empty() || std::isfinite(alpha))
    body += fmt::format("<p class=\"note\">{}{}</p>", esc(str(doc, "method")),
                        std::isfinite(alpha) ? fmt::format("{}alpha {}", str(doc, "method").empty() ? "" : " · ", alpha) : "");
  body += "</header>";
  body += section_changes(doc, commits, label_of, anchor_of);
  body += section_configs(doc, commits);
  body += section_benchmarks(doc, commits);
  body += section_claims(doc, commits);
  body += section_commits(commits);
  return html_page("recallbench history" + (battery.empty() ? std::string() : ": " + battery), body);
}

// ---- Markdown --------------------------------------------------------------------------------------------

namespace {

std::string md(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '\n': case '\r': out += ' '; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '`': out += '\''; break;
      default: out += c;
    }
  }
  return out;
}

constexpr size_t kMarkdownChanges = 30;  // rows of the changes table; the page has them all

}  // namespace

std::string history_markdown(const json& doc) {
  const Commits commits = read_commits(doc);
  const auto changes = ordered_changes(doc);
  const auto regressions = std::count_if(changes.begin(), changes.end(), [](const json* c) { return is_regression(*c); });
  const std::string battery = str(doc, "battery");
  std::unordered_map<std::string, std::string> label_of;
  for (const auto& c : list(doc, "configs")) label_of[str(c, "config")] = str(c, "label");
  std::string s = "## recallbench history" + (battery.empty() ? std::string() : ": " + md(battery)) + "\n\n";
  s += fmt::format("{} commits", commits.list.size());
  if (!commits.list.empty())
    s += fmt::format(" (`{}` {} … `{}` {})", md(commits.list.front().short_hash), md(commits.list.front().date.substr(0, 10)),
                     md(commits.list.back().short_hash), md(commits.list.back().date.substr(0, 10)));
  s += fmt::format(" · {} · {} · {} · **{}, {}**", count_of(list(doc, "configs").size(), "config"),
                   count_of(list(doc, "benchmarks").size(), "benchmark"), count_of(list(doc, "claims").size(), "claim"),
                   count_of(changes.size(), "change"), count_of(static_cast<size_t>(regressions), "regression"));
  if (std::isfinite(num(doc, "alpha"))) s += fmt::format(" at alpha {}", num(doc, "alpha"));
  if (!str(doc, "database").empty()) s += " · database `" + md(str(doc, "database")) + "`";
  s += "\n\n";
  if (!changes.empty()) {
    s += "### Changes\n\n| | metric | config | commit | before → after | effect | p (adjusted) |\n"
         "|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < changes.size() && i < kMarkdownChanges; ++i) {
      const json& c = *changes[i];
      const std::string key = str(c, "config"), metric = str(c, "metric");
      const auto label = label_of.find(key);
      std::string commit = "`" + md(commits.short_of(str(c, "commit"))) + "`";
      if (!str(c, "first_commit").empty() && !str(c, "last_commit").empty())
        commit += " (`" + md(commits.short_of(str(c, "first_commit"))) + "`..`" + md(commits.short_of(str(c, "last_commit"))) + "`)";
      const auto it = commits.position_of.find(str(c, "commit"));
      if (it != commits.position_of.end()) commit += " " + md(clip(commits.list[static_cast<size_t>(it->second)].subject, 60));
      s += fmt::format("| {} | {} {} | {} | {} | {} → {} | {} | {} |\n", is_regression(c) ? "**regression**" : "improvement",
                       md(metric), md(str(c, "kind")), md(label != label_of.end() && !label->second.empty() ? label->second : key),
                       commit, fmt_metric(metric, num(c, "before")), fmt_metric(metric, num(c, "after")),
                       md(str(c, "effect_label")), fmt_p(num(c, "p_adjusted")));
    }
    if (changes.size() > kMarkdownChanges)
      s += fmt::format("\n… and {} more in the HTML page.\n", changes.size() - kMarkdownChanges);
    s += "\n";
  }
  if (!list(doc, "configs").empty()) {
    s += "### Latest per config\n\n| config | commit | lock-in | median time | recall |\n|---|---|---|---|---|\n";
    for (const auto& c : list(doc, "configs")) {
      const auto pts = ordered_points(c, commits);
      const std::string label = str(c, "label").empty() ? str(c, "config") : str(c, "label");
      if (pts.empty()) {
        s += "| " + md(label) + " | – | – | – | – |\n";
        continue;
      }
      const json& p = *pts.back().second;
      const double m = num(p, "median_time"), budget = num(c, "budget");
      const std::string median = std::isfinite(m)                   ? fmt::format("{:.0f}", m)
                                 : !has_median(p)                   ? std::string("–")
                                 : budget > 0                       ? fmt::format("not reached (> {:.0f})", budget)
                                                                    : std::string("not reached");
      const double recall = num(p, "recall_median");
      s += fmt::format("| {} | `{}` | {}/{} | {} | {} |\n", md(label), md(commits.short_at(pts.back().first, str(p, "commit"))),
                       fmt_steps(num(p, "locked_in")), fmt_steps(num(p, "n")), median,
                       std::isfinite(recall) ? fmt::format("{:.3f}", recall) : "–");
    }
  }
  return s;
}

}  // namespace rb::reports
