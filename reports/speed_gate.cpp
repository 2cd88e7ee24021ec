// Google Benchmark JSON read for the speed gate, and the gate's results in words (speed_gate.h).
#include "reports/speed_gate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/report.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

using judge::BenchComparison;
using judge::BenchFile;
using judge::NoiseCalibration;
using judge::SpeedComparison;
using judge::SpeedGateOptions;
using judge::SpeedReason;
using nlohmann::json;

double unit_to_ns(const std::string& unit, const std::string& where) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw UsageError(where + ": time_unit: got '" + unit + "', expected ns, us, ms or s");
}

std::string pct(double x) { return fmt::format("{:+.1f}%", 100.0 * x); }

std::string time_str(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

BenchFile read_bench_json(const json& doc, const std::string& path, const std::string& time_key) {
  const std::string where = path.empty() ? std::string("benchmark file") : path;
  if (!is_bench_json(doc))
    throw UsageError(where + ": got a JSON document without `benchmarks` and `context`, expected Google Benchmark "
                             "JSON (recallbench bench --out FILE)");
  BenchFile f;
  f.path = path;
  f.context = doc["context"];
  f.time_key = time_key;
  if (f.time_key.empty()) {
    const auto rb = doc.value("recallbench", json::object());
    f.time_key = rb.is_object() ? rb.value("time", std::string("real_time")) : std::string("real_time");
  }
  if (f.time_key != "cpu_time" && f.time_key != "real_time")
    throw UsageError(where + ": time: got '" + f.time_key + "', expected cpu_time or real_time");
  for (const BenchRecord& r : read_bench_records(doc, where)) {
    if (r.run_type != "iteration" || r.error) continue;  // aggregates are recomputed from the repetitions
    const double raw = f.time_key == "cpu_time" ? r.cpu_time : r.real_time;
    if (std::isnan(raw))
      throw UsageError(where + ": " + r.run_name + ": got no numeric `" + f.time_key + "`, expected one per row");
    const double t = raw * unit_to_ns(r.time_unit, where + ": " + r.run_name);
    if (!(t > 0) || !std::isfinite(t))
      throw UsageError(where + ": " + r.run_name + ": got time " + fmt::format("{}", t) + ", expected a positive number");
    f.runs[r.run_name].push_back(t);
  }
  return f;
}

}  // namespace

BenchFile bench_file_from_json(const json& doc, const std::string& path, const std::string& time_key) {
  // A field of another type (a row's run_type a number) is bad input naming the file, for every caller.
  return with_json_errors(path.empty() ? std::string("benchmark file") : path,
                          [&] { return read_bench_json(doc, path, time_key); });
}

BenchFile read_bench_file(const std::string& path, const std::string& time_key) {
  return bench_file_from_json(read_json_file(path), path, time_key);
}

bool is_bench_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    return is_bench_json(read_json_file(path));  // the same limits as every document the tool reads
  } catch (const UsageError&) {
    return false;
  }
}

std::string speed_reason(const BenchComparison& b, const SpeedGateOptions& o) {
  const double threshold = 100 * o.threshold;
  switch (b.reason) {
    case SpeedReason::kReference:
      return fmt::format("{} (the reference: shown, not gated)", pct(b.raw_change));
    case SpeedReason::kCeiling:
      return fmt::format("{} (machine ceiling: shown, not gated)", pct(b.raw_change));
    case SpeedReason::kTooFewRepetitions:
      return fmt::format("{} vs {} repetitions; at least {} per side are needed for a test",
                         b.n_base, b.n_cur, o.min_repetitions);
    case SpeedReason::kSlowerSignificant:
      return fmt::format("slower by {} > {:.0f}% and significant (adjusted p = {:.3g})",
                         pct(b.change), threshold, b.p_adj);
    case SpeedReason::kFasterSignificant:
      return fmt::format("faster by {} and significant (adjusted p = {:.3g})", pct(b.change),
                         b.p_adj);
    case SpeedReason::kSlowerNotSignificant:
      return fmt::format("slower by {} > {:.0f}% but not significant (adjusted p = {:.3g} > {})",
                         pct(b.change), threshold, b.p_adj, o.alpha);
    case SpeedReason::kSignificantWithinThreshold:
      return fmt::format("significant (adjusted p = {:.3g}) but {} is within the {:.0f}% threshold",
                         b.p_adj, pct(b.change), threshold);
    case SpeedReason::kWithinThreshold:
      break;
  }
  return fmt::format("{} within the {:.0f}% threshold or not significant", pct(b.change),
                     threshold);
}

