// cell_bench: the cost of one training step of the model every battery trains (2 layers, width 64,
// state budget 4096, MLP on), per registered cell, at L = 256 and L = 1024 with batch 32, one LibTorch
// thread. A step is what the trainer does per batch: forward, the tied head and cross-entropy at the 16
// supervised positions per sequence (MQAR with 16 pairs), backward, AdamW.
//
// After Google Benchmark's table it prints each cell's step time as a ratio to `attention` at the same
// length, measured in the same run (the acceptance: fixed-state cells ≤ 1.5× attention at
// L = 256, faster than attention at L = 1024).
//
//   build/cells/cell_bench [--impl auto|ref|chunked|fused] [--lengths 256,1024] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "cells/cell.h"
#include "suite/allocator.h"
#include "suite/blas_core.h"
#include "suite/train/model.h"
#include "suite/train/train_api.h"

namespace rb {
namespace {

constexpr int64_t kBatch = 32, kVocab = 256, kSupervised = 16;
std::string g_impl = "auto";

void bm_train_step(benchmark::State& st, const std::string& cell, int64_t L) {
  torch::manual_seed(0);
  RunSpec spec;
  spec.cell.name = cell;
  spec.model.d_model = 64;
  spec.model.layers = 2;
  spec.model.state_budget = 4096;
  spec.train.impl = g_impl;
  RecallModel model(spec, kVocab, L);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.1));
  auto tokens = torch::randint(kVocab, {kBatch, L}, torch::kLong);
  auto positions = torch::randperm(L, torch::kLong).narrow(0, 0, kSupervised);  // supervised positions
  auto targets = torch::randint(kVocab, {kBatch * kSupervised}, torch::kLong);
  for (auto _ : st) {
    opt.zero_grad();
    auto h = model->hidden(tokens).index_select(1, positions).reshape({-1, spec.model.d_model});
    auto loss = torch::nn::functional::cross_entropy(model->logits(h), targets);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.item<float>());
  }
  st.counters["tokens/s"] = benchmark::Counter(static_cast<double>(kBatch * L), benchmark::Counter::kIsIterationInvariantRate);
  st.counters["state"] = static_cast<double>(model->state_size());
}

// Collects each run's seconds per step, then prints the ratios to attention.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median")
        seconds_[r.run_name.function_name] = {r.GetAdjustedRealTime() / 1e3, r.GetAdjustedCPUTime() / 1e3};  // ms → s
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    // Ratios use CPU time: on a shared machine wall time mostly measures the neighbours (one thread, so
    // the step's CPU time is its cost).
    std::map<int64_t, double> attention;
    for (const auto& [name, t] : seconds_)
      if (name.rfind("train_step/attention/", 0) == 0) attention[std::stoll(name.substr(name.rfind(':') + 1))] = t.second;
    fmt::print("\nstep time as a ratio to attention at the same length (impl {}; ratio of CPU times):\n", g_impl);
    fmt::print("  {:<40} {:>10} {:>10} {:>8}\n", "benchmark", "wall s", "CPU s", "ratio");
    for (const auto& [name, t] : seconds_) {
      const int64_t L = std::stoll(name.substr(name.rfind(':') + 1));
      fmt::print("  {:<40} {:>10.4f} {:>10.4f} {:>8}\n", name, t.first, t.second,
                 attention.count(L) ? fmt::format("{:.2f}", t.second / attention[L]) : "-");
    }
  }

 private:
  std::map<std::string, std::pair<double, double>> seconds_;  // name → (wall, CPU) seconds per step
};

}  // namespace
}  // namespace rb

int main(int argc, char** argv) {
  rb::tune_allocator();                          // the allocator settings the trainer runs with
  rb::maybe_reexec_with_better_blas_core(argv);  // the BLAS core the trainer runs on
  std::vector<int64_t> lengths = {256, 1024};
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--impl" && i + 1 < argc) {
      rb::g_impl = argv[++i];
    } else if (a == "--lengths" && i + 1 < argc) {
      lengths.clear();
      std::stringstream ss(argv[++i]);
      for (std::string item; std::getline(ss, item, ',');) lengths.push_back(std::stoll(item));
    } else {
      rest.push_back(argv[i]);
    }
  }
  rb::set_torch_threads(1);  // LibTorch's and OpenBLAS's pools, as the trainer sets them
  for (const auto& cell : rb::CellRegistry::instance().names())
    for (int64_t L : lengths)
      benchmark::RegisterBenchmark(("train_step/" + cell + "/L:" + std::to_string(L)).c_str(),
                                   [cell, L](benchmark::State& st) { rb::bm_train_step(st, cell, L); })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(2.0);
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  rb::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
