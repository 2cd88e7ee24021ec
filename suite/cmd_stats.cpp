// recallbench stats fisher|boschloo|binom-ci|binom-test|mannwhitney|logrank|padjust|power|seeds
// The statistics of stats/stats.h on the command line: human-readable by default, one JSON object on
// stdout with --json (keys listed in each subcommand's --help). Bad numbers exit 2 via UsageError.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/results.h"
#include "stats/stats.h"
#include "suite/cli.h"
#include "core/errors.h"

namespace rb {
namespace {

namespace st = rb::stats;
using nlohmann::json;

// JSON numbers: +-infinity as the strings "inf" / "-inf", NaN (undefined) as null (reports/results.h).
json jnum(double v) { return reports::json_number(v, reports::Infinity::kString); }

std::string fmt_num(double v) {
  if (std::isnan(v)) return "undefined";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

int64_t parse_count(const std::string& s, const std::string& what, int64_t min = 0) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    throw UsageError(fmt::format("{}: got '{}', expected a whole number >= {}", what, s, min));
  if (v < min) throw UsageError(fmt::format("{}: got {}, expected a whole number >= {}", what, v, min));
  return v;
}

double parse_real(const std::string& s, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || std::isnan(v) || std::isinf(v))
    throw UsageError(fmt::format("{}: got '{}', expected a finite number", what, s));
  return v;
}

double parse_probability(const std::string& s, const std::string& what) {
  const double v = parse_real(s, what);
  if (!(v >= 0.0 && v <= 1.0)) throw UsageError(fmt::format("{}: got {}, expected a probability in [0, 1]", what, s));
  return v;
}

double parse_open_unit(const std::string& s, const std::string& what) {
  const double v = parse_real(s, what);
  if (!(v > 0.0 && v < 1.0)) throw UsageError(fmt::format("{}: got {}, expected a number strictly between 0 and 1", what, s));
  return v;
}

std::vector<double> parse_list(const std::string& s, const std::string& what) {
  std::vector<double> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty())
      throw UsageError(fmt::format("{}: got '{}', an empty item in the list", what, s), "example: --x 0.91,0.95,0.99");
    out.push_back(parse_real(item, what));
  }
  if (!s.empty() && s.back() == ',')
    throw UsageError(fmt::format("{}: got '{}', an empty item in the list", what, s), "example: --x 0.91,0.95,0.99");
  if (out.empty())
    throw UsageError(fmt::format("{}: got '{}', expected a non-empty comma-separated list of numbers", what, s),
                     "example: --x 0.91,0.95,0.99");
  return out;
}

// Options shared by every stats subcommand that has them.
struct Common {
  bool json = false;
  std::string alternative = "two-sided";
  std::string level = "0.95";
};

void add_json(CLI::App* sub, Common& c) { sub->add_flag("--json", c.json, "One JSON object on stdout (keys below)"); }
void add_alternative(CLI::App* sub, Common& c, const char* help) {
  sub->add_option("--alternative", c.alternative, help)->capture_default_str();
}
void print_json(const json& j) { fmt::print("{}\n", j.dump(2)); }

// ------------------------------------------------------------------------------------------ fisher
struct TableArgs {
  std::string a, b, c, d;
  st::Table2x2 table() const {
    return {parse_count(a, "A (row 1 successes)"), parse_count(b, "B (row 1 failures)"),
            parse_count(c, "C (row 2 successes)"), parse_count(d, "D (row 2 failures)")};
  }
};

void add_table(CLI::App* sub, TableArgs& t) {
  sub->add_option("A", t.a, "Row 1 (e.g. candidate) successes: seeds locked in")->required();
  sub->add_option("B", t.b, "Row 1 failures: seeds not locked in")->required();
  sub->add_option("C", t.c, "Row 2 (e.g. baseline) successes")->required();
  sub->add_option("D", t.d, "Row 2 failures")->required();
}

