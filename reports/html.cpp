// The HTML report: one self-contained file (inline CSS, inline SVG charts, a few lines of inline script
// for sorting; no network access), readable on a laptop and on a phone. Order: verdict and regressions,
// results by cell, recall versus pairs and length, the lock-in lottery, contrasts, learning curves, kernel
// throughput, configuration details, context.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/document.h"
#include "reports/html_parts.h"
#include "reports/report_assets.h"
#include "reports/report_sections.h"
#include "reports/report.h"
#include "core/errors.h"
#include "core/json_io.h"

namespace rb::reports {

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string esc(const std::string& s) { return html_escape(s); }

const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
constexpr const char* kLocked = "#1a9850";
constexpr const char* kNotLocked = "#d73027";

std::string fmt_num(double v, int digits = 3) {
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  if (!std::isfinite(v)) return "–";
  return fmt::format("{:.{}f}", v, digits);
}

std::string fmt_si(double v) {
  if (!std::isfinite(v) || v <= 0) return "–";
  const char* units[] = {"", "k", "M", "G", "T"};
  int u = 0;
  while (v >= 1000.0 && u < 4) {
    v /= 1000.0;
    ++u;
  }
  return fmt::format("{:.3g}{}", v, units[u]);
}

// ---- page sections ---------------------------------------------------------------------------------

// What the gate compared and under which rule: the verdict sentence.
std::string verdict_sentence(const ReportInput& in, const judge::Comparison& c) {
  return fmt::format("{} configs compared against {}. Identity is checked first and is never "
                     "a matter of statistics: a config whose model (state size, parameters, architecture), task "
                     "(held-out set fingerprint) or training data stream (first batches' fingerprint, per seed) changed "
                     "under the same key is not compared{}{}, and seeds of one config that saw the same training "
                     "batches are not independent and are never compared. Then a regression needs a significant change (alpha "
                     "{}: {}) whose one-sided upper bound reaches a minimum effect ({}){}.",
                     esc(verdict_counts(c)), "<code>" + esc(in.baseline_path) + "</code>",
                     c.options.allow_model_change ? " (models here compared anyway: --allow-model-change)" : "",
                     c.options.allow_data_change ? " (data here compared anyway: --allow-data-change)" : "",
                     c.options.alpha, esc(gate_rule_text(c)), esc(min_effects(c.options)),
                     esc(data_unchecked_note(c) + machine_note(c)));
}

// Every config whose verdict is not "no change": verdict, config, lock-in and recall before and after, why.
Table verdict_table(const judge::Comparison& c) {
  Table t{{{"verdict"}, {"config"}, {"lock-in (baseline → now)"}, {"median recall"}, {"seeds needed"}, {"why"}}};
  t.cls = "changes";
  t.labelled = true;
  t.columns[2].data_label = "lock-in";
  for (const auto& cc : c.configs) {
    if (cc.verdict == judge::Verdict::kNoChange) continue;
    Cell why(gate_reason(cc, c.options));
    why.cls = "why";
    t.rows.push_back({{Inline().strong(judge::verdict_name(cc.verdict)),
                       Inline(cc.current->cell + " · " + cc.current->task_label())
                           .raw("<div class=\"key\">" + esc(cc.key) + "</div>", " (" + cc.key + ")"),
                       fmt::format("{}/{} → {}/{}", cc.baseline_tally().k, cc.baseline_tally().n, cc.current_tally().k,
                                   cc.current_tally().n),
                       fmt_num(cc.recall_baseline()) + " → " + fmt_num(cc.recall_current()),
                       cc.planning.seeds > 0 ? std::to_string(cc.planning.seeds) : "–", why},
                      tone_class(tone_of(cc.verdict))});
  }
  return t;
}

// A titled list of config keys (missing or new), added only when there are some.
void add_keys(Group& g, const char* title, const char* note, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  g.add(Paragraph{Inline().strong(title).text(note)});
  List list;
  list.cls = "keys";
  for (const auto& k : keys) list.items.push_back(Inline().code(k));
  g.add(std::move(list));
}

Group section_verdict(const ReportInput& in) {
  const Tone tone = in.comparison ? tone_of(in.comparison->verdict()) : Tone::kNeutral;
  Group g{Group::Kind::kSection, "verdict", std::string("verdict ") + tone_class(tone)};
  g.add(Heading{2, "Verdict: " + report_verdict(in)});
  if (!in.comparison) {
    g.add(Paragraph{Inline("No baseline was given: these are results only, nothing was gated. Pass ")
                        .code("--baseline FILE")
                        .text(" to compare against a stored baseline.")});
    return g;
  }
  const judge::Comparison& c = *in.comparison;
  g.add(Paragraph{Inline().raw(verdict_sentence(in, c))});
  Table t = verdict_table(c);
  if (!t.rows.empty()) g.add(std::move(t));
  if (const std::string battery = battery_text(c.battery); !battery.empty()) g.add(Paragraph{Inline(battery)});
  add_keys(g, "Planned but not run", " (the comparison is inconclusive until they are):", c.missing_planned);
  add_keys(g, "Baseline seeds with no run here", " (the paired test needs them: inconclusive until they are run):",
           c.missing_paired);
  add_keys(g, "In the baseline but missing from these results", " (not compared):", c.missing_in_current);
  add_keys(g, "New, not in the baseline", " (not gated):", c.missing_in_baseline);
  return g;
}

// A column of the results-by-cell table: the task with the options that vary among this task's configs (all of them when
// none varies), the state budget, and the curriculum when not "none".
std::string column_of(const Config& c, const std::vector<Config>& all) {
  std::string label = c.task;
  std::string every = c.task;
  for (const auto& [k, v] : c.task_options.items()) {
    if (!v.is_primitive()) continue;
    const std::string kv = " " + k + ":" + (v.is_string() ? v.get<std::string>() : v.dump());
    every += kv;
    bool varies = false;
    for (const auto& o : all)
      if (o.task == c.task && (!o.task_options.contains(k) || o.task_options.at(k) != v)) varies = true;
    if (varies) label += kv;
  }
  if (label == c.task) label = every;
  std::string col = label + " · budget " + (c.state_budget > 0 ? std::to_string(c.state_budget) : "default");
  const std::string cur = c.curriculum();
  if (cur != "none") col += " · " + cur;
  return col;
}

// Results by cell: one row per cell, one column per task point. Not a ranking ("leaderboard" means `recallbench
// leaderboard`, whose top groups are tested): the rows are in order of mean recall, a summary only.
constexpr const char* kByCellNote =
    "Per cell and task (at the state budget shown): the median per-seed recall (held-out accuracy at the end of "
    "training), and below it the lock-in count k/n with its exact 95% interval (Clopper–Pearson; the bar marks the "
    "interval and the rate). Rows are in order of mean recall, a summary, not a ranking: compare counts of "
    "locked-in seeds, and rank cells with ";

Cell empty_cell() {
  Cell c("–");
  c.sort = "nan";
  c.cls = "empty";
  return c;
}

// One config in the results-by-cell table: its median recall, its verdict when it changed, its lock-in count
// with the interval bar, its state and capacity floor.
Cell by_cell_cell(const Config& c, const std::map<std::string, judge::Verdict>& verdict_of) {
  const auto sm = judge::summarize(c);
  Inline content = Inline().strong(fmt_num(sm.recall.median));
  const auto v = verdict_of.find(c.key);
  if (v != verdict_of.end() && v->second != judge::Verdict::kNoChange)
    content.text(" ").badge(tone_of(v->second), judge::verdict_name(v->second));
  content.raw("<div class=\"sub\">", " (")
      .text(fmt::format("{}/{} locked ", sm.k, sm.n))
      .interval(sm.ci.low, sm.ci.high, sm.rate)
      .text(fmt::format(" [{:.2f}, {:.2f}]", sm.ci.low, sm.ci.high))
      .raw("</div><div class=\"sub\">", "; ")
      .text(fmt::format("state {} · floor {:.0f} bits", c.state_size, c.capacity_bits))
      .raw("</div>", ")");
  Cell cell(content);
  cell.sort = fmt::format("{:.6f}", sm.recall.median);
  cell.title = c.key;
  return cell;
}

// A cell's row of the by-cell table: its mean over the columns it has of the median recall and the lock-in rate.
struct CellMeans {
  std::string cell;
  double mean_recall = 0;
  double mean_rate = 0;
};

// One row per cell, best mean recall first (ties by name).
std::vector<CellMeans> cells_by_mean_recall(const std::set<std::string>& cells, const std::vector<std::string>& columns,
                                            const std::map<std::pair<std::string, std::string>, const Config*>& cell_at) {
  std::vector<CellMeans> rows;
  for (const auto& cell : cells) {
    CellMeans r{cell};
    int n = 0;
    for (const auto& col : columns) {
      auto it = cell_at.find({cell, col});
      if (it == cell_at.end()) continue;
      const auto s = judge::summarize(*it->second);
      r.mean_recall += s.recall.median;
      r.mean_rate += s.rate;
      ++n;
    }
    if (n) {
      r.mean_recall /= n;
      r.mean_rate /= n;
    }
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const CellMeans& a, const CellMeans& b) {
    return a.mean_recall != b.mean_recall ? a.mean_recall > b.mean_recall : a.cell < b.cell;
  });
  return rows;
}

