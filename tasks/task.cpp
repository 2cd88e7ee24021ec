#include "tasks/task.h"

#include <string>

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

std::unique_ptr<Task> make_task(const std::string& name, const nlohmann::json& options) {
  return TaskRegistry::instance().get(name, "task").make(options);
}

}  // namespace rb