int run_fisher(const TableArgs& args, const Common& c) {
  const st::Table2x2 t = args.table();
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const double level = parse_open_unit(c.level, "--level");
  const st::FisherResult r = st::fisher_exact(t, alt, level);
  if (c.json) {
    print_json({{"test", "fisher"}, {"table", {t.a, t.b, t.c, t.d}}, {"alternative", st::alternative_name(alt)},
                {"p_value", jnum(r.p_value)}, {"p_two_sided", jnum(r.p_two_sided)},
                {"p_greater", jnum(r.p_greater)}, {"p_less", jnum(r.p_less)}, {"odds_ratio", jnum(r.odds_ratio)},
                {"conditional_odds_ratio", jnum(r.conditional_odds_ratio)}, {"ci_low", jnum(r.ci_low)},
                {"ci_high", jnum(r.ci_high)}, {"conf_level", r.conf_level}});
    return kExitOk;
  }
  const int64_t n1 = t.a + t.b, n2 = t.c + t.d;
  auto rate = [](int64_t k, int64_t n) { return n ? fmt::format("{:.3f}", double(k) / double(n)) : std::string("-"); };
  fmt::print("Fisher's exact test ({})\n", st::alternative_name(alt));
  fmt::print("  row 1: {}/{} ({})   row 2: {}/{} ({})\n", t.a, n1, rate(t.a, n1), t.c, n2, rate(t.c, n2));
  fmt::print("  p = {}   (two-sided {}, greater {}, less {})\n", fmt_num(r.p_value), fmt_num(r.p_two_sided),
             fmt_num(r.p_greater), fmt_num(r.p_less));
  fmt::print("  odds ratio: sample {}, conditional MLE {}, {:g}% CI [{}, {}]\n", fmt_num(r.odds_ratio),
             fmt_num(r.conditional_odds_ratio), 100 * r.conf_level, fmt_num(r.ci_low), fmt_num(r.ci_high));
  return kExitOk;
}

// ---------------------------------------------------------------------------------------- boschloo
int run_boschloo(const TableArgs& args, const Common& c) {
  const st::Table2x2 t = args.table();
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const st::BoschlooResult r = st::boschloo_exact(t, alt);
  if (c.json) {
    print_json({{"test", "boschloo"}, {"table", {t.a, t.b, t.c, t.d}}, {"alternative", st::alternative_name(alt)},
                {"p_value", jnum(r.p_value)}, {"statistic", jnum(r.statistic)}, {"nuisance", jnum(r.nuisance)}});
    return kExitOk;
  }
  fmt::print("Boschloo's exact test ({})\n", st::alternative_name(alt));
  fmt::print("  row 1: {}/{}   row 2: {}/{}\n", t.a, t.a + t.b, t.c, t.c + t.d);
  fmt::print("  p = {}   (statistic: one-sided Fisher p {}; supremum at pi = {})\n", fmt_num(r.p_value),
             fmt_num(r.statistic), fmt_num(r.nuisance));
  return kExitOk;
}

// ---------------------------------------------------------------------------------------- binom-ci
struct BinomArgs {
  std::string k, n, p0 = "0.5", method = "clopper-pearson";
};

int run_binom_ci(const BinomArgs& a, const Common& c) {
  const int64_t n = parse_count(a.n, "N (trials)", 1);
  const int64_t k = parse_count(a.k, "K (successes)");
  if (k > n) throw UsageError(fmt::format("K: got {} successes out of N = {}, expected K <= N", k, n));
  const double level = parse_open_unit(c.level, "--level");
  std::vector<st::BinomCiMethod> methods;
  if (a.method == "all")
    methods = {st::BinomCiMethod::kClopperPearson, st::BinomCiMethod::kWilson, st::BinomCiMethod::kWilsonCc,
               st::BinomCiMethod::kJeffreys};
  else
    methods = {st::parse_binom_ci_method(a.method)};
  json all = json::object();
  if (!c.json) fmt::print("{}/{} = {:.4f}, {:g}% interval\n", k, n, double(k) / double(n), 100 * level);
  for (auto m : methods) {
    const st::Interval iv = st::binom_ci(k, n, m, level);
    all[st::binom_ci_method_name(m)] = {{"low", iv.low}, {"high", iv.high}};
    if (!c.json) fmt::print("  {:<16} [{:.6f}, {:.6f}]\n", st::binom_ci_method_name(m), iv.low, iv.high);
  }
  if (c.json) {
    json out = {{"k", k}, {"n", n}, {"estimate", double(k) / double(n)}, {"level", level}};
    if (methods.size() == 1) {
      out["method"] = st::binom_ci_method_name(methods[0]);
      out["low"] = all.begin().value()["low"];
      out["high"] = all.begin().value()["high"];
    } else {
      out["method"] = "all";
      out["intervals"] = all;
    }
    print_json(out);
  }
  return kExitOk;
}

