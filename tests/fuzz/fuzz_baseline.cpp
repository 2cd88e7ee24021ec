// libFuzzer target: baselines and reports as the gate reads them (reports/report.h read_baseline, the file
// path included), then the gate itself on what was read: compare() of the configs against themselves and
// the JSON and Markdown it writes. Bad input must end in UsageError, never in a crash, a hang or another
// exception.
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/errors.h"
#include "tests/fuzz/fuzz_input.h"
#include "reports/gate_text.h"
#include "reports/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = fuzz_input_file("baseline", data, size);
  try {
    const rb::reports::Baseline b = rb::reports::read_baseline(path);
    const rb::judge::Comparison c = rb::judge::compare(b.configs, b.configs);
    (void)rb::reports::comparison_to_json(c).dump();
    rb::RunSet runs;
    runs.configs = b.configs;
    rb::reports::ReportInput in;
    in.runs = &runs;
    in.comparison = &c;
    in.contrasts = rb::judge::test_contrasts(runs.configs, rb::judge::infer_contrasts(runs.configs));
    (void)rb::reports::report_markdown(in);
    (void)rb::reports::report_json(in).dump();
  } catch (const rb::UsageError&) {
  }
  return 0;
}
