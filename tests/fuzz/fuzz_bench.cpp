// libFuzzer target: a Google Benchmark JSON as the speed gate reads it (reports/speed_gate.h read_bench_file,
// the path included), the gate over what was read (judge/speed_gate.h: the file against itself, raw and
// relative to a reference benchmark of the same file), the A/A noise calibration and every rendering; and
// the same document as the report's kernel-throughput rows (reports/report.h bench_rows, `report --bench`).
// Bad input must end in UsageError, never in a crash, a hang or another exception.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "judge/speed_gate.h"
#include "reports/report.h"
#include "reports/speed_gate.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace r = rb::reports;
  namespace j = rb::judge;
  const std::string& path = fuzz_input_file("bench", data, size);
  try {
    const j::BenchFile file = r::read_bench_file(path);
    for (const std::string reference : {std::string(), file.runs.empty() ? std::string() : file.runs.begin()->first}) {
      j::SpeedGateOptions o;
      o.reference = reference;
      const j::SpeedComparison c = j::compare_bench(file, file, o);
      (void)j::speed_exit_code(c, true);
      (void)r::speed_comparison_to_json(c).dump();
      (void)r::speed_comparison_table(c);
      (void)r::speed_comparison_markdown(c);
      for (const auto& b : c.benchmarks) (void)r::speed_reason(b, c.options);
      (void)r::machine_difference_text(j::machine_difference(file, file));
      const j::NoiseCalibration n = j::calibrate_noise(file, file, o);
      (void)r::noise_calibration_to_json(n).dump();
      (void)r::noise_calibration_table(n);
    }
  } catch (const rb::UsageError&) {
  }
  const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (!doc.is_discarded()) {
    try {
      (void)r::bench_rows(doc);
    } catch (const rb::UsageError&) {
    }
  }
  return 0;
}
