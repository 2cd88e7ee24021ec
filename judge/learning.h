// Did a run that did not lock in stop learning, or did its budget end first? The diagnosis of one learning
// curve (held-out accuracy and training loss per evaluation), by one stated rule, and the plateau-stopping
// decision made by the same rule while a run trains (docs/budget.md has the rule, its false-call rate and
// its validation).
//
// The rule. A window is the evaluations of the last `window` fraction of the step budget ending at some step;
// its earlier and later halves are compared with one-sided Mann–Whitney tests: accuracy later greater, loss
// later smaller. A window *improves* when either test is significant at alpha / m (Bonferroni over the m tests
// made) and the medians moved by at least the stated minimum (accuracy +min_accuracy_gain, absolute; loss
// −min_loss_drop, relative). A run that did not lock in is
//   budget-limited (still improving)  when the window at its last evaluation improves;
//   budget-limited (schedule ended)   when the cosine schedule had decayed below live_lr of its peak by the end
//                                     and the window ending where it crossed live_lr improves: the learning
//                                     rate reached zero while the run was still improving;
//   plateaued                         otherwise (neither window improves);
//   unknown                           when the windows hold fewer than min_points evaluations a half, or the
//                                     run did not end ok.
// Under a flat curve with exchangeable noise the m exact tests are each at most alpha / m, so a plateaued
// run is called budget-limited with probability at most alpha (the false-call rate).
//
//   LearningSchedule s{1500, 0.05};
//   LearningDiagnosis d = diagnose_learning(seed.curve, s, seed.locked_in(), seed.ok());
//   if (d.label == Learning::kBudgetLimited) ... d.suggested_steps ...
#pragma once

#include <cstdint>
#include <vector>

#include "core/results.h"

namespace rb::judge {

// The rule's numbers (defaults: the rule above as documented).
struct LearningRule {
  double window = 1.0 / 3.0;        // window length, as a fraction of the step budget
  double alpha = 0.05;              // false-call rate: family-wise over the tests of one diagnosis
  double min_accuracy_gain = 0.02;  // later-half median accuracy above the earlier half's, absolute
  double min_loss_drop = 0.03;      // later-half median loss below the earlier half's, relative
  double live_lr = 0.25;            // the schedule "ended" once the rate falls below this fraction of its peak
  int64_t min_points = 4;           // evaluations each half needs
  // Plateau stopping: never before this fraction of the budget (a late, abrupt lock-in, as attention's
  // induction circuit, must have the room to happen).
  double stop_after = 0.5;
};

// The schedule of the run: the trainer's linear warmup then cosine decay to zero (suite/train/trainer.cpp).
struct LearningSchedule {
  int64_t steps = 0;     // step budget
  double warmup = 0.05;  // warmup fraction of the steps
  // The learning rate at `step` as a fraction of the peak.
  double lr_fraction(int64_t step) const;
  // The schedule of a config's recipe (train.steps, train.warmup).
  static LearningSchedule of(const Config& config);
};

enum class LearningReason {
  kLockedIn,        // not a failure
  kStillImproving,  // budget-limited: improving at the end
  kScheduleEnded,   // budget-limited: improving until the schedule decayed to nothing
  kFlat,            // plateaued
  kStopped,         // plateaued, and plateau stopping ended the run there
  kTooFewPoints,    // unknown: too few evaluations in a window
  kNotOk,           // unknown: diverged or failed
};
const char* learning_reason_name(LearningReason reason);  // "locked-in", "still-improving", ...

// One window's comparison: its steps, the two tests and the medians' moves.
struct WindowTest {
  bool tested = false;
  int64_t from_step = 0, to_step = 0;   // the window's first and last evaluation
  int64_t points = 0;                   // evaluations in each half
  double accuracy_gain = 0.0;           // later-half median − earlier-half median
  double accuracy_p = 1.0;              // one-sided Mann–Whitney, later greater
  double loss_drop = 0.0;               // (earlier − later) / earlier, of the medians
  double loss_p = 1.0;                  // one-sided Mann–Whitney, later smaller
  bool improving = false;
};

struct LearningDiagnosis {
  Learning label = Learning::kUnknown;
  LearningReason reason = LearningReason::kTooFewPoints;
  WindowTest end;            // the window at the last evaluation
  WindowTest live;           // the window where the schedule's rate crossed live_lr (cosine decayed by the end)
  int64_t tests = 0;         // m: the tests made (Bonferroni's divisor)
  double threshold_p = 0.0;  // alpha / m
  int64_t suggested_steps = 0;  // budget-limited: the budget a pilot should try next (twice this one)
};

// The diagnosis of one curve. `stopped` says that plateau stopping ended the run (its last evaluation
// before the budget).
LearningDiagnosis diagnose_learning(const std::vector<CurvePoint>& curve, const LearningSchedule& schedule,
                                    bool locked_in, bool ok, bool stopped = false,
                                    const LearningRule& rule = LearningRule{});
// A seed of a config: its stored label when it has no curve (a baseline), else diagnosed from the curve.
LearningDiagnosis diagnose_seed(const SeedOutcome& seed, const LearningSchedule& schedule,
                                const LearningRule& rule = LearningRule{});

// Plateau stopping, by the same rule: true when a run whose curve so far is `curve` (not locked in) should
// stop now, at its last evaluation: past stop_after of the budget, its window at this step holds enough
// evaluations, and it does not improve, neither significantly nor by the stated minimum in its medians (a
// stricter condition than "not significant", so that low power alone never stops a run).
bool plateau_should_stop(const std::vector<CurvePoint>& curve, const LearningSchedule& schedule,
                         const LearningRule& rule = LearningRule{});

// Where plateau stopping would have ended a run, from its full curve (training is deterministic, so the curve a
// stopped run would have seen is the full curve's prefix): the step of the first evaluation at which
// plateau_should_stop holds, or -1 when it never does (or the run locked in first).
int64_t plateau_stop_step(const std::vector<CurvePoint>& curve, const LearningSchedule& schedule, int64_t lock_in_step,
                          const LearningRule& rule = LearningRule{});

// The config level: its seeds that did not lock in, by label.
struct ConfigLearning {
  int64_t not_locked_in = 0;   // seeds that ended ok without locking in
  int64_t budget_limited = 0;
  int64_t plateaued = 0;
  int64_t unknown = 0;
  int64_t too_few_points = 0;  // of the unknown: evaluated too sparsely for the rule (its curve, or the recipe's
                               // eval_every where it was stored without one)
  int64_t stopped = 0;         // plateaued seeds that plateau stopping ended
  int64_t suggested_steps = 0; // the budget a pilot should try (twice the recipe's), when budget-limited
  // Most of the seeds that did not lock in were still learning when the budget ended: more than half of
  // those diagnosed.
  bool budget_limited_config() const { return budget_limited > 0 && 2 * budget_limited > budget_limited + plateaued; }
};
ConfigLearning config_learning(const Config& config, const LearningRule& rule = LearningRule{});

// What plateau stopping would have done on a config's seeds with curves that ran without it (plateau_stop_step):
// the steps they ran, the steps it would have saved, and the seeds it would have stopped that locked in later
// (false stops: each one a lock-in lost). Apart from config_learning because it costs an exact test per
// evaluation per seed: computed once, where a config's JSON is written (reports/results.cpp config_to_json).
struct StoppingSimulation {
  int64_t seeds = 0, steps = 0, saved_steps = 0, false_stops = 0;
};
StoppingSimulation simulate_plateau_stopping(const Config& config, const LearningRule& rule = LearningRule{});

}  // namespace rb::judge
