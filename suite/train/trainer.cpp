// The trainer: AdamW with linear warmup and cosine decay, batches generated on the fly from the run's
// seed at the difficulty the run's curriculum (tasks/curriculum.h) sets for each step, evaluation on a
// fixed held-out set at the target length (never on training batches), early stop at lock-in, learning
// curve with the curriculum stage at every point. At the end: per-group accuracy for tasks that define a
// breakdown (s5: per depth) and, when spec.train.eval_lengths is set, a length-generalisation curve on
// held-out sets at those lengths (the model's position table, and attention's max_length, then cover the
// longest of them).
//
// Determinism: model initialisation is seeded from the run seed; training batch i is training_batch(task,
// batch, seed, i) (tasks/task.h); the held-out set (held_out_set) depends only on the task spec (every seed of a config
// is scored on the same examples). With one LibTorch thread per run, the same run key gives the same
// numbers in any process, on any worker count or shard. The result records the data's identity beside the
// model's: a fingerprint of the held-out set and one of the first training batches (tasks/task.h).
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include <torch/script.h>
#include <torch/torch.h>

#include "cells/catalog.h"
#include "cells/causality.h"

#include "suite/context.h"
#include "core/errors.h"
#include "core/json_io.h"
#include "core/rng.h"
#include "core/run_document.h"
#include "judge/learning.h"
#include "suite/train/model.h"
#include "suite/train/resolve.h"
#include "suite/train/train_api.h"
#include "tasks/curriculum.h"
#include "tasks/task.h"

