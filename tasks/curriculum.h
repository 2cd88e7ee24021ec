// Curricula: what the training data looks like at each step. A curriculum turns the training step (and,
// for `gated`, measured training accuracy) into a Difficulty for the task generator (tasks/task.h), in
// discrete stages; the last stage is always the task as configured. Torch-free and deterministic: the
// same steps and the same observed accuracies give the same stages.
//
//   auto c = make_curriculum("distance", {{"stages", 4}}, {2000, task->max_distance(), task->length()});
//   for (step = 1 ..) { batch = task->generate(B, seed_i, c->difficulty(step)); ...;
//                       c->observe(step, train_accuracy); }
//   c->history()   // [{step, stage, max_distance, length}, ...] at every stage change
//
// Registered curricula (their options, with defaults, are in `recallbench list`-style entries below):
//   none      stage 0 throughout, the configured task.
//   distance  the uniform distance curriculum: the query-key distance cap grows in `stages` equal steps
//             of distance, at equal intervals of training, from `start` to the task's full distance
//             (reached at fraction `until` of the steps; full task from then on). Defaults: start 16,
//             stages 4, until 0.5: caps 16, 16+(F-16)/4, ... for the first half, then the task.
//   ramp      a shaped schedule over `over` = distance|length: the cap follows
//             start + (full - start)·shape(u), u = step / (until·steps), quantised to `stages` levels;
//             shapes: linear (u), cosine ((1-cos πu)/2), sqrt (√u), square (u²), geometric
//             (start·(full/start)^u). Defaults: start 16, stages 32, until 0.8, over distance, linear.
//   gated     evenly spaced levels (as distance, over distance or length); it advances one stage only
//             when the mean training accuracy
//             over the last `window` steps at the current stage reaches `threshold` and at least
//             `min_stage_steps` steps were spent there, or when `max_stage_steps` steps were spent there
//             (the maximum: a stage never holds training forever; 0 = 2·steps/stages). Defaults: start 16,
//             stages 8, over distance, threshold 0.9, window 20, min_stage_steps 20, max_stage_steps 0.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/registry.h"
#include "tasks/task.h"

namespace rb {

// What a curriculum needs to know about the run.
struct CurriculumContext {
  int64_t steps = 1;         // the run's maximum optimiser steps
  int64_t max_distance = 1;  // the task's full distance (Task::max_distance())
  int64_t length = 1;        // the task's configured length (Task::length())
};

// One stage change: from `step` on, the curriculum is at `stage` with this difficulty.
struct StageRecord {
  int64_t step = 0;
  int64_t stage = 0;
  Difficulty difficulty;
};

class Curriculum {
 public:
  virtual ~Curriculum() = default;
  // The difficulty for training step `step` (1-based, non-decreasing across calls).
  virtual Difficulty difficulty(int64_t step) = 0;
  // Reports the training accuracy measured on step `step`'s batch (after difficulty(step)).
  virtual void observe(int64_t step, double train_accuracy) {}
  // The current stage (0 .. stages()); stages() is the final stage, the task as configured.
  virtual int64_t stage() const = 0;
  virtual int64_t stages() const = 0;
  // The options after defaults were filled in (recorded in the run spec).
  virtual const nlohmann::json& options() const = 0;
  // Every stage change so far, starting with the stage at step 1.
  const std::vector<StageRecord>& history() const { return history_; }

 protected:
  // Appends to history() when (stage, difficulty) differs from the last record.
  void record(int64_t step, int64_t stage, const Difficulty& d);

 private:
  std::vector<StageRecord> history_;
};

struct CurriculumEntry {
  std::string name;
  std::string description;
  nlohmann::json defaults;  // every option with its default value
  std::function<std::unique_ptr<Curriculum>(const nlohmann::json& options, const CurriculumContext& ctx)> make;
};

using CurriculumRegistry = Registry<CurriculumEntry>;

// Builds a curriculum by name; unknown names or options, or out-of-range values, are UsageErrors.
std::unique_ptr<Curriculum> make_curriculum(const std::string& name, const nlohmann::json& options,
                                            const CurriculumContext& ctx);

// The difficulty as JSON: {"max_distance": D or null, "length": L or null}.
nlohmann::json difficulty_json(const Difficulty& d);

}  // namespace rb
