#include "suite/train/resolve.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

#include "core/errors.h"
#include "core/knobs.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

std::atomic<bool> g_costing_only{false};

// A task's warnings (Task::warnings), printed to stderr once per task configuration in this process.
void warn_once(const std::string& name, const Task& task) {
  static std::mutex mutex;
  static std::set<std::string> said;
  if (g_costing_only) return;
  for (const std::string& w : task.warnings()) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (said.insert(name + task.options().dump() + w).second)
      std::fprintf(stderr, "warning: task %s %s: %s\n", name.c_str(), task.options().dump().c_str(), w.c_str());
  }
}

}  // namespace

void require_direction(const RunSpec& spec, const nlohmann::json& knobs) {
  if (reads_whole_sequence(knobs) && !spec.model.bidirectional)
    throw UsageError("cell " + spec.cell.name + " reads the whole sequence (a bidirectional denoiser), and this model "
                         "is causal: a causal battery cannot run it",
                     "only a battery whose model sets \"bidirectional\": true runs it (e.g. the preset claims-denoiser)");
}

void set_costing_only(bool on) { g_costing_only = on; }
bool costing_only() { return g_costing_only; }

std::unique_ptr<Task> task_at_length(const RunSpec& spec, int64_t length) {
  RB_CHECK_INPUT(spec.task.options.contains("length"),
                 "train: eval_lengths needs a task with a 'length' option; task " + spec.task.name + " has none");
  auto options = spec.task.options;
  options["length"] = length;
  return make_task(spec.task.name, options);
}

CurriculumContext curriculum_context(const RunSpec& spec, const Task& task) {
  return {spec.train.steps, task.max_distance(), task.length()};
}

RunSpec resolve_task_and_recipe(RunSpec spec, std::unique_ptr<Task>& task) {
  check_plausible(spec, "run " + spec.cell.name + " on " + spec.task.name);
  task = make_task(spec.task.name, spec.task.options);
  spec.task.options = task->options();
  warn_once(spec.task.name, *task);
  const auto& t = spec.train;  // its numbers were checked against train_numbers() by check_plausible
  RB_CHECK_INPUT(t.impl != "cuda", "train: impl 'cuda' is forward only (the CUDA kernels have no backward); train "
                                   "with auto|ref|chunked|fused");
  RB_CHECK_INPUT(spec.train.curriculum_options.is_object(),
                 "train: curriculum_options must be a JSON object, got " + spec.train.curriculum_options.dump());
  try {
    spec.train.curriculum_options =
        make_curriculum(t.curriculum, t.curriculum_options, curriculum_context(spec, *task))->options();
  } catch (const UsageError& e) {
    throw UsageError(std::string("train: ") + e.what(), e.hint().empty()
                                                            ? "valid curricula: " + CurriculumRegistry::instance().joined_names()
                                                            : e.hint());
  }
  for (int64_t length : t.eval_lengths) {
    RB_CHECK_INPUT(length >= 1, "train: eval_lengths must be ≥ 1, got " + std::to_string(length));
    task_at_length(spec, length);  // builds it: impossible lengths fail here, before any training
  }
  return spec;
}

}  // namespace rb
