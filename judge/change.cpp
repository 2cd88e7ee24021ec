#include "judge/change.h"

#include <cmath>
#include <limits>

#include "core/errors.h"

namespace rb::judge {

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::kLockIn: return "lock-in";
    case Metric::kTime: return "time";
    case Metric::kRecall: return "recall";
    case Metric::kSpeed: return "speed";
  }
  return "?";
}

Metric parse_metric(const std::string& name) {
  for (Metric m : {Metric::kLockIn, Metric::kTime, Metric::kRecall, Metric::kSpeed})
    if (name == metric_name(m)) return m;
  throw UsageError("unknown metric '" + name + "'", "valid metrics: lock-in, time, recall, speed");
}

const char* change_kind_name(ChangeKind k) { return k == ChangeKind::kStep ? "step" : "drift"; }

const char* design_name(Design d) { return d == Design::kCommits ? "commits" : "pairs"; }

const char* direction_name(ChangeDirection d) {
  switch (d) {
    case ChangeDirection::kNone: return "none";
    case ChangeDirection::kImprovement: return "improvement";
    case ChangeDirection::kRegression: return "regression";
  }
  return "?";
}

bool effect_is_ratio(Metric m) { return m == Metric::kTime || m == Metric::kSpeed; }

ChangeDirection direction_of(Metric m, double before, double after) {
  if (!std::isfinite(before) || !std::isfinite(after) || before == after) return ChangeDirection::kNone;
  const bool up = after > before;
  return up == effect_is_ratio(m) ? ChangeDirection::kRegression : ChangeDirection::kImprovement;
}

double effect_of(Metric m, double before, double after) {
  if (!effect_is_ratio(m)) return after - before;
  return before > 0 ? after / before : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace rb::judge
