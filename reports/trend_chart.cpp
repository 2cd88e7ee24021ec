// The history's trend chart (html_parts.h: TrendChart): one chart along the commit axis, inline SVG, lean for
// long histories (per layer one <path>, per point one <circle> with its <title>, no per-point text).
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "reports/html_parts.h"
#include "reports/report.h"

namespace rb::reports {
namespace {

std::string esc(const std::string& s) { return html_escape(s); }

// The plot in a 360×200 viewBox leaves room above for change labels.
constexpr double kW = 360, kH = 200, kL = 40, kR = 8, kT = 26, kB = 30;
constexpr double kPw = kW - kL - kR, kPh = kH - kT - kB;
constexpr double kInset = 4;  // keeps the first and last commit off the axes

struct Frame {
  int n = 1;  // commit positions on the axis
  double lo = 0, hi = 1;
  double x(int pos) const { return n > 1 ? kL + kInset + (kPw - 2 * kInset) * pos / (n - 1) : kL + kPw / 2; }
  double y(double v) const {
    const double t = hi > lo ? (std::clamp(v, lo, hi) - lo) / (hi - lo) : 0.5;
    return kT + kPh - t * kPh;
  }
  // The point radius: smaller as commits crowd the axis.
  double r() const { return std::clamp(0.35 * (kPw - 2 * kInset) / std::max(n - 1, 1), 1.2, 3.0); }
};

// 1500 → "1.5k", 3 → "3", 0.25 → "0.25".
std::string tick_label(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:g}k", v / 1000);
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

// A commit's short hash, its position's number past the known commits.
std::string commit_label(const TrendChart& c, int pos) {
  return pos >= 0 && pos < static_cast<int>(c.ticks.size()) ? c.ticks[static_cast<size_t>(pos)] : std::to_string(pos);
}

std::string open_chart(const Frame& f, const TrendChart& c) {
  std::string s = fmt::format(
      "<svg class=\"chart trend\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">",
      kW, kH, esc(c.aria));
  auto out = std::back_inserter(s);
  for (double t : nice_ticks(f.lo, f.hi)) {
    fmt::format_to(out, "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", kL, kL + kPw, f.y(t), f.y(t));
    fmt::format_to(out, "<text x=\"{}\" y=\"{:.1f}\" class=\"tl\" text-anchor=\"end\">{}</text>", kL - 4, f.y(t) + 3,
                   tick_label(t));
  }
  for (double t : nice_ticks(0, std::max(f.n - 1, 0), 3)) {
    if (t != std::round(t)) continue;  // positions are whole commits
    const int pos = static_cast<int>(t);
    const double x = f.x(pos);
    const char* anchor = x < kL + 20 ? "start" : x > kL + kPw - 20 ? "end" : "middle";
    fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" class=\"tick\"/>", x, kT + kPh, kT + kPh + 4);
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{}\" class=\"tl\" text-anchor=\"{}\">{}</text>", x, kT + kPh + 13, anchor,
                   esc(commit_label(c, pos)));
  }
  fmt::format_to(out, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"axis\"/>", kL, kL + kPw, kT + kPh);
  fmt::format_to(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"axis\"/>", kL, kT, kT + kPh);
  fmt::format_to(out, "<text x=\"{}\" y=\"{}\" class=\"al\" text-anchor=\"middle\">commit (oldest → newest)</text>",
                 kL + kPw / 2, kH - 4);
  fmt::format_to(out, "<text transform=\"translate(11 {}) rotate(-90)\" class=\"al\" text-anchor=\"middle\">{}</text>",
                 kT + kPh / 2, esc(c.y_label));
  return s;
}

