#include "core/outcome.h"

#include <fmt/format.h>

namespace rb {

const char* run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kOk: return "ok";
    case RunStatus::kDiverged: return "diverged";
    case RunStatus::kError: return "error";
  }
  return "?";
}

bool parse_run_status(const std::string& name, RunStatus* status) {
  for (RunStatus s : {RunStatus::kOk, RunStatus::kDiverged, RunStatus::kError}) {
    if (name != run_status_name(s)) continue;
    *status = s;
    return true;
  }
  return false;
}

const char* learning_name(Learning learning) {
  switch (learning) {
    case Learning::kUnknown: return "unknown";
    case Learning::kLockedIn: return "locked-in";
    case Learning::kPlateaued: return "plateaued";
    case Learning::kBudgetLimited: return "budget-limited";
  }
  return "?";
}

bool parse_learning(const std::string& name, Learning* learning) {
  for (Learning l : {Learning::kUnknown, Learning::kLockedIn, Learning::kPlateaued, Learning::kBudgetLimited}) {
    if (name != learning_name(l)) continue;
    *learning = l;
    return true;
  }
  return false;
}

std::string Outcome::contradiction(int64_t budget, double threshold) const {
  const auto in_unit = [](double v) { return v >= 0.0 && v <= 1.0; };  // false for NaN
  if (!in_unit(final_accuracy))
    return fmt::format("final_accuracy {} is outside [0, 1]", final_accuracy);
  if (!in_unit(best_accuracy)) return fmt::format("best_accuracy {} is outside [0, 1]", best_accuracy);
  const std::string step = lock_in_step >= 0 ? std::to_string(lock_in_step) : "null";
  if (reached_threshold != (lock_in_step >= 0))
    return fmt::format("locked_in is {} but lock_in_step is {}: the two contradict each other", reached_threshold,
                       step);
  if (steps < 0) return fmt::format("steps {} is negative", steps);
  if (reached_threshold && steps > 0 && lock_in_step > steps)
    return fmt::format("lock_in_step {} after the {} steps taken", lock_in_step, steps);
  if (budget > 0 && steps > budget) return fmt::format("{} steps taken, beyond the step budget {}", steps, budget);
  if (budget > 0 && lock_in_step > budget)
    return fmt::format("lock_in_step {} is beyond the step budget {}", lock_in_step, budget);
  if (reached_threshold && threshold > 0 && best_accuracy < threshold - 1e-9)
    return fmt::format("locked_in is true but best_accuracy {} never reached the threshold {} (edited?)",
                       best_accuracy, threshold);
  return "";
}

LockInTime Outcome::time_to_lock_in(int64_t budget) const {
  if (locked_in() && lock_in_step >= 0) return {static_cast<double>(lock_in_step), true};
  return {static_cast<double>(budget), false};
}

}  // namespace rb
