#include "reports/tuning_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"

namespace rb::reports {
namespace {

std::string number_or_dash(double x, const char* spec) {
  return std::isfinite(x) ? fmt::format(fmt::runtime(spec), x) : "–";
}

}  // namespace

std::string tuning_table(const std::vector<judge::RateChoice>& choices) {
  std::string out = fmt::format("{:<22} {:>9} {:>5} {:>10} {:>11} {:>14}\n", "cell", "lr", "runs", "locked in",
                                "mean steps", "median recall");
  for (const auto& c : choices) {
    for (const auto& r : c.rows)
      out += fmt::format("{:<22} {}{:>8} {:>5} {:>10} {:>11} {:>14}\n", &r == &c.rows.front() ? c.cell : "",
                         r.lr == c.lr ? "*" : " ", fmt::format("{:g}", r.lr), r.runs,
                         fmt::format("{}/{}", r.locked_in, r.runs), number_or_dash(r.mean_steps, "{:.0f}"),
                         number_or_dash(r.median_recall, "{:.3f}"));
    out += fmt::format("{:<22} chosen {:g} ({}){}{}\n", "", c.lr, judge::rate_reason_name(c.reason),
                       c.rows.size() < 3  ? ""
                       : c.interior()    ? ", inside the grid"
                                         : ", at the edge of the grid: widen it",
                       c.left_out > 0 ? fmt::format("; {} run(s) of other seeds left out", c.left_out) : "");
  }
  return out;
}

std::string rule_text(judge::TuningRule rule) {
  const char* time = "the shortest mean steps to lock-in (a run that never locked in counted at its budget)";
  const char* recall = "the higher median final recall";
  return rule == judge::TuningRule::kLockInsThenTime
             ? fmt::format("most lock-ins over the task points, then {}, then {}, then the lower rate", time, recall)
             : fmt::format("most lock-ins over the task points, then {}, then {}, then the lower rate", recall, time);
}

nlohmann::json rate_choice_json(const judge::RateChoice& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"lr", r.lr}, {"runs", r.runs}, {"locked_in", r.locked_in},
                    {"mean_steps", std::isfinite(r.mean_steps) ? nlohmann::json(r.mean_steps) : nlohmann::json(nullptr)},
                    {"median_recall", std::isfinite(r.median_recall) ? nlohmann::json(r.median_recall) : nlohmann::json(nullptr)}});
  return {{"cell", c.cell}, {"lr", c.lr}, {"reason", judge::rate_reason_name(c.reason)},
          {"interior", c.interior()}, {"left_out", c.left_out}, {"rates", rows}};
}

judge::RateChoice rate_choice_from_json(const nlohmann::json& j, const std::string& where) {
  judge::RateChoice c;
  with_json_errors(where, [&] {
    c.cell = require_field<std::string>(j, "cell", where);
    c.lr = require_field<double>(j, "lr", where);
    c.left_out = j.value("left_out", int64_t{0});
    const std::string reason = require_field<std::string>(j, "reason", where);
    bool known = false;
    for (auto r : {judge::RateReason::kOnlyRate, judge::RateReason::kMostLockIns, judge::RateReason::kShortestTime,
                   judge::RateReason::kHigherRecall, judge::RateReason::kLowerRate})
      if (reason == judge::rate_reason_name(r)) c.reason = r, known = true;
    if (!known) throw UsageError(where + ": field 'reason': '" + reason + "' is not a step of the rule");
    for (const auto& r : require_field<nlohmann::json>(j, "rates", where)) {
      judge::RateRow row;
      row.lr = require_field<double>(r, "lr", where + ".rates");
      row.runs = require_field<int64_t>(r, "runs", where + ".rates");
      row.locked_in = require_field<int64_t>(r, "locked_in", where + ".rates");
      row.mean_steps = r.value("mean_steps", nlohmann::json(nullptr)).is_number() ? r["mean_steps"].get<double>() : NAN;
      row.median_recall = r.value("median_recall", nlohmann::json(nullptr)).is_number() ? r["median_recall"].get<double>() : NAN;
      c.rows.push_back(row);
    }
  });
  if (c.rows.empty() || std::none_of(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.lr == c.lr; }))
    throw UsageError(where + ": the chosen rate is not one of its rows");
  return c;
}

nlohmann::json tuning_json(const std::vector<judge::RateChoice>& choices, const std::vector<int64_t>& tuning_seeds) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : choices) cells.push_back(rate_choice_json(c));
  return {{"kind", "recallbench.tuning"}, {"tuning_seeds", tuning_seeds}, {"cells", cells}};
}

}  // namespace rb::reports