// -------------------------------------------------------------------------------------- binom-test
int run_binom_test(const BinomArgs& a, const Common& c) {
  const int64_t n = parse_count(a.n, "N (trials)", 1);
  const int64_t k = parse_count(a.k, "K (successes)");
  if (k > n) throw UsageError(fmt::format("K: got {} successes out of N = {}, expected K <= N", k, n));
  const double p0 = parse_probability(a.p0, "P0 (null success rate)");
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const double level = parse_open_unit(c.level, "--level");
  const st::BinomTestResult r = st::binom_test(k, n, p0, alt, level);
  if (c.json) {
    print_json({{"test", "binomial"}, {"k", k}, {"n", n}, {"p0", p0}, {"alternative", st::alternative_name(alt)},
                {"p_value", r.p_value}, {"estimate", r.estimate}, {"ci_low", r.ci.low}, {"ci_high", r.ci.high},
                {"conf_level", level}});
    return kExitOk;
  }
  fmt::print("Exact binomial test ({}), H0: p = {}\n", st::alternative_name(alt), p0);
  fmt::print("  {}/{} = {:.4f}   p = {}\n", k, n, r.estimate, fmt_num(r.p_value));
  fmt::print("  {:g}% Clopper-Pearson interval [{:.6f}, {:.6f}]\n", 100 * level, r.ci.low, r.ci.high);
  return kExitOk;
}

// ------------------------------------------------------------------------------------- mannwhitney
struct MwArgs {
  std::string x, y, method = "auto";
  bool no_continuity = false;
};

int run_mannwhitney(const MwArgs& a, const Common& c) {
  const std::vector<double> x = parse_list(a.x, "--x"), y = parse_list(a.y, "--y");
  const st::Alternative alt = st::parse_alternative(c.alternative);
  st::MannWhitneyMethod method;
  if (a.method == "auto") method = st::MannWhitneyMethod::kAuto;
  else if (a.method == "exact") method = st::MannWhitneyMethod::kExact;
  else if (a.method == "normal") method = st::MannWhitneyMethod::kNormal;
  else throw UsageError(fmt::format("--method: got '{}', expected auto, exact or normal", a.method));
  const st::MannWhitneyResult r = st::mann_whitney_u(x, y, alt, method, !a.no_continuity);
  if (c.json) {
    print_json({{"test", "mann-whitney"}, {"alternative", st::alternative_name(alt)}, {"u", r.u},
                {"p_value", r.p_value}, {"method", r.method}, {"exact", r.exact}, {"z", r.z}, {"ties", r.ties},
                {"n_x", r.n_x}, {"n_y", r.n_y}});
    return kExitOk;
  }
  fmt::print("Mann-Whitney U test ({}), {} distribution{}\n", st::alternative_name(alt), r.method,
             r.exact ? "" : (a.no_continuity ? ", tie correction" : ", tie and continuity correction"));
  fmt::print("  n_x = {}, n_y = {}, U = {}, z = {:.4f}{}\n", r.n_x, r.n_y, r.u, r.z, r.ties ? ", ties present" : "");
  fmt::print("  p = {}\n", fmt_num(r.p_value));
  return kExitOk;
}

// ----------------------------------------------------------------------------------------- logrank
struct LogRankArgs {
  std::string a, b;
};

