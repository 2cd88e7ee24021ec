// The speed gate over Google Benchmark JSON files and the A/A noise calibration (see speed_gate.h).
#include "reports/speed_gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "reports/report.h"
#include "core/json_io.h"

namespace rb::reports {
namespace {

using nlohmann::json;

double unit_to_ns(const std::string& unit, const std::string& where) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw UsageError(where + ": time_unit: got '" + unit + "', expected ns, us, ms or s");
}

double median(const std::vector<double>& v) { return quantile(v, 0.5); }

std::string pct(double x) { return fmt::format("{:+.1f}%", 100.0 * x); }

std::string time_str(double ns) {
  if (ns >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

// The median of the reference benchmark in `f` (UsageError when `f` lacks it).
double reference_median(const BenchFile& f, const std::string& reference, const std::string& role) {
  auto it = f.runs.find(reference);
  if (it == f.runs.end()) {
    std::string names;
    for (const auto& [n, _] : f.runs) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("speed gate: --reference: the " + role + " file " + f.path + " has no benchmark '" + reference +
                     "' (it has: " + names + ")");
  }
  return median(it->second);
}

// `f` with every time divided by `scale` (a reference median; 1 without a reference).
BenchFile divided(BenchFile f, double scale) {
  for (auto& [_, times] : f.runs)
    for (auto& t : times) t /= scale;
  return f;
}

}  // namespace


namespace {

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

namespace {

// One benchmark both files hold: the raw medians and their change, the change relative to the reference, and
// the two-sided Mann–Whitney test on the (relative) repetitions when it is gated and has enough of them.
BenchComparison measure_bench(const std::string& name, const std::vector<double>& base_raw,
                              const std::vector<double>& cur_raw, const std::vector<double>& base,
                              const std::vector<double>& cur, const SpeedGateOptions& o) {
  BenchComparison b;
  b.name = name;
  b.n_base = static_cast<int64_t>(base.size());
  b.n_cur = static_cast<int64_t>(cur.size());
  b.median_base = median(base_raw);
  b.median_cur = median(cur_raw);
  b.raw_change = b.median_cur / b.median_base - 1.0;
  b.change = median(cur) / median(base) - 1.0;
  b.gated = name.rfind(kCeilingPrefix, 0) != 0 && name != o.reference;
  if (b.gated && b.n_base >= o.min_repetitions && b.n_cur >= o.min_repetitions) {
    b.p = stats::mann_whitney_u(cur, base, stats::Alternative::kTwoSided).p_value;
    b.tested = true;
  }
  return b;
}

// The verdict and its reason from the change and the adjusted p (see speed_gate.h).
void judge_bench(BenchComparison& b, const SpeedGateOptions& o) {
  const bool slower = b.change > o.threshold;
  const bool faster = b.change < -o.threshold;
  const bool sig = b.tested && stats::significant(b.p_adj, o.alpha);
  if (!b.gated) {
    b.verdict = SpeedVerdict::kNoChange;
    b.reason = fmt::format("{} ({}: shown, not gated)", pct(b.raw_change),
                           b.name == o.reference ? "the reference" : "machine ceiling");
  } else if (!b.tested) {
    b.verdict = SpeedVerdict::kUnreliable;
    b.reason = fmt::format("{} vs {} repetitions; at least {} per side are needed for a test", b.n_base, b.n_cur,
                           o.min_repetitions);
  } else if (slower && sig) {
    b.verdict = SpeedVerdict::kRegression;
    b.reason = fmt::format("slower by {} > {:.0f}% and significant (adjusted p = {:.3g})", pct(b.change),
                           100 * o.threshold, b.p_adj);
  } else if (faster && sig) {
    b.verdict = SpeedVerdict::kImprovement;
    b.reason = fmt::format("faster by {} and significant (adjusted p = {:.3g})", pct(b.change), b.p_adj);
  } else if (slower) {
    b.verdict = SpeedVerdict::kInconclusive;
    b.reason = fmt::format("slower by {} > {:.0f}% but not significant (adjusted p = {:.3g} > {})", pct(b.change),
                           100 * o.threshold, b.p_adj, o.alpha);
  } else {
    b.verdict = SpeedVerdict::kNoChange;
    b.reason = sig ? fmt::format("significant (adjusted p = {:.3g}) but {} is within the {:.0f}% threshold", b.p_adj,
                                 pct(b.change), 100 * o.threshold)
                   : fmt::format("{} within the {:.0f}% threshold or not significant", pct(b.change), 100 * o.threshold);
  }
}

// The counts of each verdict and the worst one.
void tally_verdicts(SpeedComparison& c) {
  const auto n = judge::count_verdicts<SpeedVerdict>(c.benchmarks);
  c.regressions = n.of(SpeedVerdict::kRegression);
  c.improvements = n.of(SpeedVerdict::kImprovement);
  c.inconclusive = n.of(SpeedVerdict::kInconclusive);
  c.unreliable = n.of(SpeedVerdict::kUnreliable);
  c.unchanged = n.of(SpeedVerdict::kNoChange);
  c.verdict = n.worst(SpeedVerdict::kNoChange);
}

void check_options(const BenchFile& baseline, const BenchFile& current, const SpeedGateOptions& o) {
  RB_CHECK_INPUT(o.threshold >= 0 && std::isfinite(o.threshold),
                 "speed gate: --threshold: got " + fmt::format("{}", o.threshold) + ", expected a fraction ≥ 0 (0.1 = 10%)");
  RB_CHECK_INPUT(o.alpha > 0 && o.alpha < 1, "speed gate: --alpha: got " + fmt::format("{}", o.alpha) + ", expected 0 < alpha < 1");
  RB_CHECK_INPUT(o.min_repetitions >= 2, "speed gate: minimum repetitions: got " + std::to_string(o.min_repetitions) +
                                             ", expected ≥ 2");
  if (baseline.time_key != current.time_key)
    throw UsageError("speed gate: the baseline times " + baseline.time_key + " and the current file " + current.time_key +
                     ", expected the same (both runs with the same --threads)");
}

}  // namespace

SpeedComparison compare_bench(const BenchFile& baseline, const BenchFile& current, const SpeedGateOptions& o) {
  check_options(baseline, current, o);
  SpeedComparison c;
  c.options = o;
  c.time_key = baseline.time_key;
  if (!o.reference.empty()) {
    c.reference_base = reference_median(baseline, o.reference, "baseline");
    c.reference_cur = reference_median(current, o.reference, "current");
  }
  // The change and the test use these: times relative to the reference (the raw times without one).
  const BenchFile base_rel = divided(baseline, o.reference.empty() ? 1.0 : c.reference_base);
  const BenchFile cur_rel = divided(current, o.reference.empty() ? 1.0 : c.reference_cur);
  for (const auto& [name, _] : baseline.runs)
    if (!current.runs.count(name)) c.missing_in_current.push_back(name);
  for (const auto& [name, _] : current.runs)
    if (!baseline.runs.count(name)) c.missing_in_baseline.push_back(name);
  std::vector<double> pvals;
  std::vector<size_t> tested;
  for (const auto& [name, base_raw] : baseline.runs) {
    auto it = current.runs.find(name);
    if (it == current.runs.end()) continue;
    c.benchmarks.push_back(
        measure_bench(name, base_raw, it->second, base_rel.runs.at(name), cur_rel.runs.at(name), o));
    if (c.benchmarks.back().tested) {
      pvals.push_back(c.benchmarks.back().p);
      tested.push_back(c.benchmarks.size() - 1);
    }
  }
  if (c.benchmarks.empty())
    throw UsageError("speed gate: the two benchmark files share no benchmark (baseline " +
                     std::to_string(baseline.runs.size()) + ", current " + std::to_string(current.runs.size()) +
                     "), expected the same benchmark names");
  const auto adj = stats::p_adjust(pvals, o.adjust);
  for (size_t i = 0; i < tested.size(); ++i) c.benchmarks[tested[i]].p_adj = adj[i];
  c.tests = static_cast<int64_t>(tested.size());
  for (auto& b : c.benchmarks) judge_bench(b, o);
  tally_verdicts(c);
  std::stable_sort(c.benchmarks.begin(), c.benchmarks.end(), [](const BenchComparison& x, const BenchComparison& y) {
    if (x.verdict != y.verdict) return x.verdict > y.verdict;
    return x.name < y.name;
  });
  return c;
}

int speed_exit_code(const SpeedComparison& c, bool fail_on_inconclusive) {
  return judge::gate_exit_code(judge::gate_effect(c.verdict), fail_on_inconclusive);
}

json speed_comparison_to_json(const SpeedComparison& c) {
  json rows = json::array();
  for (const auto& b : c.benchmarks)
    rows.push_back({{"name", b.name}, {"n_baseline", b.n_base}, {"n_current", b.n_cur},
                    {"median_baseline_ns", b.median_base}, {"median_current_ns", b.median_cur}, {"change", b.change},
                    {"raw_change", b.raw_change}, {"p", b.tested ? json(b.p) : json(nullptr)}, {"p_adjusted", b.tested ? json(b.p_adj) : json(nullptr)},
                    {"gated", b.gated}, {"verdict", speed_verdict_name(b.verdict)}, {"reason", b.reason}});
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
                       : b.name == c.options.reference ? "(reference, not gated)" : "(ceiling, not gated)");
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

// ---------------------------------------------------------------------------------------------------

NoiseCalibration calibrate_noise(const BenchFile& a, const BenchFile& b, const SpeedGateOptions& options) {
  NoiseCalibration cal;
  cal.gate = compare_bench(a, b, options);
  const BenchFile ra_file = divided(a, options.reference.empty() ? 1.0 : cal.gate.reference_base);
  const BenchFile rb_file = divided(b, options.reference.empty() ? 1.0 : cal.gate.reference_cur);
  for (const auto& [name, ra] : ra_file.runs) {
    auto it = rb_file.runs.find(name);
    if (it == rb_file.runs.end() || name == options.reference) continue;
    const auto& rb = it->second;
    NoiseRow r;
    r.name = name;
    r.n_a = static_cast<int64_t>(ra.size());
    r.n_b = static_cast<int64_t>(rb.size());
    r.change = median(rb) / median(ra) - 1.0;
    auto rel_iqr = [](const std::vector<double>& v) { return (quantile(v, 0.75) - quantile(v, 0.25)) / median(v); };
    r.spread = std::max(rel_iqr(ra), rel_iqr(rb));
    if (r.n_a >= 2 && r.n_b >= 2) r.p = stats::mann_whitney_u(rb, ra, stats::Alternative::kTwoSided).p_value;
    cal.max_abs_change = std::max(cal.max_abs_change, std::abs(r.change));
    cal.max_spread = std::max(cal.max_spread, r.spread);
    cal.rows.push_back(r);
  }
  const double raw = cal.max_abs_change + cal.max_spread;
  cal.suggested_threshold = std::max(0.01, std::ceil(raw * 100.0 - 1e-9) / 100.0);
  return cal;
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

// ---------------------------------------------------------------------------------------------------

bool is_bench_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    return is_bench_json(read_json_file(path));  // the same limits as every document the tool reads
  } catch (const UsageError&) {
    return false;
  }
}

// What the benchmark names do not pin: the machine. A benchmark's name carries the kernel, implementation
// and shape, so the same name is the same computation; but a different CPU model, core count or OpenBLAS
// core under the same names shifts every time. Says which differ ("" when none does).
std::string machine_difference(const BenchFile& base, const BenchFile& cur) {
  std::string out;
  for (const char* key : {"recallbench.cpu_model", "num_cpus", "recallbench.blas_core", "library_build_type"}) {
    const json a = base.context.is_object() && base.context.contains(key) ? base.context.at(key) : json(nullptr);
    const json b = cur.context.is_object() && cur.context.contains(key) ? cur.context.at(key) : json(nullptr);
    if (!a.is_null() && !b.is_null() && a != b) out += fmt::format("{}{} {} → {}", out.empty() ? "" : "; ", key, a.dump(), b.dump());
  }
  return out;
}

int run_speed_compare(const SpeedCompareRequest& r) {
  const BenchFile base = read_bench_file(r.baseline);
  const BenchFile cur = read_bench_file(r.current);
  if (const std::string diff = machine_difference(base, cur); !diff.empty())
    std::fprintf(stderr, "warning: the two benchmark files come from different machines or builds (%s): every time "
                         "shifts; --reference (times relative to a ceiling of the same run) cancels part of it\n",
                 diff.c_str());
  if (r.aa) {
    const NoiseCalibration cal = calibrate_noise(base, cur, r.options);
    std::fputs(noise_calibration_table(cal).c_str(), stdout);
    write_outputs(noise_calibration_document(cal), {r.json_out, "", r.md_out});
    std::fflush(stdout);
    return kExitOk;
  }
  const SpeedComparison c = compare_bench(base, cur, r.options);
  std::fputs(speed_comparison_table(c).c_str(), stdout);
  write_outputs(speed_comparison_document(c), {r.json_out, "", r.md_out});
  std::fflush(stdout);
  return speed_exit_code(c, r.fail_on_inconclusive);
}

}  // namespace rb::reports