namespace rb {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kExplodingLoss = 1e4;   // a cross-entropy this large over ≤ 65k classes means divergence
constexpr double kGradClip = 1.0;        // global gradient-norm clip: keeps early steps of unnormalised
                                         // recurrences from blowing up without changing converged runs

// The model's architecture as a short hash of its parameters' names and shapes (in registration order):
// a change to a cell that its run key does not see (a narrower convolution, an extra projection) changes
// this hash, so the gate can tell "the same model learned differently" from "another model" (issue 18).
std::string architecture_hash(torch::nn::Module& model) {
  std::string text;
  for (const auto& p : model.named_parameters()) {
    text += p.key();
    for (int64_t s : p.value().sizes()) text += "," + std::to_string(s);
    text += ";";
  }
  return short_hash_of(text);
}

struct Tensors {
  torch::Tensor inputs;  // {N, T} int64
  torch::Tensor labels;  // {N, T} int64, kIgnore where unsupervised
};

// A generated batch as tensors on `device` (a copy: the batch's buffers are the generator's).
Tensors to_tensors(const Batch& b, const torch::Device& device) {
  auto opts = torch::TensorOptions().dtype(torch::kInt64);
  const auto copy = [&](const std::vector<int64_t>& v) {
    auto t = torch::from_blob(const_cast<int64_t*>(v.data()), {b.n, b.length}, opts);
    return device.is_cpu() ? t.clone() : t.to(device);
  };
  return {copy(b.inputs), copy(b.labels)};
}

struct Evaluation {
  double accuracy = 0.0;
  std::vector<double> correct_at, supervised_at;  // per position, summed over examples
};

// Held-out accuracy: argmax over the whole vocabulary at supervised positions, averaged per example and
// then over examples (Zoology's metric). Also counts correct and supervised labels per position, for
// breakdowns (s5 depth).
Evaluation evaluate(RecallModel& model, const Tensors& eval) {
  torch::NoGradGuard no_grad;
  model->eval();
  const int64_t N = eval.inputs.size(0), T = eval.inputs.size(1);
  double total = 0.0;
  const auto f64 = eval.inputs.options().dtype(torch::kFloat64);  // on the model's device
  auto correct_at = torch::zeros({T}, f64), supervised_at = torch::zeros({T}, f64);
  for (int64_t s = 0; s < N; s += 128) {
    const int64_t n = std::min<int64_t>(128, N - s);
    auto x = eval.inputs.narrow(0, s, n), y = eval.labels.narrow(0, s, n);
    auto mask = y != kIgnore;                                    // {n, T}
    auto h = model->hidden(x);                                   // {n, T, D}
    auto pred = model->logits(h.index({mask})).argmax(-1);       // {M}
    auto correct = torch::zeros({n, x.size(1)}, f64);
    correct.index_put_({mask}, (pred == y.index({mask})).to(torch::kFloat64));
    auto per_example = correct.sum(1) / mask.sum(1).clamp_min(1).to(torch::kFloat64);
    total += per_example.sum().item<double>();
    correct_at += correct.sum(0);
    supervised_at += mask.to(torch::kFloat64).sum(0);
  }
  model->train();
  correct_at = correct_at.cpu(), supervised_at = supervised_at.cpu();
  Evaluation e;
  e.accuracy = total / static_cast<double>(N);
  e.correct_at.assign(correct_at.data_ptr<double>(), correct_at.data_ptr<double>() + T);
  e.supervised_at.assign(supervised_at.data_ptr<double>(), supervised_at.data_ptr<double>() + T);
  return e;
}

// The held-out set of a task: depends only on the task's resolved options (same for every seed). With
// `fingerprint`, the generated set is also hashed into it (the run's eval_fingerprint).
Tensors held_out(const Task& task, int64_t examples, const torch::Device& device,
                 DataFingerprint* fingerprint = nullptr) {
  const Batch set = held_out_set(task, examples);
  if (fingerprint) fingerprint->add(set);
  return to_tensors(set, device);
}

// Per-group held-out accuracy, {"by": name, "groups": [{"group": g, "accuracy": a, "labels": n}]}.
nlohmann::json breakdown_json(const Task& task, const Evaluation& e) {
  std::map<int64_t, std::pair<double, double>> groups;  // group → (correct, supervised)
  for (size_t t = 0; t < e.correct_at.size(); ++t) {
    const int64_t g = task.breakdown_group(static_cast<int64_t>(t));
    if (g < 0 || e.supervised_at[t] == 0) continue;
    groups[g].first += e.correct_at[t];
    groups[g].second += e.supervised_at[t];
  }
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& [g, cs] : groups)
    arr.push_back({{"group", g}, {"accuracy", cs.first / cs.second}, {"labels", static_cast<int64_t>(cs.second)}});
  return {{"by", task.breakdown_name()}, {"groups", arr}};
}

double lr_at(const TrainSpec& t, int64_t step) {
  const double warm = std::max(1.0, t.warmup * static_cast<double>(t.steps));
  if (step <= warm) return t.lr * step / warm;
  const double progress = (step - warm) / std::max(1.0, t.steps - warm);
  return t.lr * 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, progress)));
}

}  // namespace

// The name of CUDA device `index` from the driver (libcuda's cuDeviceGetName, a C interface that has not
// changed since CUDA 2), so that a CPU-only LibTorch build and one without the CUDA kernels still name it;
// "cuda:N" when the driver cannot be asked.
static std::string gpu_name(int index) {
  const std::string fallback = "cuda:" + std::to_string(index);
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) return fallback;
  using Init = int (*)(unsigned);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  auto init = reinterpret_cast<Init>(::dlsym(driver, "cuInit"));
  auto get = reinterpret_cast<Get>(::dlsym(driver, "cuDeviceGet"));
  auto name = reinterpret_cast<Name>(::dlsym(driver, "cuDeviceGetName"));
  char text[256] = {0};
  int device = 0;
  const bool ok = init && get && name && init(0) == 0 && get(&device, index) == 0 && name(text, sizeof(text) - 1, device) == 0;
  return ok && text[0] != 0 ? std::string(text) : fallback;
}

// Whether this process has a CUDA LibTorch (its libtorch_cuda.so is loaded). torch::hasCUDA() cannot tell: in
// LibTorch 2.x it is false on a CUDA build that sees no GPU.
static bool cuda_libtorch() { return ::dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD) != nullptr; }