json speed_comparison_to_json(const SpeedComparison& c) {
  json rows = json::array();
  for (const auto& b : c.benchmarks)
    rows.push_back({{"name", b.name}, {"n_baseline", b.n_base}, {"n_current", b.n_cur},
                    {"median_baseline_ns", b.median_base}, {"median_current_ns", b.median_cur}, {"change", b.change},
                    {"raw_change", b.raw_change}, {"p", b.tested ? json(b.p) : json(nullptr)}, {"p_adjusted", b.tested ? json(b.p_adj) : json(nullptr)},
                    {"gated", b.gated}, {"verdict", speed_verdict_name(b.verdict)},
                    {"reason", speed_reason(b, c.options)}});
  return {{"kind", "speed_gate"},
          {"verdict", speed_verdict_name(c.verdict)},
          {"options",
           {{"threshold", c.options.threshold}, {"alpha", c.options.alpha},
            {"min_repetitions", c.options.min_repetitions}, {"adjust", stats::adjust_method_name(c.options.adjust)},
            {"time", c.time_key}, {"test", "two-sided Mann-Whitney U on the repetitions"},
            {"reference", c.options.reference.empty() ? json(nullptr) : json(c.options.reference)}}},
          {"counts",
           {{"regression", c.regressions}, {"improvement", c.improvements}, {"inconclusive", c.inconclusive},
            {"unreliable", c.unreliable}, {"no_change", c.unchanged}, {"tests", c.tests}}},
          {"benchmarks", rows},
          {"missing_in_current", c.missing_in_current},
          {"missing_in_baseline", c.missing_in_baseline}};
}

std::string speed_comparison_table(const SpeedComparison& c) {
  size_t w = 9;
  for (const auto& b : c.benchmarks) w = std::max(w, b.name.size());
  std::string out = fmt::format("{:<{}}  {:>13}  {:>13}  {:>8}  {:>9}  {:>5}  {}\n", "benchmark", w, "baseline",
                                "current", "change", "p (adj.)", "reps", "verdict");
  for (const auto& b : c.benchmarks)
    out += fmt::format("{:<{}}  {:>13}  {:>13}  {:>8}  {:>9}  {:>5}  {}\n", b.name, w, time_str(b.median_base),
                       time_str(b.median_cur), pct(b.change), b.tested ? fmt::format("{:.3g}", b.p_adj) : "-",
                       fmt::format("{}/{}", b.n_base, b.n_cur), b.gated ? speed_verdict_name(b.verdict)
                       : b.reason == SpeedReason::kReference ? "(reference, not gated)"
                                                             : "(ceiling, not gated)");
  for (const auto& n : c.missing_in_current) out += "missing in current: " + n + "\n";
  for (const auto& n : c.missing_in_baseline) out += "new (not in baseline): " + n + "\n";
  out += fmt::format(
      "speed gate: {} ({} regression, {} improvement, {} inconclusive, {} unreliable, {} no change; {} of {}, "
      "threshold {:.0f}%, {} at alpha {}, ≥ {} repetitions)\n",
      speed_verdict_name(c.verdict), c.regressions, c.improvements, c.inconclusive, c.unreliable, c.unchanged,
      c.time_key, c.benchmarks.size(), 100 * c.options.threshold, stats::adjust_method_name(c.options.adjust),
      c.options.alpha, c.options.min_repetitions);
  if (!c.options.reference.empty())
    out += fmt::format("change and test on times relative to {} (median {} in the baseline, {} in the current run; "
                       "the columns show raw medians)\n",
                       c.options.reference, time_str(c.reference_base), time_str(c.reference_cur));
  return out;
}

