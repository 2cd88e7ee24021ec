// Google Benchmark of the statistics: Fisher's exact test on large tables (the target: a table
// with 10,000 per row in under 10 ms). In-run references: the p-value alone, and Boost.Math's own
// hypergeometric CDF for the same one-sided tail (a well-kept library computing part of the same job).
//   build-<you>/stats/stats_bench --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <boost/math/distributions/hypergeometric.hpp>

#include "stats/stats.h"

namespace {

using rb::stats::Table2x2;

// Row totals n each, rates 0.50 and 0.52: near the middle, the widest support (n + 1 tables).
Table2x2 table_for(int64_t n) { return Table2x2{n / 2, n - n / 2, n * 52 / 100, n - n * 52 / 100}; }

void BM_FisherFull(benchmark::State& state) {
  const Table2x2 t = table_for(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(rb::stats::fisher_exact(t));
  state.SetLabel("p, odds ratios, exact 95% CI");
}
BENCHMARK(BM_FisherFull)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMicrosecond);

void BM_FisherPValue(benchmark::State& state) {
  const Table2x2 t = table_for(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(rb::stats::fisher_p_value(t));
  state.SetLabel("two-sided p only");
}
BENCHMARK(BM_FisherPValue)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMicrosecond);

void BM_BoostHypergeomCdf(benchmark::State& state) {
  const Table2x2 t = table_for(state.range(0));
  // Boost's parameters: r = defective items (column 1 total), n = sample size (row 1), N = total.
  const boost::math::hypergeometric_distribution<double> dist(
      static_cast<unsigned>(t.a + t.c), static_cast<unsigned>(t.a + t.b), static_cast<unsigned>(t.a + t.b + t.c + t.d));
  for (auto _ : state) benchmark::DoNotOptimize(boost::math::cdf(dist, static_cast<unsigned>(t.a)));
  state.SetLabel("reference: Boost P(A <= a) only");
}
BENCHMARK(BM_BoostHypergeomCdf)->Arg(10)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_FisherPower(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(rb::stats::fisher_power(0.1, 0.7, n, n));
  state.SetLabel("exact power, (n+1)^2 outcomes");
}
BENCHMARK(BM_FisherPower)->Arg(10)->Arg(50)->Arg(200)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