// "cpu", "cuda" or "cuda:N" as a torch::Device; anything else is a UsageError.
static torch::Device parse_device(const std::string& text) {
  if (text == "cpu") return torch::Device(torch::kCPU);
  if (text == "cuda" || text.rfind("cuda:", 0) == 0) {
    int index = 0;
    if (text.size() > 5) {
      const std::string digits = text.substr(5);
      if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError("--device " + text + ": expected cpu, cuda or cuda:N");
      index = std::stoi(digits);
    }
    if (!torch::cuda::is_available())
      throw UsageError("--device " + text + ": no CUDA device is available (" +
                           std::string(cuda_libtorch() ? "this LibTorch has CUDA but sees no GPU"
                                                       : "this LibTorch is built without CUDA, as Debian's is") + ")",
                       "train on the CPU (--device cpu, the default), or build against a CUDA LibTorch on a machine "
                       "with a GPU (README: Devices)");
    const int count = static_cast<int>(torch::cuda::device_count());
    if (index >= count)
      throw UsageError("--device " + text + ": this machine has " + std::to_string(count) + " CUDA device(s)",
                       "use cuda:0 to cuda:" + std::to_string(count - 1));
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw UsageError("--device " + text + ": expected cpu, cuda or cuda:N");
}

void require_device(const std::string& device) { (void)parse_device(device); }

std::string device_name(const std::string& device) {
  const torch::Device d = parse_device(device);
  if (d.is_cpu()) return "cpu";
  return gpu_name(d.index());
}

// Refuses a cell that reads the future (cells/causality.h) at length T: once per cell, options, width and
// length in a process (the planner resolves every seed of a config).
static void require_causal(Cell& cell, const RunSpec& spec, int64_t length) {
  static std::mutex mu;
  static std::map<std::string, CausalityResult> checked;
  const std::string id = spec.cell.name + "|" + spec.cell.path + "|" + spec.cell.options.dump() + "|" +
                         std::to_string(spec.model.d_model) + "|" + spec.train.impl + "|" + std::to_string(length);
  CausalityResult r;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = checked.find(id);
    if (it != checked.end()) r = it->second;
  }
  if (r.length == 0) {
    const bool training = cell.is_training();
    cell.eval();
    r = check_causality([&](const torch::Tensor& x) { return cell.forward(x); }, length, spec.model.d_model);
    cell.train(training);
    std::lock_guard<std::mutex> lock(mu);
    checked[id] = r;
  }
  if (!r.causal)
    throw UsageError("cell " + spec.cell.name + " is not causal at length " + std::to_string(length) + ": " + r.describe(),
                     "a cell may only read the past (check every position: recallbench check-cell " + spec.cell.name +
                         " --length " + std::to_string(length) + ")");
}

// The cell of a run, as the model builds it, for sequences up to `max_length`.
static std::shared_ptr<Cell> cell_of(const RunSpec& spec, int64_t max_length) {
  CellConfig cfg;
  cfg.d_model = spec.model.d_model;
  cfg.state_budget = spec.model.state_budget;
  cfg.max_length = max_length;
  cfg.impl = spec.train.impl;
  cfg.options = spec.cell.options;
  cfg.path = spec.cell.path;
  return make_cell(spec.cell.name, cfg);
}

int64_t state_size_of(const RunSpec& spec) {
  return cell_of(spec, make_task(spec.task.name, spec.task.options)->length())->state_size();
}

int64_t built_width(const NamedSpec& cell) {
  if (!is_script_cell(cell.name) || cell.path.empty()) return 0;
  try {
    const auto module = torch::jit::load(cell.path);
    if (!module.hasattr("d_model")) return 0;
    const auto d = module.attr("d_model");
    return d.isInt() && d.toInt() > 0 ? d.toInt() : 0;
  } catch (const c10::Error&) {
    return 0;  // not loadable: the cell's own construction reports it, with its hint
  }
}