Group section_by_cell(const RunSet& runs, const std::map<std::string, judge::Verdict>& verdict_of) {
  std::vector<std::string> columns;
  std::map<std::pair<std::string, std::string>, const Config*> cell_at;
  std::set<std::string> cells;
  for (const auto& c : runs.configs) {
    std::string col = column_of(c, runs.configs);
    if (cell_at.count({c.cell, col})) col += " · " + c.key.substr(c.key.size() - 6);
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
    cell_at[{c.cell, col}] = &c;
    cells.insert(c.cell);
  }
  const std::vector<CellMeans> rows = cells_by_mean_recall(cells, columns, cell_at);
  Group g{Group::Kind::kSection, "by-cell"};
  g.add(Heading{2, "Results by cell"});
  g.add(Paragraph{Inline(kByCellNote).code("recallbench leaderboard").text(" (tested top groups). Click a column to sort."),
                  "note"});
  Table t{{{"#"}, {"cell"}, {"mean recall", true}, {"mean lock-in", true}}};
  t.cls = "sortable";
  t.id = "by-cell-table";
  for (const auto& col : columns) t.columns.push_back({col, true});
  int rank = 0;
  for (const auto& r : rows) {
    Row row{{std::to_string(++rank), r.cell, Inline().strong(fmt_num(r.mean_recall)),
             fmt::format("{:.0f}%", 100 * r.mean_rate)}};
    row.cells[1].header = true;
    row.cells[2].sort = fmt::format("{:.6f}", r.mean_recall);
    row.cells[3].sort = fmt::format("{:.6f}", r.mean_rate);
    for (const auto& col : columns) {
      auto it = cell_at.find({r.cell, col});
      row.cells.push_back(it == cell_at.end() ? empty_cell() : by_cell_cell(*it->second, verdict_of));
    }
    t.rows.push_back(std::move(row));
  }
  g.add(std::move(t));
  return g;
}

