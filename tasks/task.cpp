#include "tasks/task.h"

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/options.h"
#include "core/rng.h"

namespace rb {

std::string Task::render(const Batch& batch, int64_t row) const {
  std::string out;
  for (int64_t t = 0; t < batch.length; ++t) {
    const int64_t label = batch.label(row, t);
    out += (t ? " " : "") + std::to_string(batch.at(row, t));
    if (label != kIgnore) out += "[->" + std::to_string(label) + "]";
  }
  return out;
}

Batch training_batch(const Task& task, int64_t n, int64_t seed, int64_t step, const Difficulty& difficulty) {
  return task.generate(n, derive_seed(static_cast<uint64_t>(seed), "train", static_cast<uint64_t>(step)), difficulty);
}

Batch held_out_set(const Task& task, int64_t examples) {
  return task.generate(examples, derive_seed(hash_string(task.options().dump()), "eval"));
}

void DataFingerprint::add(const Batch& batch) {
  // Word-wise multiply-xor with a SplitMix finaliser per batch: order- and position-sensitive, and the
  // shape is part of the hash, so {2, 8} and {4, 4} of the same tokens differ.
  const auto absorb = [this](uint64_t w) { h_ = (h_ ^ w) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull; };
  absorb(static_cast<uint64_t>(batch.n));
  absorb(static_cast<uint64_t>(batch.length));
  for (int64_t v : batch.inputs) absorb(static_cast<uint64_t>(v));
  for (int64_t v : batch.labels) absorb(static_cast<uint64_t>(v));
  h_ = mix64(h_);
  ++batches_;
}

std::string DataFingerprint::hex() const {
  if (batches_ == 0) return "";
  char buf[17];
  std::snprintf(buf, sizeof buf, "%012llx", static_cast<unsigned long long>(h_ & 0xFFFFFFFFFFFFull));
  return buf;
}

void check_task_sizes(const nlohmann::json& options, const std::string& where) {
  for (const auto& [name, lo, hi] : kTaskSizeBounds) {
    if (!options.contains(name) || !options.at(name).is_number()) continue;
    const double v = options.at(name).get<double>();
    if (!(v >= lo && v <= hi))
      throw UsageError(fmt::format("{}: task option {} = {} is outside the plausible range [{}, {}]", where, name,
                                   options.at(name).dump(), lo, hi),
                       "recallbench list tasks shows each task's options and defaults");
  }
}

std::unique_ptr<Task> make_task(const std::string& name, const nlohmann::json& options) {
  const TaskEntry& entry = TaskRegistry::instance().get(name, "task");
  // Checked on the options as the task will read them, before it is built: a constructor may size tables by them.
  check_task_sizes(OptionReader("task " + name, options, entry.defaults).resolved(), "task " + name);
  return entry.make(options);
}

std::optional<double> task_chance(const std::string& name, const nlohmann::json& options) {
  if (!TaskRegistry::instance().find(name)) return std::nullopt;
  try {
    return make_task(name, options)->chance();
  } catch (const std::exception&) {
    return std::nullopt;  // options the task refuses: no level to test against
  }
}

}  // namespace rb
