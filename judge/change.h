// A change point of a series along the commits, as typed data: what `history changes`, the trend page and
// a pooled baseline decide with (method: docs/tracking.md; the detection: history/analysis.h). Whether a
// change is a regression is decided here, once, from its metric and its levels; renderers never guess it.
#pragma once

#include <cstdint>
#include <string>

namespace rb::judge {

// The series of a config (lock-in rate, time to lock-in, recall) or a benchmark (kernel time).
enum class Metric { kLockIn, kTime, kRecall, kSpeed };
const char* metric_name(Metric m);             // "lock-in", "time", "recall", "speed"
Metric parse_metric(const std::string& name);  // UsageError on anything else

// A step (a new level from one commit on) or a drift (a trend over a range of commits).
enum class ChangeKind { kStep, kDrift };
const char* change_kind_name(ChangeKind k);  // "step", "drift"

// How its p was found: by permuting whole commits (fresh seeds at every commit), or by pairing each seed's
// outcomes across epochs (commits rerunning the same seeds).
enum class Design { kCommits, kPairs };
const char* design_name(Design d);  // "commits", "pairs"

enum class ChangeDirection { kNone, kImprovement, kRegression };
const char* direction_name(ChangeDirection d);  // "none", "improvement", "regression"
// Lock-in and recall are better higher; time and kernel time better lower. kNone when a level is not finite
// or the levels are equal.
ChangeDirection direction_of(Metric m, double before, double after);
// The effect as the changes list states it: a difference (lock-in rate, recall) or a ratio (time, speed;
// NaN when `before` is not positive).
double effect_of(Metric m, double before, double after);
bool effect_is_ratio(Metric m);

struct Change {
  std::string series;  // config key or benchmark name
  std::string label;   // the config's label (for humans)
  Metric metric = Metric::kLockIn;
  ChangeKind kind = ChangeKind::kStep;
  Design design = Design::kCommits;
  std::string commit;                     // the first observed commit at the new level
  std::string first_commit, last_commit;  // a range: the change happened in first..last (gaps, or a drift)
  int64_t index = 0;                      // position of `commit` in the history's commit order
  double before = 0, after = 0;           // the levels (rate, restricted mean steps, median recall or time)
  double p = 1, p_adjusted = 1;

  double effect() const { return effect_of(metric, before, after); }
  ChangeDirection direction() const { return direction_of(metric, before, after); }
  bool regression() const { return direction() == ChangeDirection::kRegression; }
};

}  // namespace rb::judge