// Recall versus one task option (pairs or length): configs grouped by everything else; one chart per
// group with at least two values of the option, one line per cell.
void sweep_charts(const RunSet& runs, const std::string& option, const std::map<std::string, std::string>& color_of,
                  std::vector<Figure>& figures) {
  std::map<std::string, std::vector<const Config*>> groups;
  for (const auto& c : runs.configs) {
    if (!std::isfinite(c.task_number(option))) continue;
    json rest = c.task_options;
    rest.erase(option);
    json model = c.model;
    const std::string g =
        json{{"task", c.task}, {"options", rest}, {"model", model}, {"train", c.train()}}.dump();
    groups[g].push_back(&c);
  }
  for (const auto& [g, configs] : groups) {
    std::set<double> xs;
    for (const auto* c : configs) xs.insert(c->task_number(option));
    if (xs.size() < 2) continue;
    std::map<std::string, Series> by_cell;
    for (const auto* c : configs) {
      auto& se = by_cell[c->cell];
      se.label = c->cell;
      se.color = color_of.at(c->cell);
      const auto sm = judge::summarize(*c);
      se.points.push_back({c->task_number(option), sm.recall.median});
      se.ranges.push_back({sm.recall.min, sm.recall.max});
    }
    std::vector<Series> series;
    for (auto& entry : by_cell) {
      const Series& se = entry.second;  // named, not a structured binding: the sort's lambda captures it (C++17)
      std::vector<size_t> idx(se.points.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return se.points[a].first < se.points[b].first; });
      Series sorted = se;
      for (size_t i = 0; i < idx.size(); ++i) {
        sorted.points[i] = se.points[idx[i]];
        sorted.ranges[i] = se.ranges[idx[i]];
      }
      series.push_back(sorted);
    }
    const double lo = *xs.begin(), hi = *xs.rbegin();
    const bool log2 = lo > 0 && hi / lo >= 4;
    json rest = configs.front()->task_options;
    rest.erase(option);
    std::string where = configs.front()->task;
    for (const auto& [k, v] : rest.items())
      if (v.is_primitive()) where += " " + k + ":" + (v.is_string() ? v.get<std::string>() : v.dump());
    const std::string title = "recall vs " + option + " · " + where;
    figures.push_back({title, LineChart{title, Axis{option, lo, hi, log2}, Axis{"median recall (whiskers: min–max)", 0, 1},
                                        series}});
  }
}

