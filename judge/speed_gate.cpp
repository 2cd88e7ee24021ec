// The speed gate and the A/A noise calibration (see speed_gate.h).
#include "judge/speed_gate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/results.h"

namespace rb::judge {
namespace {

using nlohmann::json;

double median(const std::vector<double>& v) { return quantile(v, 0.5); }

// The median of the reference benchmark in `f` (UsageError when `f` lacks it).
double reference_median(const BenchFile& f, const std::string& reference, const std::string& role) {
  auto it = f.runs.find(reference);
  if (it == f.runs.end()) {
    std::string names;
    for (const auto& [n, _] : f.runs) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("speed gate: --reference: the " + role + " file " + f.path +
                     " has no benchmark '" + reference + "' (it has: " + names + ")");
  }
  return median(it->second);
}

// `f` with every time divided by `scale` (a reference median; 1 without a reference).
BenchFile divided(BenchFile f, double scale) {
  for (auto& [_, times] : f.runs)
    for (auto& t : times) t /= scale;
  return f;
}

// One benchmark both files hold: the raw medians and their change, the change relative to the
// reference, and the two-sided Mann–Whitney test on the (relative) repetitions when it is gated and
// has enough of them.
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
  auto set = [&b](SpeedVerdict v, SpeedReason r) {
    b.verdict = v;
    b.reason = r;
  };
  if (!b.gated)
    set(SpeedVerdict::kNoChange,
        b.name == o.reference ? SpeedReason::kReference : SpeedReason::kCeiling);
  else if (!b.tested)
    set(SpeedVerdict::kUnreliable, SpeedReason::kTooFewRepetitions);
  else if (slower && sig)
    set(SpeedVerdict::kRegression, SpeedReason::kSlowerSignificant);
  else if (faster && sig)
    set(SpeedVerdict::kImprovement, SpeedReason::kFasterSignificant);
  else if (slower)
    set(SpeedVerdict::kInconclusive, SpeedReason::kSlowerNotSignificant);
  else
    set(SpeedVerdict::kNoChange,
        sig ? SpeedReason::kSignificantWithinThreshold : SpeedReason::kWithinThreshold);
}

// The counts of each verdict and the worst one.
void tally_verdicts(SpeedComparison& c) {
  const auto n = count_verdicts<SpeedVerdict>(c.benchmarks);
  c.regressions = n.of(SpeedVerdict::kRegression);
  c.improvements = n.of(SpeedVerdict::kImprovement);
  c.inconclusive = n.of(SpeedVerdict::kInconclusive);
  c.unreliable = n.of(SpeedVerdict::kUnreliable);
  c.unchanged = n.of(SpeedVerdict::kNoChange);
  c.verdict = n.worst(SpeedVerdict::kNoChange);
}

void check_options(const BenchFile& baseline, const BenchFile& current, const SpeedGateOptions& o) {
  RB_CHECK_INPUT(o.threshold >= 0 && std::isfinite(o.threshold),
                 "speed gate: --threshold: got " + fmt::format("{}", o.threshold) +
                     ", expected a fraction ≥ 0 (0.1 = 10%)");
  RB_CHECK_INPUT(
      o.alpha > 0 && o.alpha < 1,
      "speed gate: --alpha: got " + fmt::format("{}", o.alpha) + ", expected 0 < alpha < 1");
  RB_CHECK_INPUT(o.min_repetitions >= 2, "speed gate: minimum repetitions: got " +
                                             std::to_string(o.min_repetitions) + ", expected ≥ 2");
  if (baseline.time_key != current.time_key)
    throw UsageError("speed gate: the baseline times " + baseline.time_key +
                     " and the current file " + current.time_key +
                     ", expected the same (both runs with the same --threads)");
}

// The benchmarks both files hold, measured, with the adjusted p of the tested ones; c.tests
// counted.
void measure_shared(const BenchFile& baseline, const BenchFile& current, const BenchFile& base_rel,
                    const BenchFile& cur_rel, SpeedComparison& c) {
  std::vector<double> pvals;
  std::vector<size_t> tested;
  for (const auto& [name, base_raw] : baseline.runs) {
    auto it = current.runs.find(name);
    if (it == current.runs.end()) continue;
    c.benchmarks.push_back(measure_bench(name, base_raw, it->second, base_rel.runs.at(name),
                                         cur_rel.runs.at(name), c.options));
    if (c.benchmarks.back().tested) {
      pvals.push_back(c.benchmarks.back().p);
      tested.push_back(c.benchmarks.size() - 1);
    }
  }
  if (c.benchmarks.empty())
    throw UsageError("speed gate: the two benchmark files share no benchmark (baseline " +
                     std::to_string(baseline.runs.size()) + ", current " +
                     std::to_string(current.runs.size()) + "), expected the same benchmark names");
  const auto adj = stats::p_adjust(pvals, c.options.adjust);
  for (size_t i = 0; i < tested.size(); ++i) c.benchmarks[tested[i]].p_adj = adj[i];
  c.tests = static_cast<int64_t>(tested.size());
}

}  // namespace

SpeedComparison compare_bench(const BenchFile& baseline, const BenchFile& current,
                              const SpeedGateOptions& o) {
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
  measure_shared(baseline, current, base_rel, cur_rel, c);
  for (auto& b : c.benchmarks) judge_bench(b, o);
  tally_verdicts(c);
  std::stable_sort(c.benchmarks.begin(), c.benchmarks.end(),
                   [](const BenchComparison& x, const BenchComparison& y) {
                     if (x.verdict != y.verdict) return x.verdict > y.verdict;
                     return x.name < y.name;
                   });
  return c;
}

int speed_exit_code(const SpeedComparison& c, bool fail_on_inconclusive) {
  return gate_exit_code(gate_effect(c.verdict), fail_on_inconclusive);
}

// A benchmark's name carries the kernel, implementation and shape, so the same name is the same
// computation; but a different CPU model, core count or OpenBLAS core under the same names shifts
// every time.
std::vector<ContextDifference> machine_difference(const BenchFile& base, const BenchFile& cur) {
  return context_difference(base.context, cur.context,
                            {"recallbench.cpu_model", "num_cpus", "recallbench.blas_core", "library_build_type"});
}

NoiseCalibration calibrate_noise(const BenchFile& a, const BenchFile& b,
                                 const SpeedGateOptions& options) {
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
    auto rel_iqr = [](const std::vector<double>& v) {
      return (quantile(v, 0.75) - quantile(v, 0.25)) / median(v);
    };
    r.spread = std::max(rel_iqr(ra), rel_iqr(rb));
    if (r.n_a >= 2 && r.n_b >= 2)
      r.p = stats::mann_whitney_u(rb, ra, stats::Alternative::kTwoSided).p_value;
    cal.max_abs_change = std::max(cal.max_abs_change, std::abs(r.change));
    cal.max_spread = std::max(cal.max_spread, r.spread);
    cal.rows.push_back(r);
  }
  const double raw = cal.max_abs_change + cal.max_spread;
  cal.suggested_threshold = std::max(0.01, std::ceil(raw * 100.0 - 1e-9) / 100.0);
  return cal;
}

}  // namespace rb::judge