void draw_markers(std::string& s, const Frame& f, const TrendChart& c) {
  auto out = std::back_inserter(s);
  int drawn = 0;
  for (const auto& m : c.markers) {
    if (m.pos < 0 || m.pos >= f.n) continue;
    const char* color = m.regression ? "#d62728" : "#1a9850";
    if (!m.own) {
      fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" class=\"cpo\"><title>{4}"
                          "</title></line>",
                     f.x(m.pos), kT, kT + kPh, color, esc(m.summary));
      continue;
    }
    fmt::format_to(out, "<g class=\"cp\" data-commit=\"{}\"><title>{}</title>", esc(m.commit), esc(m.summary));
    if (m.first >= 0 && m.last >= m.first && m.last < f.n) {
      const double x0 = f.x(m.first) - (m.first == m.last ? 2 : 0), x1 = f.x(m.last) + (m.first == m.last ? 2 : 0);
      fmt::format_to(out, "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" class=\"span\"/>", x0, kT,
                     std::max(x1 - x0, 1.0), kPh, color);
    }
    const double x = f.x(m.pos);
    fmt::format_to(out, "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\" class=\"cpl\"/>", x, kT - 4,
                   kT + kPh, color);
    const bool right = x > kL + kPw * 0.55;
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{}\" fill=\"{}\" class=\"cpt\" text-anchor=\"{}\">{}</text></g>",
                   right ? x - 3 : x + 3, 9 + 10 * (drawn % 2), color, right ? "end" : "start", esc(m.label));
    ++drawn;
  }
}

// A polyline through (position, value) points as one path ("M x y L x y ...").
std::string path_of(const Frame& f, const std::vector<std::pair<int, double>>& pts) {
  std::string d;
  for (size_t i = 0; i < pts.size(); ++i)
    fmt::format_to(std::back_inserter(d), "{}{:.1f} {:.1f}", i ? "L" : "M", f.x(pts[i].first), f.y(pts[i].second));
  return d;
}

void draw_layers(std::string& s, const Frame& f, const TrendChart& c) {
  if (!c.band_high.empty()) {
    std::string d = path_of(f, c.band_high);
    for (auto it = c.band_low.rbegin(); it != c.band_low.rend(); ++it)
      fmt::format_to(std::back_inserter(d), "L{:.1f} {:.1f}", f.x(it->first), f.y(it->second));
    s += fmt::format("<path d=\"{}Z\" fill=\"{}\" class=\"band\"/>", d, c.band_color);
  }
  std::string bars;
  for (const auto& [pos, low, high] : c.whiskers)
    fmt::format_to(std::back_inserter(bars), "M{:.1f} {:.1f}V{:.1f}", f.x(pos), f.y(high), f.y(low));
  if (!bars.empty()) s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ci\"/>", bars, c.whisker_color);
  for (const auto& line : c.lines)
    if (!line.points.empty())
      s += fmt::format("<path d=\"{}\" stroke=\"{}\" class=\"ln{}\"/>", path_of(f, line.points), line.color,
                       line.dashed ? " dash" : "");
}

// Each point a circle that links to its commit's row and tells commit, date, subject and its values on hover;
// its colour from the enclosing group.
void draw_points(std::string& s, const Frame& f, const TrendChart& c) {
  s += fmt::format("<g class=\"pts\" fill=\"{0}\" stroke=\"{0}\">", c.point_color);
  for (const auto& p : c.points)
    fmt::format_to(std::back_inserter(s),
                   "<a href=\"#commit-{}\"><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\"{} data-commit=\"{}\">"
                   "<title>{}\n{}</title></circle></a>",
                   p.pos, f.x(p.pos), f.y(p.y), f.r(), p.hollow ? " class=\"nr\"" : "", esc(p.commit), esc(p.tip),
                   esc(p.values));
  s += "</g>";
}

}  // namespace

std::string trend_chart(const TrendChart& chart) {
  const Frame f{chart.n, chart.lo, chart.hi};
  std::string s = open_chart(f, chart);
  draw_markers(s, f, chart);
  draw_layers(s, f, chart);
  draw_points(s, f, chart);
  return s + "</svg>";
}

}  // namespace rb::reports