Group section_sweeps(const RunSet& runs, const std::map<std::string, std::string>& color_of) {
  std::vector<Figure> figures;
  sweep_charts(runs, "pairs", color_of, figures);
  sweep_charts(runs, "length", color_of, figures);
  Group g{Group::Kind::kSection, "sweeps"};
  g.add(Heading{2, "Recall versus pairs and length"});
  if (figures.empty()) {
    g.add(Paragraph{"These results hold a single value of pairs and of length for each setting; a battery sweeping them "
                    "draws one line per cell here.",
                    "note"});
    return g;
  }
  g.add(Paragraph{"Median per-seed recall per cell; whiskers span the seeds (min–max).", "note"});
  Group grid{Group::Kind::kDiv, "", "grid"};
  for (auto& f : figures) grid.add(std::move(f));
  g.add(std::move(grid));
  return g;
}

// The two colours of a seed, locked in and not, as a note names them: `locked` + `between` + `not_locked`.
Inline colour_key(const std::string& locked, const std::string& between, const std::string& not_locked) {
  return Inline().color(kLocked, locked).text(between).color(kNotLocked, not_locked);
}

Group section_lottery(const RunSet& runs) {
  Group g{Group::Kind::kSection, "lottery"};
  g.add(Heading{2, "The lock-in lottery"});
  g.add(Paragraph{Inline("One dot per seed at its final held-out accuracy: ")
                      .append(colour_key("●", " locked in, ", "○"))
                      .text(" not. The dashed line is the lock-in threshold. Compare counts of locked-in seeds, not means."),
                  "note"});
  StripChart strip{kLocked, kNotLocked, {}};
  for (const auto& c : runs.configs) {
    const auto sm = judge::summarize(c);
    StripChart::Row row{Inline().strong(c.cell).text(" " + c.task_label()), fmt::format("{}/{} locked in", sm.k, sm.n),
                        "seeds of " + c.key, c.threshold(), {}};
    for (const auto& seed : c.seeds)
      row.dots.push_back({seed.final_accuracy, seed.locked_in(),
                          fmt::format("seed {}: {} accuracy {:.3f}{}", seed.seed,
                                      seed.locked_in() ? "locked in," : "not locked in,", seed.final_accuracy,
                                      !seed.ok() ? " (" + std::string(run_status_name(seed.status)) + ")" : "")});
    strip.rows.push_back(std::move(row));
  }
  g.add(std::move(strip));
  return g;
}

