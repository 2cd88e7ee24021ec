// Synthetic tasks: the interface every task implements, and the task registry.
//
// Tasks are torch-free: a task generates integer token sequences and labels; the trainer turns them
// into tensors. Generation is deterministic: the same options and seed give the same batch, on any
// machine (core/rng.h).
//
// Labels follow the next-token convention of Zoology: label[t] is what the model must emit after
// reading inputs[0..t]; kIgnore marks positions that carry no loss and no accuracy.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/registry.h"

namespace rb {

inline constexpr int64_t kIgnore = -100;

// A batch of `n` sequences of `length` tokens, row-major {n, length}.
struct Batch {
  int64_t n = 0;
  int64_t length = 0;
  std::vector<int64_t> inputs;  // token ids in [0, vocab)
  std::vector<int64_t> labels;  // target ids, or kIgnore
  // n rows of `length` filler tokens (0), every label kIgnore: what each generator starts from.
  static Batch blank(int64_t n, int64_t length) {
    Batch b;
    b.n = n;
    b.length = length;
    b.inputs.assign(static_cast<size_t>(n * length), 0);
    b.labels.assign(static_cast<size_t>(n * length), kIgnore);
    return b;
  }
  int64_t at(int64_t row, int64_t t) const { return inputs[row * length + t]; }
  int64_t label(int64_t row, int64_t t) const { return labels[row * length + t]; }
};

// What a curriculum asks of the generator at the current stage of training. Tasks read the fields that
// make sense for them and ignore the rest; nothing set means "the task as configured".
struct Difficulty {
  std::optional<int64_t> max_distance;  // cap on the distance between a pair and its query
  std::optional<int64_t> length;        // sequence length to generate (≤ the configured length)
};

class Task {
 public:
  virtual ~Task() = default;
  // The options after defaults were filled in; recorded with every result and hashed into its key.
  virtual const nlohmann::json& options() const = 0;
  virtual int64_t vocab_size() const = 0;
  virtual int64_t length() const = 0;
  // Generates `n` sequences from `seed`. Same arguments → identical batch.
  virtual Batch generate(int64_t n, uint64_t seed, const Difficulty& difficulty = {}) const = 0;
  // Information the model must retain, in bits (K·log2 V for K pairs over V values); 0 if not meaningful.
  virtual double capacity_bits() const { return 0.0; }
  // The task's chance level: the held-out accuracy of a uniform guess over the labels a query can take
  // (1/values for recall tasks, 1/n! for S_n); nullopt where none is defined. Claims that a cell "falls to
  // chance" are tested against it (judge/claims.h).
  virtual std::optional<double> chance() const { return std::nullopt; }
  // The largest value Difficulty::max_distance can usefully take: at this cap the task is the task as
  // configured. Curricula ramp the cap up to it. Defaults to the sequence length.
  virtual int64_t max_distance() const { return length(); }
  // An optional breakdown of held-out accuracy over positions, e.g. s5 reports accuracy per depth.
  // breakdown_name() is the group's name ("" = no breakdown); breakdown_group(t) the group of position t
  // (-1: not counted). Accuracy in a group = correct / supervised positions in that group.
  virtual std::string breakdown_name() const { return ""; }
  virtual int64_t breakdown_group(int64_t t) const { return -1; }
  // A readable rendering of one row of a batch, keys/values/queries marked.
  virtual std::string render(const Batch& batch, int64_t row) const;
  // Option combinations that are valid but make a comparison vacuous (e.g. MQAR's dense labels on zero
  // filler are its sparse labels), one sentence each; `plan` and `run` print them as warnings.
  virtual std::vector<std::string> warnings() const { return {}; }
};

// The data a run sees, defined once (the trainer's only sources, suite/train/trainer.cpp; tested for every
// registered task in tests/tasks/data_identity_test.cpp):
// Training batch `step` (1-based) of the run with seed `seed`: every seed has its own stream, and the same
// (seed, step) gives the same batch on every rerun.
Batch training_batch(const Task& task, int64_t n, int64_t seed, int64_t step, const Difficulty& difficulty = {});
// The held-out set: depends only on the task's resolved options, so every seed of a config is scored on the
// same examples; drawn from a stream no training batch uses.
Batch held_out_set(const Task& task, int64_t examples);

// The identity of generated data: a hash of batches' shapes, tokens and labels, in the order added. The
// trainer records two per run (issue 24): the held-out set's (the same for every seed of a config, by
// design) and the first training batches' (different for every seed), so the gate can tell a changed task
// generator or a seed stream that no longer depends on the seed from "the same data", which outcomes
// cannot show. About 1 ns per token.
//   DataFingerprint fp;  fp.add(batch);  fp.hex()  // "3f2a9c0d41be"
class DataFingerprint {
 public:
  void add(const Batch& batch);
  // 12 hex digits (48 bits), like the architecture hash; "" before anything was added.
  std::string hex() const;
  int64_t batches() const { return batches_; }

 private:
  uint64_t h_ = 0x6A09E667F3BCC909ull;
  int64_t batches_ = 0;
};

struct TaskEntry {
  std::string name;
  std::string description;
  nlohmann::json defaults;  // every option with its default value
  std::function<std::unique_ptr<Task>(const nlohmann::json& options)> make;
};

using TaskRegistry = Registry<TaskEntry>;

// The sizes every task shares, with the range a trainable (and generable) task lies in: a length above 65536 or a
// vocabulary above 10^6 would ask `sample` for gigabytes and a battery's workers for more.
struct TaskSizeBound {
  const char* name;
  double lo, hi;
};
inline constexpr TaskSizeBound kTaskSizeBounds[] = {{"length", 1, 65536}, {"vocab", 2, 1e6}, {"pairs", 1, 1e5}};

// Refuses (UsageError, exit 2) a task whose options put a shared size outside its bound; `where` leads the message.
void check_task_sizes(const nlohmann::json& options, const std::string& where);

// Builds a task by name; unknown names or options, and sizes outside kTaskSizeBounds, are UsageErrors.
std::unique_ptr<Task> make_task(const std::string& name, const nlohmann::json& options);
// The chance level of the task `name` with `options` (Task::chance); nullopt for an unknown task, options it
// refuses, or a task without one.
std::optional<double> task_chance(const std::string& name, const nlohmann::json& options);

}  // namespace rb
