// recallbench sample: print generated examples of a task, so a user sees exactly what a model trains on.
//
//   recallbench sample --task haystack --length 32 --seed 1 --n 3
//   recallbench sample --task mqar --task-opt supervision=dense --n 1 --json
//
// Human output: per example, a readable rendering (the task's own: keys k, values v, queries Q key->answer,
// previews ?, filler .) then the raw inputs and labels (. = ignored). --json prints one object:
// {"task", "options" (resolved), "seed", "n", "difficulty", "inputs": [[...]], "labels": [[...]]} with
// ignored labels as -100. --max-distance / --at-length show the data a curriculum stage would give.
#include <fmt/format.h>

#include "suite/cli.h"
#include "core/errors.h"
#include "tasks/curriculum.h"
#include "tasks/task.h"

namespace rb {
namespace {

struct SampleOptions {
  std::string task;
  std::vector<std::string> task_opts;
  int64_t pairs = -1, length = -1, vocab = -1;
  int64_t seed = 0, n = 3;
  int64_t max_distance = -1, at_length = -1;
  bool json = false;
};

nlohmann::json sample_kv(const std::vector<std::string>& items) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--task-opt: expected key=value, got '" + item + "'");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

int run_sample(const SampleOptions& o) {
  if (o.task.empty()) throw UsageError("sample needs --task NAME", "valid task names: " + TaskRegistry::instance().joined_names());
  auto options = sample_kv(o.task_opts);
  if (o.pairs >= 0) options["pairs"] = o.pairs;
  if (o.length >= 0) options["length"] = o.length;
  if (o.vocab >= 0) options["vocab"] = o.vocab;
  auto task = make_task(o.task, options);
  Difficulty d;
  if (o.max_distance >= 0) d.max_distance = o.max_distance;
  if (o.at_length >= 0) d.length = o.at_length;
  const Batch b = task->generate(o.n, static_cast<uint64_t>(o.seed), d);

  if (o.json) {
    nlohmann::json inputs = nlohmann::json::array(), labels = nlohmann::json::array();
    for (int64_t row = 0; row < b.n; ++row) {
      inputs.push_back(std::vector<int64_t>(b.inputs.begin() + row * b.length, b.inputs.begin() + (row + 1) * b.length));
      labels.push_back(std::vector<int64_t>(b.labels.begin() + row * b.length, b.labels.begin() + (row + 1) * b.length));
    }
    const nlohmann::json out = {{"task", o.task},     {"options", task->options()}, {"seed", o.seed},
                                {"n", o.n},           {"length", b.length},         {"vocab", task->vocab_size()},
                                {"difficulty", difficulty_json(d)}, {"inputs", inputs}, {"labels", labels}};
    fmt::print("{}\n", out.dump());
    return kExitOk;
  }
  fmt::print("task {} {}  seed {}  length {}  vocab {}\n", o.task, task->options().dump(), o.seed, b.length,
             task->vocab_size());
  if (d.max_distance || d.length) fmt::print("difficulty {}\n", difficulty_json(d).dump());
  for (int64_t row = 0; row < b.n; ++row) {
    std::string in, lab;
    for (int64_t t = 0; t < b.length; ++t) {
      in += (t ? " " : "") + std::to_string(b.at(row, t));
      lab += (t ? " " : "") + (b.label(row, t) == kIgnore ? std::string(".") : std::to_string(b.label(row, t)));
    }
    fmt::print("\nexample {}\n  {}\n  inputs  {}\n  labels  {}\n", row, task->render(b, row), in, lab);
  }
  return kExitOk;
}

}  // namespace

CommandFn add_sample_command(CLI::App& s) {
  auto* sub = &s;
  auto o = std::make_shared<SampleOptions>();
  sub->add_option("--task", o->task, "Task name (see `recallbench list tasks`)");
  sub->add_option("--pairs", o->pairs, "Task option: key-value pairs")->check(CLI::PositiveNumber);
  sub->add_option("--length", o->length, "Task option: sequence length")->check(CLI::PositiveNumber);
  sub->add_option("--vocab", o->vocab, "Task option: vocabulary size")->check(CLI::PositiveNumber);
  sub->add_option("--task-opt", o->task_opts, "Other task option as key=value (repeatable)");
  sub->add_option("--seed", o->seed, "Generator seed (default 0)")->check(CLI::NonNegativeNumber);
  sub->add_option("--n", o->n, "Number of examples (default 3)")->check(CLI::Range(int64_t{1}, int64_t{100000}));
  sub->add_option("--max-distance", o->max_distance, "Curriculum difficulty: cap on pair-query distance")
      ->check(CLI::PositiveNumber);
  sub->add_option("--at-length", o->at_length, "Curriculum difficulty: generate shorter sequences")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", o->json, "One JSON object: inputs, labels (ignored = -100), resolved options");
  return [o]() { return run_sample(*o); };
}

RB_REGISTER(CommandRegistry, sample,
            CommandEntry{"sample", "Print generated examples of a task (what a model is trained on)", add_sample_command});

}  // namespace rb
