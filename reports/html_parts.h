// Parts the report layer's HTML pages share (the report, the leaderboard page, the claims page, the history
// page): the colour a verdict is shown in, the verdict badge, the lock-in interval bar, the line chart, the
// Kaplan–Meier chart and the history's trend chart, each defined once here. Tables, sortable ones included, are
// the document model's (document.h). The page frame and escaping are report.h's html_page and
// html_escape; the stylesheet that styles these parts and the script that sorts the tables are files
// under reports/assets/ (report_assets.h).
//
//   row += "<tr class=\"" + std::string(tone_class(tone_of(verdict))) + "\">";
//   cell += badge(tone_of(verdict), judge::verdict_name(verdict)) + interval_bar(s.ci.low, s.ci.high, s.rate);
//   figure += line_chart("recall vs pairs", Axis{"pairs", 2, 32, true}, Axis{"recall", 0, 1}, series);
#pragma once

#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "stats/stats.h"

#include "reports/claims.h"
#include "reports/gate_text.h"

namespace rb::reports {

// How a verdict reads, whatever produced it: bad (a regression, a changed identity, a contradicted claim),
// open (inconclusive, undecided), good (an improvement, a reproduced claim), fine (no change), neutral (no
// baseline), plain (nothing to say: a claim not run or not informative).
enum class Tone { kBad, kOpen, kGood, kFine, kNeutral, kPlain };

// The stylesheet class of a tone: "v-reg", "v-inc", "v-imp", "v-ok", "v-none", "" (plain).
const char* tone_class(Tone tone);
// The gate's verdicts: regression and every changed identity (not compared, exit 2) bad, inconclusive open,
// improvement good, no change fine.
Tone tone_of(judge::Verdict verdict);
// A claim's verdicts: reproduced good, contradicted bad, undecided and "direction reproduced, size not"
// open, the others plain.
Tone tone_of(ClaimOutcome outcome);

// A small rounded label, <span class="badge v-reg">regression</span> (`text` is escaped; a plain tone gives
// class "badge" alone).
std::string badge(Tone tone, const std::string& text);

// The lock-in rate with its interval as a 60×8 bar (stylesheet class "cibar"): a grey track, the interval
// [low, high] in blue, the rate as a dark tick. All three in [0, 1].
std::string interval_bar(double low, double high, double rate);

// ---- line charts --------------------------------------------------------------------------------------------

// One line of a chart.
struct Series {
  std::string label;                              // legend and tooltip
  std::string color;                              // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y), sorted by x
  std::vector<std::pair<double, double>> ranges;  // per point (low, high) whiskers; empty for none
  double width = 2.0;                             // stroke width
  double opacity = 1.0;
  bool dashed = false;
};

// An axis: its label, range and scale.
struct Axis {
  std::string label;
  double lo = 0.0, hi = 1.0;
  bool log2 = false;  // powers of two (pairs, lengths)
};

// About `want` round ticks from lo to hi (steps of 1, 2, 2.5 or 5 times a power of ten): nice_ticks(0, 1) =
// {0, 0.25, 0.5, 0.75, 1}; {lo} when the range is empty.
std::vector<double> nice_ticks(double lo, double hi, int want = 4);

// A line chart in a 360×220 viewBox that scales to its container (class "chart"), with its legend below
// unless `legend` is false; `hline` draws a dashed reference line (the lock-in threshold). Points are drawn
// as dots when a series has at most 12.
std::string line_chart(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series,
                       double hline = NAN, bool legend = true);

// The Kaplan–Meier curve of the share of seeds not yet locked in, as a step series from (0, 1) to `budget`
// (seeds that never locked in are censored there): a chart of two of them is the report's time-to-lock-in
// figure.
Series km_series(const std::vector<stats::SurvivalObservation>& seeds, const std::string& label,
                 const std::string& color, bool dashed, double budget);

// ---- trend charts (the history page) --------------------------------------------------------------------------

// A chart along the commit axis of a history, oldest to newest, in a 360×200 viewBox (classes "chart trend"): the
// change points marked, the points linked to their commit's row (#commit-POS) with a hover title. Kept lean for
// long histories: per layer one <path>, per point one <circle>, no per-point text. Layers are drawn in the order
// markers, band, whiskers, lines, points.
struct TrendChart {
  // A change point. own: of this chart's metric (a dashed line at the commit, a shaded span for the range
  // first..last, labelled above the plot; else a faint unlabelled line, so a lock-in drop shows in the recall
  // chart too).
  struct Marker {
    int pos = 0, first = -1, last = -1;  // first/last: the range it happened in, -1 for none
    bool regression = false, own = true;
    std::string commit;   // the short hash of its commit (data-commit)
    std::string label;    // "abc1234 x1.62 slower"
    std::string summary;  // the full description (hover)
  };
  struct Point {
    int pos = 0;
    double y = 0;
    std::string commit;  // its commit's short hash (data-commit, the hover's first line)
    std::string tip;     // its commit's "short · date · subject" (the hover's second line)
    std::string values;  // the hover's third line
    bool hollow = false;  // a stand-in value (a median not reached, drawn at the budget)
  };
  struct Line {
    std::vector<std::pair<int, double>> points;  // (commit position, value)
    std::string color;
    bool dashed = false;
  };
  std::string aria, y_label;
  int n = 1;                          // commit positions on the axis
  double lo = 0, hi = 1;              // the y range
  std::vector<std::string> ticks;     // per position its short hash (tick labels); past its end, the number
  std::vector<Marker> markers;
  std::string band_color;             // a filled band between band_low and band_high (the q1–q3 range)
  std::vector<std::pair<int, double>> band_low, band_high;
  std::string whisker_color;          // per point a vertical interval (the lock-in rate's exact interval)
  std::vector<std::tuple<int, double, double>> whiskers;  // (position, low, high)
  std::vector<Line> lines;
  std::string point_color;
  std::vector<Point> points;
};

// The trend chart's <svg> element.
std::string trend_chart(const TrendChart& chart);

}  // namespace rb::reports