RunSpec resolve_spec(RunSpec spec) {
  std::unique_ptr<Task> task;
  spec = resolve_task_and_recipe(std::move(spec), task);
  const auto& t = spec.train;
  require_direction(spec, cell_knobs(spec.cell.name));
  const auto cell = cell_of(spec, task->length());
  spec.cell.options = cell->resolved_options();
  check_plausible(spec, "run " + spec.cell.name + " on " + spec.task.name);  // with the task's defaults filled in
  // Causality at every split point of every length the run will see, before any compute is spent.
  std::set<int64_t> lengths{task->length()};
  for (int64_t length : t.eval_lengths) lengths.insert(length);
  if (!costing_only() && !spec.model.bidirectional)  // a denoiser's model reads the whole sequence by design
    for (int64_t length : lengths) require_causal(*cell, spec, length);
  return spec;
}

namespace {

// The training loop's state: the window since the last evaluation, the best and last evaluations, and how
// the run ended.
struct LoopState {
  RunStatus status = RunStatus::kOk;
  std::string message;
  nlohmann::json divergence = nullptr;
  double best = 0.0, last_acc = 0.0, loss_sum = 0.0, last_loss = NAN, train_acc_sum = 0.0;
  int64_t loss_count = 0, step = 0, lock_in_step = -1, best_step = 0;
  Clock::time_point window_start = Clock::now();
  int64_t window_steps = 0;
  bool stopped = false;        // plateau stopping ended the run (spec.train.stop_on_plateau)
  std::vector<CurvePoint> seen;  // the curve so far, as judge/learning.h reads it
  Evaluation last_eval;
  DataFingerprint train_data;  // the first kTrainFingerprintBatches training batches
};

// One optimiser step on a fresh batch. False, with the divergence recorded, when the loss is not finite or
// explodes (the step is not taken).
bool train_step(const RunSpec& spec, const Task& task, RecallModel& model, torch::optim::AdamW& opt,
                Curriculum& curriculum, const Difficulty& difficulty, const torch::Device& device, LoopState& st) {
  const int64_t step = st.step;
  const Batch generated = training_batch(task, spec.train.batch, spec.seed, step, difficulty);
  if (st.train_data.batches() < kTrainFingerprintBatches) st.train_data.add(generated);
  const Tensors batch = to_tensors(generated, device);
  auto mask = batch.labels != kIgnore;                          // {B, T}
  auto h = model->hidden(batch.inputs);                         // {B, T, D}
  auto targets = batch.labels.index({mask});                    // {M}
  auto logits = model->logits(h.index({mask}));                 // {M, vocab}
  auto loss = torch::nn::functional::cross_entropy(logits, targets);
  const double loss_value = loss.item<double>();
  if (!std::isfinite(loss_value) || loss_value > kExplodingLoss) {
    st.status = RunStatus::kDiverged;
    st.message = "training loss became " + std::to_string(loss_value) + " at step " + std::to_string(step);
    st.divergence = {{"step", step},
                     {"reason", std::isfinite(loss_value) ? "exploding" : "nan"},
                     {"loss", std::isfinite(loss_value) ? nlohmann::json(loss_value) : nlohmann::json(nullptr)}};
    return false;
  }
  // Training accuracy on this batch (fraction of supervised labels right): what `gated` measures.
  const double train_acc = targets.numel() ? (logits.argmax(-1) == targets).to(torch::kFloat64).mean().item<double>() : 0.0;
  curriculum.observe(step, train_acc);
  st.train_acc_sum += train_acc;
  opt.zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(model->parameters(), kGradClip);
  opt.step();
  st.loss_sum += loss_value;
  ++st.loss_count;
  ++st.window_steps;
  return true;
}

// A held-out evaluation: the curve point, the progress line, a new window. True when the run ends here: it
// locked in, or (stop_on_plateau) it has plateaued.
bool evaluate_and_record(const RunSpec& spec, RecallModel& model, const Tensors& eval, const Curriculum& curriculum,
                         const Difficulty& difficulty, double lr, const ProgressFn& progress, RunDocument& doc,
                         LoopState& st) {
  const int64_t step = st.step;
  st.last_eval = evaluate(model, eval);
  st.last_acc = st.last_eval.accuracy;
  if (st.last_acc > st.best) st.best = st.last_acc, st.best_step = step;
  st.last_loss = st.loss_sum / static_cast<double>(st.loss_count);
  doc.curve.push_back({step, st.last_acc, st.last_loss,
                       {{"train_accuracy", st.train_acc_sum / static_cast<double>(st.loss_count)},
                        {"lr", lr},
                        {"stage", curriculum.stage()},
                        {"difficulty", difficulty_json(difficulty)}}});
  const double secs = std::chrono::duration<double>(Clock::now() - st.window_start).count();
  const std::string stage = spec.train.curriculum == "none"
                                ? ""
                                : std::to_string(curriculum.stage()) + "/" + std::to_string(curriculum.stages());
  if (progress)
    progress({spec.seed, step, spec.train.steps, st.last_loss, st.last_acc, st.window_steps / std::max(secs, 1e-9), stage});
  st.loss_sum = 0.0;
  st.train_acc_sum = 0.0;
  st.loss_count = 0;
  st.window_steps = 0;
  st.window_start = Clock::now();
  st.seen.push_back({step, st.last_acc, st.last_loss});
  if (st.last_acc < spec.train.threshold) {
    if (spec.train.stop_on_plateau && step < spec.train.steps &&
        judge::plateau_should_stop(st.seen, {spec.train.steps, spec.train.warmup})) {
      st.stopped = true;
      return true;
    }
    return false;
  }
  st.lock_in_step = step;
  return true;
}

// After training: the breakdown at the last evaluation, the length-generalisation curve and the curriculum's
// history, as the result's `details`.
nlohmann::json details_after_training(const RunSpec& spec, const Task& task, RecallModel& model,
                                      const Curriculum& curriculum, const RunDocument& doc, const LoopState& st,
                                      const torch::Device& device) {
  nlohmann::json breakdown = nullptr;
  if (st.status == RunStatus::kOk && !task.breakdown_name().empty() && !doc.curve.empty()) breakdown = breakdown_json(task, st.last_eval);
  nlohmann::json lengths = nlohmann::json::array();
  if (st.status == RunStatus::kOk) {
    for (int64_t length : spec.train.eval_lengths) {
      auto other = task_at_length(spec, length);
      const Evaluation e = evaluate(model, held_out(*other, spec.train.eval_examples, device));
      lengths.push_back({{"length", length}, {"accuracy", e.accuracy}});
    }
  }
  nlohmann::json history = nlohmann::json::array();
  for (const auto& r : curriculum.history()) {
    auto d = difficulty_json(r.difficulty);
    history.push_back({{"step", r.step}, {"stage", r.stage}, {"max_distance", d["max_distance"]}, {"length", d["length"]}});
  }
  const judge::LearningDiagnosis learning =
      judge::diagnose_learning(st.seen, {spec.train.steps, spec.train.warmup}, st.lock_in_step >= 0,
                               st.status == RunStatus::kOk, st.stopped);
  return {
      {"stopped", st.stopped ? nlohmann::json("plateau") : nlohmann::json(nullptr)},
      {"learning", {{"label", learning_name(learning.label)}, {"reason", judge::learning_reason_name(learning.reason)}}},
      {"final_loss", std::isfinite(st.last_loss) ? nlohmann::json(st.last_loss) : nlohmann::json(nullptr)},
      {"best_step", st.best_step > 0 ? nlohmann::json(st.best_step) : nlohmann::json(nullptr)},
      {"divergence", st.divergence},
      {"curriculum",
       {{"name", spec.train.curriculum},
        {"stages", curriculum.stages()},
        {"final_stage", curriculum.stage()},
        {"history", history}}},
      {"breakdown", breakdown},
      {"length_generalisation", lengths},
  };
}

}  // namespace

