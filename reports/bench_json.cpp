// Google Benchmark JSON: the one reader and the report's throughput rows (see bench_json.h).
#include "reports/bench_json.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"

namespace rb::reports {
namespace {

using nlohmann::json;

// A row's time: absent is NaN (an errored row has none); present, it must be a finite non-negative number.
double time_or_nan(const json& row, const char* key, const std::string& where, const std::string& name) {
  if (!row.contains(key)) return NAN;
  const json& v = row.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw UsageError(fmt::format("{}: benchmark '{}': {} got {}, expected a time (a non-negative number)", where, name,
                                 key, v.dump().substr(0, 40)));
  return v.get<double>();
}

std::vector<BenchRecord> read_records(const json& doc, const std::string& where) {
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc.at("benchmarks").is_array())
    throw UsageError(where + ": got no 'benchmarks' array, expected Google Benchmark output "
                             "(--benchmark_format=json or --benchmark_out=FILE)");
  std::vector<BenchRecord> out;
  for (const auto& b : doc.at("benchmarks")) {
    if (!b.is_object()) throw UsageError(where + ": benchmarks: got a non-object row, expected objects");
    BenchRecord r;
    r.name = b.contains("name") ? b.at("name").get<std::string>() : b.value("run_name", std::string());
    r.run_name = b.contains("run_name") ? b.at("run_name").get<std::string>() : r.name;
    if (r.name.empty()) throw UsageError(where + ": got a benchmark row without a name, expected `name` or `run_name`");
    r.run_type = b.value("run_type", std::string("iteration"));
    r.aggregate_name = b.value("aggregate_name", std::string());
    r.error = b.contains("error_occurred") && b.at("error_occurred").is_boolean() && b.at("error_occurred").get<bool>();
    r.real_time = time_or_nan(b, "real_time", where, r.name);
    r.cpu_time = time_or_nan(b, "cpu_time", where, r.name);
    r.time_unit = b.value("time_unit", std::string("ns"));
    r.items_per_second = b.contains("items_per_second") && b.at("items_per_second").is_number()
                             ? b.at("items_per_second").get<double>()
                             : 0.0;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<BenchRecord> read_bench_records(const json& doc, const std::string& where) {
  // A field of another type (a row's run_type a number) is bad input naming the file, for every caller.
  return with_json_errors(where, [&] { return read_records(doc, where); });
}

bool is_bench_json(const json& doc) {
  return doc.is_object() && doc.contains("benchmarks") && doc.contains("context") && doc["benchmarks"].is_array();
}

std::vector<BenchRow> bench_rows(const json& bench) {
  std::vector<BenchRow> rows;
  if (bench.is_null()) return rows;
  const std::vector<BenchRecord> records = read_bench_records(bench, "bench JSON");
  // With repetitions, the median aggregate ("NAME_median") stands for them: the other aggregates, and the rows
  // NAME of a benchmark whose median row exists, are left out.
  const std::string suffix = "_median";
  const auto is_kept_aggregate = [](const BenchRecord& r) {
    return r.run_type != "aggregate" || r.aggregate_name == "median";
  };
  std::map<std::string, bool> has_median;
  for (const auto& r : records)
    if (is_kept_aggregate(r) && r.name.size() > suffix.size() &&
        r.name.compare(r.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      has_median[r.name.substr(0, r.name.size() - suffix.size())] = true;
  for (const auto& r : records)
    if (is_kept_aggregate(r) && !has_median.count(r.name))
      rows.push_back({r.name, r.items_per_second, std::isnan(r.real_time) ? 0.0 : r.real_time, r.time_unit});
  return rows;
}

}  // namespace rb::reports