Group section_contrasts(const std::vector<ContrastResult>& contrasts) {
  if (contrasts.empty()) return {};
  const std::string adjust = contrasts.front().adjust;
  Group g{Group::Kind::kSection, "contrasts"};
  g.add(Heading{2, "Contrasts"});
  g.add(Paragraph{"Pairs of configurations that differ in one knob. Two-sided Fisher exact test on the lock-in counts, " +
                      adjust + "-adjusted across the contrasts; the odds ratio is the conditional maximum-likelihood "
                      "estimate with its exact 95% interval.",
                  "note"});
  Table t{{{"contrast"}, {"lock-in (with · without)"}, {"rate diff"}, {"recall diff (median)"}, {"p"},
           {"p (" + adjust + ")"}, {"odds ratio [95%]"}}};
  for (const auto& r : contrasts) {
    if (r.missing) {
      Cell none("an arm has no results");
      none.colspan = 6;
      t.rows.push_back({{r.spec.name, none}});
      continue;
    }
    Inline name(r.spec.name);
    if (!r.spec.declared) name.text(" ").sub("(inferred)");
    t.rows.push_back({{name, fmt::format("{}/{} · {}/{}", r.k_a, r.n_a, r.k_b, r.n_b), fmt::format("{:+.2f}", r.rate_diff),
                       fmt::format("{:+.3f}", r.recall_diff), fmt::format("{:.3g}", r.p),
                       Inline().strong(fmt::format("{:.3g}", r.p_adj)).text(r.significant ? " significant" : ""),
                       fmt_num(r.odds_ratio, 2) + " [" + fmt_num(r.or_low, 2) + ", " + fmt_num(r.or_high, 2) + "]"},
                      r.significant ? std::optional<std::string>("sig") : std::nullopt});
  }
  g.add(std::move(t));
  return g;
}

Group section_curves(const RunSet& runs) {
  Group grid{Group::Kind::kDiv, "", "grid"};
  for (const auto& c : runs.configs) {
    std::vector<Series> series;
    double max_step = 1;
    for (const auto& seed : c.seeds) {
      if (seed.curve.empty()) continue;
      Series se;
      se.label = seed.locked_in() ? "locked in" : "not locked in";
      se.color = seed.locked_in() ? kLocked : kNotLocked;
      se.width = 1.4;
      se.opacity = 0.8;
      for (const auto& p : seed.curve) {
        se.points.push_back({static_cast<double>(p.step), p.accuracy});
        max_step = std::max(max_step, static_cast<double>(p.step));
      }
      series.push_back(se);
    }
    if (series.empty()) continue;
    grid.add(Figure{Inline().strong(c.cell).text(" · " + c.task_label()),
                    LineChart{c.cell + " · " + c.task_label(), Axis{"step", 0, max_step}, Axis{"held-out accuracy", 0, 1},
                              series, c.threshold()}});
  }
  if (grid.blocks.empty()) return {};
  Group g{Group::Kind::kSection, "curves"};
  g.add(Heading{2, "Learning curves"});
  g.add(Paragraph{Inline("Held-out accuracy against training step, one line per seed (")
                      .append(colour_key("locked in", ", ", "not"))
                      .text("); the dashed line is the lock-in threshold."),
                  "note"});
  g.add(std::move(grid));
  return g;
}

// The lock-in lottery as a survival curve: per compared config, the Kaplan–Meier share of seeds not yet
// locked in against the training step, baseline (grey, dashed) and now; a seed that never locked in is
// censored at the step budget. A curve shifted right is slower learning, one that stays higher is fewer
// lock-ins: what the log-rank test in the gate measures.
// A survival figure's caption: the config, its verdict, the log-rank test, the medians and what the gate detects.
Inline survival_caption(const judge::ConfigComparison& cc, const judge::Comparison& c) {
  Inline caption = Inline().strong(cc.current->cell).text(" · " + cc.current->task_label() + " · ");
  caption.badge(tone_of(cc.verdict), judge::verdict_name(cc.verdict)).raw("<br>", " ");
  caption.text(fmt::format("log-rank p slower {} (adjusted {}), median steps {} → {}", fmt_num(cc.slower.p),
                           fmt_num(cc.slower.p_adjusted),
                           std::isfinite(cc.median_time_baseline()) ? fmt::format("{:.0f}", cc.median_time_baseline()) : "never",
                           std::isfinite(cc.median_time_current()) ? fmt::format("{:.0f}", cc.median_time_current()) : "never"));
  if (c.options.power_analysis)
    caption.raw("<br>", " ").text(fmt::format(
        "detects with power {:.0f}%: lock-in {}, slowdown {}", 100 * c.options.target_power,
        std::isnan(cc.detectable.lock_in_to) ? std::string("no drop")
                                             : fmt::format("{:.2f} → {:.2f}", cc.detectable.lock_in_from, cc.detectable.lock_in_to),
        std::isnan(cc.detectable.slowdown) ? std::string("none up to ×4") : fmt::format("×{:.1f}", cc.detectable.slowdown)));
  return caption;
}

