// Google Benchmark of the validated JSON reader (issue 46): time per megabyte must not grow with the number of
// keys in one object (the duplicate-key check was quadratic: 120k keys, 1.5 MB took 33 s). In-run reference: an
// array of the same strings, the same bytes less the values, which has no keys to check.
//   build/core/json_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "core/json_io.h"

namespace {

std::string object_with_keys(int64_t n) {
  std::string text = "{";
  for (int64_t i = 0; i < n; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  return text + "}";
}

std::string array_of_strings(int64_t n) {
  std::string text = "[";
  for (int64_t i = 0; i < n; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\"";
  return text + "]";
}

void run(benchmark::State& state, const std::string& text) {
  for (auto _ : state) benchmark::DoNotOptimize(rb::parse_json_text(text, "bench"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_ObjectKeys(benchmark::State& state) {
  run(state, object_with_keys(state.range(0)));
  state.SetLabel("one object, N keys (duplicate check per key)");
}
BENCHMARK(BM_ObjectKeys)->Arg(1000)->Arg(10000)->Arg(120000)->Unit(benchmark::kMillisecond);

void BM_ArrayReference(benchmark::State& state) {
  run(state, array_of_strings(state.range(0)));
  state.SetLabel("reference: an array of the same N strings");
}
BENCHMARK(BM_ArrayReference)->Arg(1000)->Arg(10000)->Arg(120000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
