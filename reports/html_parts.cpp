// The shared HTML parts (see html_parts.h).
#include "reports/html_parts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "reports/report.h"

namespace rb::reports {

const char* tone_class(Tone tone) {
  switch (tone) {
    case Tone::kBad: return "v-reg";
    case Tone::kOpen: return "v-inc";
    case Tone::kGood: return "v-imp";
    case Tone::kFine: return "v-ok";
    case Tone::kNeutral: return "v-none";
    case Tone::kPlain: return "";
  }
  return "";
}

Tone tone_of(judge::Verdict verdict) {
  switch (verdict) {
    case judge::Verdict::kNoChange: return Tone::kFine;
    case judge::Verdict::kImprovement: return Tone::kGood;
    case judge::Verdict::kBelowMinimumEffect: return Tone::kOpen;
    case judge::Verdict::kInconclusive: return Tone::kOpen;
    case judge::Verdict::kRegression:
    case judge::Verdict::kDataStreamChanged:
    case judge::Verdict::kTaskChanged:
    case judge::Verdict::kModelChanged:
    case judge::Verdict::kSeedsNotIndependent: return Tone::kBad;
  }
  return Tone::kNeutral;
}

Tone tone_of(ClaimOutcome outcome) {
  switch (outcome) {
    case ClaimOutcome::kReproduced: return Tone::kGood;
    case ClaimOutcome::kContradicted: return Tone::kBad;
    case ClaimOutcome::kUndecided:
    case ClaimOutcome::kReproducedOnProxy:
    case ClaimOutcome::kReproducedOnSubset:
    case ClaimOutcome::kDirectionOnly: return Tone::kOpen;
    case ClaimOutcome::kNotRun:
    case ClaimOutcome::kNotInformative:
    case ClaimOutcome::kObserved:
    case ClaimOutcome::kSizeNotReproduced: return Tone::kPlain;
  }
  return Tone::kPlain;
}

std::string badge(Tone tone, const std::string& text) {
  const std::string cls = tone_class(tone);
  return fmt::format("<span class=\"badge{}\">{}</span>", cls.empty() ? "" : " " + cls, html_escape(text));
}

std::string interval_bar(double low, double high, double rate) {
  return fmt::format("<svg class=\"cibar\" viewBox=\"0 0 60 8\" aria-hidden=\"true\"><rect x=\"0\" y=\"3\" width=\"60\" "
                     "height=\"2\" fill=\"#ddd\"/><rect x=\"{:.1f}\" y=\"1\" width=\"{:.1f}\" height=\"6\" "
                     "fill=\"#8ab\"/><rect x=\"{:.1f}\" y=\"0\" width=\"2\" height=\"8\" fill=\"#234\"/></svg>",
                     60 * low, std::max(60 * (high - low), 1.0), std::clamp(60 * rate - 1, 0.0, 58.0));
}

std::vector<double> nice_ticks(double lo, double hi, int want) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / want;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) t.push_back(v);
  return t;
}

namespace {

// The ticks of an axis: powers of two on a log2 axis, else nice_ticks.
std::vector<double> axis_ticks(const Axis& a) {
  if (!a.log2) return nice_ticks(a.lo, a.hi);
  std::vector<double> t;
  for (double v = std::pow(2.0, std::floor(std::log2(a.lo))); v <= a.hi * 1.0001; v *= 2)
    if (v >= a.lo * 0.9999) t.push_back(v);
  return t;
}

std::string tick_label(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) >= 1) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

}  // namespace

namespace {

// A chart's legend: one swatch per distinct series label, in order.
std::string chart_legend(const std::vector<Series>& series) {
  std::string items;
  std::set<std::string> seen;
  for (const auto& se : series) {
    if (!seen.insert(se.label).second) continue;
    items += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", se.color, html_escape(se.label));
  }
  return "<div class=\"legend\">" + items + "</div>";
}

}  // namespace

std::string line_chart(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series,
                       double hline, bool legend) {
  const double W = 360, H = 220, L = 42, R = 10, T = 10, B = 38;
  const double pw = W - L - R, ph = H - T - B;
  const auto sx = [&](double v) {
    if (x.log2) {
      const double a = std::log2(x.lo), b = std::log2(x.hi);
      return L + (b > a ? (std::log2(v) - a) / (b - a) : 0.5) * pw;
    }
    return L + (x.hi > x.lo ? (v - x.lo) / (x.hi - x.lo) : 0.5) * pw;
  };
  const auto sy = [&](double v) { return T + ph - (y.hi > y.lo ? (v - y.lo) / (y.hi - y.lo) : 0.5) * ph; };
  std::string s = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">"
      "<title>{}</title>",
      W, H, html_escape(title), html_escape(title));
  for (double t : axis_ticks(y)) {
    s += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>", L, L + pw, sy(t), sy(t));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tl\" text-anchor=\"end\">{}</text>", L - 4, sy(t) + 3,
                     tick_label(t));
  }
  for (double t : axis_ticks(x)) {
    s += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"tick\"/>", sx(t), sx(t),
                     T + ph, T + ph + 4);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tl\" text-anchor=\"middle\">{}</text>", sx(t), T + ph + 15,
                     tick_label(t));
  }
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"axis\"/>", L, L + pw, T + ph, T + ph);
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" class=\"axis\"/>", L, L, T, T + ph);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"al\" text-anchor=\"middle\">{}</text>", L + pw / 2, H - 4,
                   html_escape(x.label));
  s += fmt::format("<text transform=\"translate(11 {:.1f}) rotate(-90)\" class=\"al\" text-anchor=\"middle\">{}</text>",
                   T + ph / 2, html_escape(y.label));
  if (std::isfinite(hline))
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"ref\"/>", L, L + pw, sy(hline), sy(hline));
  for (const auto& se : series) {
    if (se.points.empty()) continue;
    std::string pts;
    for (const auto& [px, py] : se.points) pts += fmt::format("{:.1f},{:.1f} ", sx(px), sy(py));
    s += fmt::format("<g><title>{}</title>", html_escape(se.label));
    for (size_t i = 0; i < se.ranges.size() && i < se.points.size(); ++i)
      s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
                       "stroke-width=\"1\" opacity=\"0.6\"/>",
                       sx(se.points[i].first), sy(se.ranges[i].first), sy(se.ranges[i].second), se.color);
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" opacity=\"{}\"{}/>", pts,
                     se.color, se.width, se.opacity, se.dashed ? " stroke-dasharray=\"4 3\"" : "");
    if (se.points.size() <= 12)
      for (const auto& [px, py] : se.points)
        s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.6\" fill=\"{}\"/>", sx(px), sy(py), se.color);
    s += "</g>";
  }
  s += "</svg>";
  if (legend) s += chart_legend(series);
  return s;
}


Series km_series(const std::vector<stats::SurvivalObservation>& seeds, const std::string& label,
                 const std::string& color, bool dashed, double budget) {
  Series se;
  se.label = label;
  se.color = color;
  se.dashed = dashed;
  double survival = 1.0;
  se.points.push_back({0.0, 1.0});
  for (const auto& step : stats::kaplan_meier(seeds)) {
    se.points.push_back({step.time, survival});
    survival = step.survival;
    se.points.push_back({step.time, survival});
  }
  se.points.push_back({budget, se.points.back().second});
  return se;
}

}  // namespace rb::reports