// "100,150,200+" -> events at 100 and 150, censored at 200 (a trailing + marks a censored time, as R
// prints them). Every item must be a time: an empty one ("1,,2") is an error.
std::vector<st::SurvivalObservation> parse_survival_list(const std::string& s, const std::string& what) {
  const std::string hint = "example: " + what + " 100,150,200+  (+: censored, never locked in by then)";
  if (s.empty()) throw UsageError(fmt::format("{}: got '', expected a comma-separated list of times", what), hint);
  std::vector<st::SurvivalObservation> out;
  size_t from = 0;
  for (;;) {
    const size_t comma = s.find(',', from);
    std::string item = s.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (item.empty())
      throw UsageError(fmt::format("{}: got an empty item in '{}', expected a time at every comma", what, s), hint);
    const bool censored = item.back() == '+';
    if (censored) item.pop_back();
    const double t = parse_real(item, what);
    if (t < 0) throw UsageError(fmt::format("{}: got time {}, expected a time >= 0", what, item), hint);
    out.push_back({t, !censored});
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

int run_logrank(const LogRankArgs& args, const Common& c) {
  const std::vector<st::SurvivalObservation> a = parse_survival_list(args.a, "--a"), b = parse_survival_list(args.b, "--b");
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const st::LogRankResult r = st::log_rank(a, b, alt);
  const double median_a = st::kaplan_meier_median(a), median_b = st::kaplan_meier_median(b);
  if (c.json) {
    print_json({{"test", "log-rank"}, {"alternative", st::alternative_name(alt)}, {"n_a", a.size()},
                {"n_b", b.size()}, {"observed_a", r.observed_a}, {"expected_a", r.expected_a},
                {"observed_b", r.observed_b}, {"expected_b", r.expected_b}, {"variance", r.variance},
                {"chi_square", r.chi_square}, {"z", r.z}, {"p_value", jnum(r.p_value)}, {"exact", r.exact},
                {"p_asymptotic", jnum(r.p_asymptotic)}, {"median_a", jnum(median_a)}, {"median_b", jnum(median_b)}});
    return kExitOk;
  }
  auto median = [](double m) { return std::isnan(m) ? std::string("not reached") : fmt_num(m); };
  fmt::print("Log-rank test ({}), {} p-value\n", st::alternative_name(alt),
             r.exact ? "exact permutation" : "normal-approximation (too large to enumerate)");
  fmt::print("  group a: n = {}, observed {}, expected {:.4f}, KM median {}\n", a.size(), r.observed_a, r.expected_a,
             median(median_a));
  fmt::print("  group b: n = {}, observed {}, expected {:.4f}, KM median {}\n", b.size(), r.observed_b, r.expected_b,
             median(median_b));
  fmt::print("  chi-square = {} (1 df), z = {:.4f}\n", fmt_num(r.chi_square), r.z);
  fmt::print("  p = {}   (asymptotic p {})\n", fmt_num(r.p_value), fmt_num(r.p_asymptotic));
  return kExitOk;
}

// ----------------------------------------------------------------------------------------- padjust
struct PadjArgs {
  std::vector<std::string> p;
  std::string method = "holm";
};

int run_padjust(const PadjArgs& a, const Common& c) {
  const st::AdjustMethod m = st::parse_adjust_method(a.method);
  if (a.p.empty()) throw UsageError("padjust: got no p-values, expected at least one", "example: stats padjust 0.01 0.04");
  std::vector<double> p;
  for (size_t i = 0; i < a.p.size(); ++i) p.push_back(parse_probability(a.p[i], fmt::format("p-value #{}", i + 1)));
  const std::vector<double> adj = st::p_adjust(p, m);
  if (c.json) {
    print_json({{"method", st::adjust_method_name(m)}, {"p", p}, {"adjusted", adj}});
    return kExitOk;
  }
  fmt::print("{} adjustment of {} p-values\n  {:>12} {:>12}\n", st::adjust_method_name(m), p.size(), "p", "adjusted");
  for (size_t i = 0; i < p.size(); ++i) fmt::print("  {:>12.6g} {:>12.6g}\n", p[i], adj[i]);
  return kExitOk;
}

// ------------------------------------------------------------------------------------ power, seeds
struct PowerArgs {
  std::string p1, p2, n, n2, alpha = "0.05", power = "0.8", max_n = "500";
};

int run_power(const PowerArgs& a, const Common& c) {
  const double p1 = parse_probability(a.p1, "--p1"), p2 = parse_probability(a.p2, "--p2");
  const int64_t n1 = parse_count(a.n, "--n", 1);
  const int64_t n2 = a.n2.empty() ? n1 : parse_count(a.n2, "--n2", 1);
  const double alpha = parse_open_unit(a.alpha, "--alpha");
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const double power = st::fisher_power(p1, p2, n1, n2, alpha, alt);
  const double min_p = st::min_attainable_p(n1, n2, alt);
  if (c.json) {
    print_json({{"test", "fisher"}, {"p1", p1}, {"p2", p2}, {"n1", n1}, {"n2", n2}, {"alpha", alpha},
                {"alternative", st::alternative_name(alt)}, {"power", power}, {"min_attainable_p", min_p},
                {"can_reach_significance", st::significant(min_p, alpha)}});
    return kExitOk;
  }
  fmt::print("Exact power of Fisher's test ({}, alpha {})\n", st::alternative_name(alt), alpha);
  fmt::print("  p1 = {} with {} seeds, p2 = {} with {} seeds: power {:.4f}\n", p1, n1, p2, n2, power);
  fmt::print("  smallest attainable p with these seeds: {}{}\n", fmt_num(min_p),
             st::significant(min_p, alpha) ? "" : "  (cannot reach significance: inconclusive by design)");
  return kExitOk;
}

int run_seeds(const PowerArgs& a, const Common& c) {
  const double p1 = parse_probability(a.p1, "--p1"), p2 = parse_probability(a.p2, "--p2");
  const double alpha = parse_open_unit(a.alpha, "--alpha");
  const double target = parse_open_unit(a.power, "--power");
  const int64_t max_n = parse_count(a.max_n, "--max-n", 1);
  const st::Alternative alt = st::parse_alternative(c.alternative);
  const st::SeedPlan plan = st::seeds_for_power(p1, p2, target, alpha, alt, max_n);
  if (c.json) {
    print_json({{"test", "fisher"}, {"p1", p1}, {"p2", p2}, {"alpha", alpha}, {"target_power", target},
                {"alternative", st::alternative_name(alt)}, {"n", plan.reached ? json(plan.n) : json(nullptr)},
                {"power", plan.power}, {"reached", plan.reached}, {"max_n", max_n}});
    return kExitOk;
  }
  if (plan.reached)
    fmt::print("{} seeds per configuration reach power {:.4f} >= {} (Fisher, {}, alpha {}, p1 {} vs p2 {})\n", plan.n,
               plan.power, target, st::alternative_name(alt), alpha, p1, p2);
  else
    fmt::print("no n <= {} reaches power {} (power at {}: {:.4f}; Fisher, {}, alpha {}, p1 {} vs p2 {})\n", max_n,
               target, max_n, plan.power, st::alternative_name(alt), alpha, p1, p2);
  return kExitOk;
}

constexpr const char* kAltHelp = "two-sided, greater (row 1 / x higher) or less";

// One function per test: its options, its --help footer, and its runner.
using Runners = std::vector<std::pair<CLI::App*, std::function<int()>>>;

void add_fisher(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto t = std::make_shared<TableArgs>();
  auto* sub = app.add_subcommand("fisher", "Fisher's exact test on a 2x2 table: A/(A+B) versus C/(C+D)");
  add_table(sub, *t);
  add_alternative(sub, *common, kAltHelp);
  sub->add_option("--level", common->level, "Confidence level of the odds-ratio interval")->capture_default_str();
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"fisher\"), table [A,B,C,D], alternative, p_value (for --alternative), p_two_sided\n"
      "(R's rule: tables with P <= P(observed)*(1+1e-7)), p_greater, p_less, odds_ratio (sample AD/BC),\n"
      "conditional_odds_ratio (conditional MLE, R's estimate), ci_low, ci_high (exact conditional interval),\n"
      "conf_level. Infinite values are the string \"inf\"; undefined ones (an empty row or column) null.\n"
      "Example: recallbench stats fisher 7 3 1 9  (7/10 vs 1/10: p = 0.0198)");
  runners.emplace_back(sub, [t, common] { return run_fisher(*t, *common); });
}

void add_boschloo(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto t = std::make_shared<TableArgs>();
  auto* sub = app.add_subcommand("boschloo", "Boschloo's exact unconditional test on a 2x2 table (small tables)");
  add_table(sub, *t);
  add_alternative(sub, *common, kAltHelp);
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"boschloo\"), table [A,B,C,D], alternative, p_value (two-sided: 2 x the smaller\n"
      "one-sided p, capped at 1), statistic (the observed one-sided Fisher p), nuisance (the success rate\n"
      "at which the supremum was found). Rows up to 2000.");
  runners.emplace_back(sub, [t, common] { return run_boschloo(*t, *common); });
}

