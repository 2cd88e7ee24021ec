#include "core/outcome.h"

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

LockInTime Outcome::time_to_lock_in(int64_t budget) const {
  if (locked_in() && lock_in_step >= 0) return {static_cast<double>(lock_in_step), true};
  return {static_cast<double>(budget), false};
}

}  // namespace rb
