// One registry per kind (cells, tasks, kernels, batteries): a name maps to a factory and metadata.
// A unit registers itself with one line in its own file:
//
//   RB_REGISTER(rb::TaskRegistry, mqar, TaskEntry{"mqar", "multi-query associative recall", &make_mqar});
//
// Self-registering files must be compiled into CMake OBJECT libraries: a static library lets the linker
// drop them silently. `recallbench list` and tests/core/registry_test.cpp guard against that.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.h"

namespace rb {

// Entry must have a `std::string name` member. Tag distinguishes registries with the same Entry type.
// While plugins load (suite/plugins.h), a name registered twice is collected here instead of aborting, so
// the loader can report it as bad input. Shared by every registry (one per process: the executable exports
// it to the plugins it loads).
struct RegistrationLog {
  bool collecting = false;
  std::vector<std::string> duplicates;
};
inline RegistrationLog& registration_log() {
  static RegistrationLog log;
  return log;
}

template <class Entry, class Tag = Entry>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  // Adds an entry; a duplicate name is a programming error and aborts at start-up.
  bool add(Entry entry) {
    if (find(entry.name) != nullptr && registration_log().collecting) {
      registration_log().duplicates.push_back(entry.name);
      return false;
    }
    RB_ASSERT(find(entry.name) == nullptr, "duplicate registration of '" + entry.name + "'");
    entries_.push_back(std::move(entry));
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    return true;
  }

  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  // Throws UsageError listing the valid names when `name` is unknown. `kind` is e.g. "cell".
  const Entry& get(std::string_view name, std::string_view kind) const {
    if (const Entry* e = find(name)) return *e;
    throw UsageError("unknown " + std::string(kind) + " '" + std::string(name) + "'",
                     "valid " + std::string(kind) + " names: " + joined_names());
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }

  std::string joined_names() const {
    std::string out;
    for (const auto& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
    return out;
  }

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace rb

#define RB_CONCAT_INNER(a, b) a##b
#define RB_CONCAT(a, b) RB_CONCAT_INNER(a, b)
// Registers `entry` in `registry` at static-initialisation time.
#define RB_REGISTER(registry, id, ...) \
  static const bool RB_CONCAT(rb_registered_, RB_CONCAT(id, __LINE__)) = registry::instance().add(__VA_ARGS__)
