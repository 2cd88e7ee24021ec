// The outcome of one run, the one type every reader and judge of results uses: the trainer's document
// (core/run_document.h RunResult), the results store and its configs (core/results.h SeedOutcome), the
// history's rows and every judgement. "Locked in" is decided here and nowhere else (Outcome::locked_in);
// a seed that never locked in is a time censored at the step budget (Outcome::time_to_lock_in).
#pragma once

#include <cstdint>
#include <string>

namespace rb {

// How a run ended. Anything but kOk counts as not locked in, whatever the run recorded.
enum class RunStatus { kOk, kDiverged, kError };
// "ok", "diverged", "error": the names in documents.
const char* run_status_name(RunStatus status);
// Parses a status name; false for anything else (the caller names the field in its message).
bool parse_run_status(const std::string& name, RunStatus* status);

// How a run's learning ended (judge/learning.h decides it from the learning curve): locked in; plateaued (it
// had stopped improving); budget-limited (still improving when the budget or the schedule ended); unknown
// (too few evaluations to tell, a failed run, or a stored outcome that never had a diagnosis).
enum class Learning { kUnknown, kLockedIn, kPlateaued, kBudgetLimited };
// "unknown", "locked-in", "plateaued", "budget-limited": the names in documents.
const char* learning_name(Learning learning);
// Parses a learning name; false for anything else.
bool parse_learning(const std::string& name, Learning* learning);

// A time to lock-in: an event at `time`, or censored there (the budget) when the run never locked in.
struct LockInTime {
  double time = 0.0;
  bool event = false;
};

struct Outcome {
  RunStatus status = RunStatus::kOk;
  std::string message;             // why, when status is not kOk
  bool reached_threshold = false;  // as recorded: held-out accuracy reached the recipe's threshold
  double final_accuracy = 0.0;     // held-out accuracy at the last evaluation (the run's "recall"), [0, 1]
  double best_accuracy = 0.0;      // best held-out accuracy seen, [0, 1]
  int64_t lock_in_step = -1;       // step at which it reached the threshold; -1 when it did not
  int64_t steps = 0;               // optimiser steps taken
  double wall_seconds = 0.0;       // training time
  double steps_per_second = 0.0;   // training throughput
  std::string train_fingerprint;   // hash of the run's first training batches ("" in older documents)

  // The one rule of every tally: the threshold was reached and the run ended ok.
  bool locked_in() const { return reached_threshold && status == RunStatus::kOk; }
  bool ok() const { return status == RunStatus::kOk; }
  // An event at lock_in_step when locked in, else censored at `budget`.
  LockInTime time_to_lock_in(int64_t budget) const;

  // The one rule of a valid outcome, applied by every reader of outcomes (run files, baselines, leaderboard rows,
  // history imports): "" when it can be a run's, else why not. Accuracies in [0, 1]; the threshold flag and
  // the lock-in step agree; no lock-in after the steps taken (`steps` 0: not recorded) or beyond the recipe's
  // step `budget` (0: unknown); a lock-in whose best accuracy never reached the recipe's `threshold` (0:
  // unknown) was edited.
  std::string contradiction(int64_t budget, double threshold) const;
};

}  // namespace rb