void add_binom_ci(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto b = std::make_shared<BinomArgs>();
  auto* sub = app.add_subcommand("binom-ci", "Confidence interval for a proportion K/N");
  sub->add_option("K", b->k, "Successes")->required();
  sub->add_option("N", b->n, "Trials (>= 1)")->required();
  sub->add_option("--method", b->method, "clopper-pearson (exact), wilson, wilson-cc, jeffreys, or all")
      ->capture_default_str();
  sub->add_option("--level", common->level, "Confidence level")->capture_default_str();
  add_json(sub, *common);
  sub->footer(
      "JSON keys: k, n, estimate (K/N), level, method, low, high; with --method all: intervals {method:\n"
      "{low, high}} instead of low/high.");
  runners.emplace_back(sub, [b, common] { return run_binom_ci(*b, *common); });
}

void add_binom_test(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto b = std::make_shared<BinomArgs>();
  auto* sub = app.add_subcommand("binom-test", "Exact binomial test of K successes in N trials against rate P0");
  sub->add_option("K", b->k, "Successes")->required();
  sub->add_option("N", b->n, "Trials (>= 1)")->required();
  sub->add_option("P0", b->p0, "Success rate under the null hypothesis, in [0, 1]")->required();
  add_alternative(sub, *common, "two-sided, greater (rate above P0) or less");
  sub->add_option("--level", common->level, "Confidence level of the interval")->capture_default_str();
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"binomial\"), k, n, p0, alternative, p_value (two-sided: R's binom.test rule),\n"
      "estimate (K/N), ci_low, ci_high (Clopper-Pearson; one-sided for one-sided alternatives), conf_level.");
  runners.emplace_back(sub, [b, common] { return run_binom_test(*b, *common); });
}

