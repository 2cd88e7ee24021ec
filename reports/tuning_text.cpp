#include "reports/tuning_text.h"

#include <fmt/format.h>

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

nlohmann::json tuning_json(const std::vector<judge::RateChoice>& choices, const std::vector<int64_t>& tuning_seeds) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : choices) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows)
      rows.push_back({{"lr", r.lr}, {"runs", r.runs}, {"locked_in", r.locked_in},
                      {"mean_steps", std::isfinite(r.mean_steps) ? nlohmann::json(r.mean_steps) : nlohmann::json(nullptr)},
                      {"median_recall", std::isfinite(r.median_recall) ? nlohmann::json(r.median_recall) : nlohmann::json(nullptr)}});
    cells.push_back({{"cell", c.cell}, {"lr", c.lr}, {"reason", judge::rate_reason_name(c.reason)},
                     {"interior", c.interior()}, {"left_out", c.left_out}, {"rates", rows}});
  }
  return {{"kind", "recallbench.tuning"}, {"tuning_seeds", tuning_seeds}, {"cells", cells}};
}

}  // namespace rb::reports