nlohmann::json train_run(const RunSpec& spec, const ProgressFn& progress, int threads, const std::string& device_text) {
  const torch::Device device = parse_device(device_text);
  const auto t0 = Clock::now();
  set_torch_threads(threads);
  // Flush denormals to zero (FTZ/DAZ on this thread, the only one at one LibTorch thread). Saturating
  // decay gates drive states and gradients into the denormal range, where every x86 floating-point
  // operation takes a microcode assist: measured, a gated-delta haystack run (1500 steps) took
  // 1387 s instead of 494 s, with an identical curve. Values below 1.2e-38 do not matter to any result here.
  at::globalContext().setFlushDenormal(true);
  torch::manual_seed(static_cast<uint64_t>(spec.seed));
  auto task = make_task(spec.task.name, spec.task.options);
  int64_t max_length = task->length();
  for (int64_t length : spec.train.eval_lengths) max_length = std::max(max_length, length);
  RecallModel model(spec, task->vocab_size(), max_length);  // initialised on the CPU: the same weights on any device
  if (!device.is_cpu()) model->to(device);
  int64_t params = 0;
  for (const auto& p : model->parameters()) params += p.numel();
  const std::string architecture = architecture_hash(*model);
  auto curriculum = make_curriculum(spec.train.curriculum, spec.train.curriculum_options,
                                    curriculum_context(spec, *task));

  DataFingerprint eval_data;
  const Tensors eval = held_out(*task, spec.train.eval_examples, device, &eval_data);
  torch::optim::AdamW opt(model->parameters(),
                          torch::optim::AdamWOptions(spec.train.lr).weight_decay(spec.train.weight_decay));

  RunDocument doc;  // what this run writes: core/run_document.h is its one writer and one reader
  LoopState st;
  for (st.step = 1; st.step <= spec.train.steps; ++st.step) {
    const double lr = lr_at(spec.train, st.step);
    for (auto& group : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    const Difficulty difficulty = curriculum->difficulty(st.step);
    if (!train_step(spec, *task, model, opt, *curriculum, difficulty, device, st)) break;
    if ((st.step % spec.train.eval_every == 0 || st.step == spec.train.steps) &&
        evaluate_and_record(spec, model, eval, *curriculum, difficulty, lr, progress, doc, st))
      break;
  }
  const int64_t steps_done = std::min(st.step, spec.train.steps);
  const double train_wall = std::chrono::duration<double>(Clock::now() - t0).count();
  nlohmann::json details = details_after_training(spec, *task, model, *curriculum, doc, st, device);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();

  doc.key = spec.key();
  doc.config_key = spec.config_key();
  doc.spec = spec.to_json();
  doc.context = capture_context(threads);
  doc.context["device"] = device.str();
  doc.context["device_name"] = device_name(device_text);
  RunResult& r = doc.result;
  r.status = st.status;
  r.message = st.message;
  r.final_accuracy = st.status == RunStatus::kOk ? st.last_acc : 0.0;
  r.best_accuracy = st.best;
  r.reached_threshold = st.lock_in_step >= 0;
  r.lock_in_step = st.lock_in_step;
  r.steps = steps_done;
  r.wall_seconds = wall;
  r.steps_per_second = steps_done / std::max(train_wall, 1e-9);
  r.state_size = model->state_size();
  r.parameters = params;
  r.architecture = architecture;
  r.eval_fingerprint = eval_data.hex();
  r.train_fingerprint = st.train_data.hex();
  r.knobs = cell_knobs(spec.cell.name);
  r.capacity_bits = task->capacity_bits();
  r.details = std::move(details);
  return doc.to_json();
}

}  // namespace rb