void add_mannwhitney(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto m = std::make_shared<MwArgs>();
  auto* sub = app.add_subcommand("mannwhitney", "Mann-Whitney U test of two samples (e.g. timings)");
  sub->add_option("--x", m->x, "First sample, comma-separated numbers")->required();
  sub->add_option("--y", m->y, "Second sample, comma-separated numbers")->required();
  sub->add_option("--method", m->method,
                  "auto (exact when no ties and both samples <= 50), exact, or normal")
      ->capture_default_str();
  sub->add_flag("--no-continuity", m->no_continuity, "Normal approximation without the continuity correction");
  add_alternative(sub, *common, "two-sided, greater (x tends larger) or less");
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"mann-whitney\"), alternative, u (U of x: pairs with x > y, ties count 1/2),\n"
      "p_value, method (\"exact\" or \"normal\"), exact (bool), z (normal approximation of U of x), ties\n"
      "(bool), n_x, n_y.");
  runners.emplace_back(sub, [m, common] { return run_mannwhitney(*m, *common); });
}

void add_logrank(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto l = std::make_shared<LogRankArgs>();
  auto* sub = app.add_subcommand("logrank", "Log-rank test of two groups of censored lock-in times (exact p)");
  sub->add_option("--a", l->a, "Group a: comma-separated times; a trailing + marks a censored one (100,200+)")
      ->required();
  sub->add_option("--b", l->b, "Group b, the same way")->required();
  add_alternative(sub, *common, "two-sided, greater (a's events come sooner: higher hazard) or less");
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"log-rank\"), alternative, n_a, n_b, observed_a, expected_a, observed_b, expected_b\n"
      "(events and their expectation under H0, R's survdiff), variance (of O_a - E_a), chi_square, z\n"
      "((O_a - E_a) / sqrt(variance)), p_value (exact permutation p; the normal one when exact is false),\n"
      "exact (bool), p_asymptotic (from z), median_a, median_b (Kaplan-Meier medians, R's survfit rule;\n"
      "null when not reached).\n"
      "Example: recallbench stats logrank --a 150,200,200,1000+ --b 400,450,1000+,1000+ --alternative greater");
  runners.emplace_back(sub, [l, common] { return run_logrank(*l, *common); });
}