constexpr const char* kSurvivalNote =
    "Share of seeds not yet locked in against the training step, baseline (dashed) and now; seeds that never locked "
    "in are censored at the step budget. The gate tests \"slower\" with the exact log-rank test in the same Holm "
    "family as the lock-in and recall tests.";

Group section_survival(const ReportInput& in) {
  if (!in.comparison) return {};
  Group grid{Group::Kind::kDiv, "", "grid"};
  for (const auto& cc : in.comparison->configs) {
    if (cc.budget <= 0) continue;
    const auto budget = static_cast<double>(cc.budget);
    const Series base = km_series(judge::lock_in_times(cc.compared_baseline(), cc.budget), "baseline", "#888", true, budget);
    const Series now = km_series(judge::lock_in_times(cc.compared_current(), cc.budget), "now", kNotLocked, false, budget);
    grid.add(Figure{survival_caption(cc, *in.comparison),
                    LineChart{cc.current->cell + " · " + cc.current->task_label() + ": share of seeds not yet locked in",
                              Axis{"step", 0, budget}, Axis{"not yet locked in", 0, 1}, {base, now}}});
  }
  if (grid.blocks.empty()) return {};
  Group g{Group::Kind::kSection, "survival"};
  g.add(Heading{2, "Time to lock-in (Kaplan–Meier)"});
  g.add(Paragraph{Inline().raw(kSurvivalNote, kSurvivalNote), "note"});  // its quotes as written
  g.add(std::move(grid));
  return g;
}

Group section_kernels(const json& bench) {
  const auto rows = bench_rows(bench);
  if (rows.empty()) return {};
  double max_v = 0;
  bool items = false;
  for (const auto& r : rows) {
    items = items || r.items_per_second > 0;
    max_v = std::max(max_v, r.items_per_second);
  }
  Group g{Group::Kind::kSection, "kernels"};
  g.add(Heading{2, "Kernel throughput"});
  g.add(Paragraph{Inline("From the Google Benchmark JSON given with ").code("--bench").text(
                      items ? ": items (tokens) per second, the median of repetitions when present."
                            : ": real time per iteration (no items counter)."),
                  "note"});
  Table t{{{"benchmark"}, {"throughput"}, {"time"}}};
  t.cls = "bars";
  for (const auto& r : rows) {
    const double w = max_v > 0 ? 100.0 * r.items_per_second / max_v : 0;
    t.rows.push_back({{Inline().code(r.name),
                       Inline().raw(fmt::format("<div class=\"bar\"><i style=\"width:{:.1f}%\"></i><span>{}/s</span></div>", w,
                                                fmt_si(r.items_per_second)),
                                    fmt_si(r.items_per_second) + "/s"),
                       fmt::format("{:.4g} ", r.real_time) + r.time_unit}});
  }
  g.add(std::move(t));
  return g;
}

Row config_row(const Config& c) {
  const auto sm = judge::summarize(c);
  const auto v6 = [](double v) { return fmt::format("{:.6f}", v); };
  Row row{{c.cell, c.task_label(), fmt::format("{}/{} [{:.2f}, {:.2f}]", sm.k, sm.n, sm.ci.low, sm.ci.high),
           fmt_num(sm.recall.mean) + " ± " + fmt_num(sm.recall.sd),
           fmt_num(sm.recall.median) + " [" + fmt_num(sm.recall.q1) + ", " + fmt_num(sm.recall.q3) + "]",
           Cell(sm.median_lock_in_step >= 0 ? fmt::format("{:.0f}", sm.median_lock_in_step) : "–", sm.median_lock_in_step),
           learning_text(sm.learning),
           Cell(std::to_string(c.state_size), static_cast<double>(c.state_size)),
           (c.state_budget > 0 ? std::to_string(c.state_budget) : "cell default") + over_budget(c.state_size, c.state_budget),
           Cell(fmt::format("{:.1f} ({:.3f} bits/number)", c.capacity_bits, sm.floor_bits_per_number), c.capacity_bits),
           Cell(std::to_string(c.parameters), static_cast<double>(c.parameters)),
           fmt::format("{} steps, lr {}, ", c.step_budget(), c.learning_rate_text()) + c.curriculum(),
           std::to_string(sm.failed)}};
  row.cells[2].sort = v6(sm.rate);
  row.cells[3].sort = v6(sm.recall.mean);
  row.cells[4].sort = v6(sm.recall.median);
  row.title = c.key;
  return row;
}