Document speed_comparison_document(const SpeedComparison& c) {
  Document d{std::string("Speed gate: ") + speed_verdict_name(c.verdict)};
  d.markdown_escape = MarkdownEscape::kNone;
  d.add(Heading{2, d.title});
  d.add(Paragraph{fmt::format(
      "{} benchmarks ({}): {} regression, {} improvement, {} inconclusive, {} unreliable, {} no change. A slowdown "
      "is a regression when it exceeds {:.0f}% and a two-sided Mann–Whitney U test on the repetitions is "
      "significant at {} after {} adjustment.",
      c.benchmarks.size(), c.time_key, c.regressions, c.improvements, c.inconclusive, c.unreliable, c.unchanged,
      100 * c.options.threshold, c.options.alpha, stats::adjust_method_name(c.options.adjust))});
  Table t{{{"benchmark"}, {"baseline", false, "", {}, true}, {"current", false, "", {}, true},
           {"change", false, "", {}, true}, {"p (adj.)", false, "", {}, true}, {"reps", false, "", {}, true},
           {"verdict"}}};
  for (const auto& b : c.benchmarks)
    t.rows.push_back({{Inline().code(b.name), time_str(b.median_base), time_str(b.median_cur), pct(b.change),
                       b.tested ? fmt::format("{:.3g}", b.p_adj) : "-", fmt::format("{}/{}", b.n_base, b.n_cur),
                       speed_verdict_name(b.verdict)}});
  d.add(std::move(t));
  if (!c.missing_in_current.empty())
    d.add(Paragraph{fmt::format("Missing in current: {}", fmt::join(c.missing_in_current, ", "))});
  if (!c.missing_in_baseline.empty())
    d.add(Paragraph{fmt::format("New (not in baseline): {}", fmt::join(c.missing_in_baseline, ", "))});
  d.json = speed_comparison_to_json(c);
  return d;
}

std::string speed_comparison_markdown(const SpeedComparison& c) {
  return MarkdownRenderer().render(speed_comparison_document(c));
}

std::string machine_difference_text(const std::vector<judge::ContextDifference>& d) {
  std::string out;
  for (const auto& x : d)
    out += fmt::format("{}{} {} → {}", out.empty() ? "" : "; ", x.key, x.baseline.dump(),
                       x.current.dump());
  return out;
}

json noise_calibration_to_json(const NoiseCalibration& c) {
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"name", r.name}, {"n_a", r.n_a}, {"n_b", r.n_b}, {"change", r.change}, {"spread", r.spread},
                    {"p", r.p}});
  return {{"kind", "speed_noise_calibration"},
          {"max_abs_change", c.max_abs_change},
          {"max_spread", c.max_spread},
          {"suggested_threshold", c.suggested_threshold},
          {"benchmarks", rows},
          {"gate", speed_comparison_to_json(c.gate)}};
}

Document noise_calibration_document(const NoiseCalibration& c) {
  Document d{"Speed noise (A/A)"};
  d.markdown_escape = MarkdownEscape::kNone;
  d.add(Heading{2, d.title});
  d.add(Paragraph{fmt::format("Largest |change| {:.1f}%, largest spread {:.1f}%, suggested threshold {:.0f}%.",
                              100 * c.max_abs_change, 100 * c.max_spread, 100 * c.suggested_threshold)});
  Document gate = speed_comparison_document(c.gate);
  for (auto& b : gate.blocks) d.blocks.push_back(std::move(b));
  d.json = noise_calibration_to_json(c);
  return d;
}

std::string noise_calibration_table(const NoiseCalibration& c) {
  size_t w = 9;
  for (const auto& r : c.rows) w = std::max(w, r.name.size());
  std::string out = fmt::format("{:<{}}  {:>9}  {:>11}  {:>8}  {:>5}\n", "benchmark", w, "A/A change", "spread (IQR)",
                                "p", "reps");
  for (const auto& r : c.rows)
    out += fmt::format("{:<{}}  {:>9}  {:>11}  {:>8.3g}  {:>5}\n", r.name, w, pct(r.change),
                       fmt::format("{:.1f}%", 100 * r.spread), r.p, fmt::format("{}/{}", r.n_a, r.n_b));
  out += fmt::format(
      "A/A: largest |change| {:.1f}%, largest within-run spread {:.1f}%; suggested --threshold {:.2f} "
      "({:.0f}%); at --threshold {:.2f} the gate says: {} ({} flagged)\n",
      100 * c.max_abs_change, 100 * c.max_spread, c.suggested_threshold, 100 * c.suggested_threshold,
      c.gate.options.threshold, speed_verdict_name(c.gate.verdict), c.gate.regressions);
  return out;
}

}  // namespace rb::reports