void add_padjust(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto p = std::make_shared<PadjArgs>();
  auto* sub = app.add_subcommand("padjust", "Adjust p-values for multiple comparisons (R's p.adjust)");
  sub->add_option("P", p->p, "p-values in [0, 1]")->required();
  sub->add_option("--method", p->method, "bonferroni, holm, hochberg, bh (Benjamini-Hochberg) or by")
      ->capture_default_str();
  add_json(sub, *common);
  sub->footer("JSON keys: method, p (the input), adjusted (same order as the input).");
  runners.emplace_back(sub, [p, common] { return run_padjust(*p, *common); });
}

void add_power(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto a = std::make_shared<PowerArgs>();
  auto* sub = app.add_subcommand("power", "Exact power of Fisher's test for lock-in rates p1 vs p2");
  sub->add_option("--p1", a->p1, "Lock-in rate of configuration 1 (row 1)")->required();
  sub->add_option("--p2", a->p2, "Lock-in rate of configuration 2 (row 2)")->required();
  sub->add_option("--n", a->n, "Seeds of configuration 1 (and of 2 unless --n2)")->required();
  sub->add_option("--n2", a->n2, "Seeds of configuration 2 (default: --n)");
  sub->add_option("--alpha", a->alpha, "Significance level")->capture_default_str();
  add_alternative(sub, *common, "two-sided, greater (p1 > p2) or less");
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"fisher\"), p1, p2, n1, n2, alpha, alternative, power (exact, by enumerating all\n"
      "outcomes), min_attainable_p (the smallest p any outcome can give), can_reach_significance (bool).");
  runners.emplace_back(sub, [a, common] { return run_power(*a, *common); });
}

void add_seeds(CLI::App& app, Runners& runners, const std::shared_ptr<Common>& common) {
  auto a = std::make_shared<PowerArgs>();
  auto* sub = app.add_subcommand("seeds", "Smallest equal number of seeds per configuration for a target power");
  sub->add_option("--p1", a->p1, "Lock-in rate of configuration 1")->required();
  sub->add_option("--p2", a->p2, "Lock-in rate of configuration 2")->required();
  sub->add_option("--power", a->power, "Target power")->capture_default_str();
  sub->add_option("--alpha", a->alpha, "Significance level")->capture_default_str();
  sub->add_option("--max-n", a->max_n, "Largest n tried (at most 1000: the search's work grows as max-n cubed; 1000 takes about 7 s when no n reaches the target)")->capture_default_str();
  add_alternative(sub, *common, "two-sided, greater (p1 > p2) or less");
  add_json(sub, *common);
  sub->footer(
      "JSON keys: test (\"fisher\"), p1, p2, alpha, target_power, alternative, n (seeds per configuration;\n"
      "null when no n <= max_n reaches the target), power (at n, or at max_n), reached (bool), max_n.");
  runners.emplace_back(sub, [a, common] { return run_seeds(*a, *common); });
}

CommandFn add_stats_command(CLI::App& app) {
  app.require_subcommand(1);
  auto runners = std::make_shared<Runners>();
  auto common = std::make_shared<Common>();
  add_fisher(app, *runners, common);
  add_boschloo(app, *runners, common);
  add_binom_ci(app, *runners, common);
  add_binom_test(app, *runners, common);
  add_mannwhitney(app, *runners, common);
  add_logrank(app, *runners, common);
  add_padjust(app, *runners, common);
  add_power(app, *runners, common);
  add_seeds(app, *runners, common);
  return [runners]() {
    for (const auto& [sub, fn] : *runners)
      if (sub->parsed()) return fn();
    throw UsageError("stats: no test given", "one of: fisher, boschloo, binom-ci, binom-test, mannwhitney, logrank, "
                                             "padjust, power, seeds");
  };
}

}  // namespace

RB_REGISTER(CommandRegistry, stats,
            CommandEntry{"stats",
                         "Exact tests on lock-in counts, intervals, multiple-comparison correction, power and "
                         "seed planning",
                         add_stats_command});

}  // namespace rb