Group section_configs(const RunSet& runs) {
  Group g{Group::Kind::kSection, "configs"};
  g.add(Heading{2, "Configurations"});
  Table t{{{"cell"}, {"task"}, {"lock-in", true}, {"mean recall ± sd", true}, {"median [IQR]", true},
           {"median steps to lock in", true}, {"not locked in (docs/budget.md)"}, {"state (numbers)", true}, {"budget"},
           {"capacity floor (K·log2 V bits)", true}, {"parameters", true}, {"recipe"}, {"failed"}}};
  t.cls = "sortable";
  for (const auto& c : runs.configs) t.rows.push_back(config_row(c));
  g.add(std::move(t));
  return g;
}

Group section_context(const ReportInput& in) {
  Group g{Group::Kind::kSection, "context"};
  g.add(Heading{2, "Context"});
  Definitions dl;
  const auto add = [&](const std::string& k, const json& v) {
    dl.items.push_back({k, v.is_string() ? v.get<std::string>() : v.dump()});
  };
  add("results", in.runs->source);
  if (in.runs->context.is_object())
    for (const auto& [k, v] : in.runs->context.items()) add(k, v);
  if (in.runs->commits.size() > 1) add("commits", in.runs->commits);
  if (in.comparison) {
    add("baseline", in.baseline_path);
    if (in.comparison->baseline_context.is_object())
      for (const auto& k : {"git_commit", "date", "host", "cpu_model"})
        if (in.comparison->baseline_context.contains(k)) add(std::string("baseline ") + k, in.comparison->baseline_context.at(k));
  }
  g.add(std::move(dl));
  return g;
}

}  // namespace

void add_page_sections(Document& d, const ReportInput& in) {
  const RunSet& runs = *in.runs;
  std::map<std::string, std::string> color_of;
  {
    std::set<std::string> cells;
    for (const auto& c : runs.configs) cells.insert(c.cell);
    size_t i = 0;
    for (const auto& cell : cells) color_of[cell] = kPalette[i++ % (sizeof kPalette / sizeof *kPalette)];
  }
  std::map<std::string, judge::Verdict> verdict_of;
  if (in.comparison)
    for (const auto& cc : in.comparison->configs) verdict_of[cc.key] = cc.verdict;
  Group header{Group::Kind::kHeader};
  header.add(Heading{1, in.title});
  header.add(Paragraph{Inline(fmt::format("{} runs in {} configs from ", runs.run_count, runs.configs.size()))
                           .code(runs.source)
                           .text(" · commit " + commit_of(runs.context) + " · " + string_or(runs.context, "date", "")),
                       "meta"});
  const auto html = [&d](Block b) {
    if (const auto* g = std::get_if<Group>(&b.content); g && g->blocks.empty()) return;  // an empty section
    d.add(std::move(b), Show::kHtmlOnly);
  };
  html(std::move(header));
  html(section_verdict(in));
  html(section_by_cell(runs, verdict_of));
  html(section_sweeps(runs, color_of));
  html(section_lottery(runs));
  html(section_contrasts(in.contrasts));
  html(in.claims_section);  // verify's verdicts, with --claims
  html(section_survival(in));
  html(section_curves(runs));
  html(section_kernels(in.bench));
  html(section_configs(runs));
  html(section_context(in));
}

std::string report_html(const ReportInput& in) { return HtmlRenderer().render(report_document(in)); }

std::string html_page(const std::string& title, const std::string& body) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" + esc(title) + "</title><style>\n" + kReportCss + "</style></head><body><main>" +
         body + "</main><script>\n" + kReportJs + "</script></body></html>\n";
}

}  // namespace rb::reports
