// The JSON report, the Markdown summary and stored baselines. The HTML page is in html.cpp.
#include "reports/report.h"

#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/document.h"
#include "reports/report_sections.h"
#include "reports/speed_gate.h"

namespace rb::reports {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

json runs_json(const RunSet& runs) {
  json out = json::array();
  for (const auto& c : runs.configs) {
    for (const auto& s : c.seeds) {
      out.push_back({{"key", c.key + "/seed:" + std::to_string(s.seed)},
                     {"config_key", c.key},
                     {"seed", s.seed},
                     {"status", run_status_name(s.status)},
                     {"locked_in", s.locked_in()},
                     {"final_accuracy", s.final_accuracy},
                     {"lock_in_step", s.lock_in_step >= 0 ? json(s.lock_in_step) : json(nullptr)},
                     {"steps", s.steps},
                     {"wall_seconds", s.wall_seconds}});
    }
  }
  return out;
}

}  // namespace

std::string report_verdict(const ReportInput& in) {
  return in.comparison ? judge::verdict_name(in.comparison->verdict()) : "no baseline";
}

json contrasts_to_json(const std::vector<ContrastResult>& contrasts) {
  json out = json::array();
  for (const auto& r : contrasts) {
    json j = {{"name", r.spec.name}, {"knob", r.spec.knob}, {"a", r.spec.a}, {"b", r.spec.b},
              {"declared", r.spec.declared}, {"missing", r.missing}};
    if (!r.missing) {
      j["a_locked_in"] = r.k_a;
      j["a_seeds"] = r.n_a;
      j["b_locked_in"] = r.k_b;
      j["b_seeds"] = r.n_b;
      j["lock_in_rate_diff"] = r.rate_diff;
      j["recall_median_diff"] = r.recall_diff;
      j["fisher_p"] = r.p;
      j["fisher_p_adjusted"] = r.p_adj;  // adjusted across the contrasts by `adjust`
      j["adjust"] = r.adjust;
      if (r.adjust == "holm") j["fisher_p_holm"] = r.p_adj;  // the older name, kept while it is true
      j["odds_ratio"] = json_number(r.odds_ratio);
      j["odds_ratio_ci"] = {json_number(r.or_low), json_number(r.or_high)};
      j["mann_whitney_p"] = r.p_recall;
      j["significant"] = r.significant;
    }
    out.push_back(std::move(j));
  }
  return out;
}

json report_json(const ReportInput& in) {
  RB_ASSERT(in.runs != nullptr, "report needs results");
  json configs = json::array();
  for (const auto& c : in.runs->configs) configs.push_back(config_to_json(c, true));
  json bench = nullptr;
  if (!in.bench.is_null()) {
    bench = json::array();
    for (const auto& r : bench_rows(in.bench))
      bench.push_back({{"name", r.name}, {"items_per_second", r.items_per_second}, {"real_time", r.real_time},
                       {"time_unit", r.time_unit}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"kind", "recallbench.report"},
          {"title", in.title},
          {"generated", utc_now()},
          {"source", in.runs->source},
          {"context", in.runs->context},
          {"commits", in.runs->commits},
          {"verdict", report_verdict(in)},
          {"runs", runs_json(*in.runs)},
          {"configs", configs},
          {"contrasts", contrasts_to_json(in.contrasts)},
          {"baseline", in.comparison ? json(in.baseline_path) : json(nullptr)},
          {"comparison", in.comparison ? comparison_to_json(*in.comparison) : json(nullptr)},
          {"bench", bench},
          {"claims", in.claims}};
}

namespace {

// "## recallbench: VERDICT", the counts, and what was compared with what under which rule.
void md_header(Document& d, const ReportInput& in) {
  const std::string verdict = report_verdict(in);
  const judge::Comparison* c = in.comparison;
  d.add(Heading{1, "recallbench: " + verdict}, Show::kMarkdownOnly);
  d.add(Paragraph{c ? Inline().strong(verdict).text(fmt::format(": {} compared configs{}", verdict_counts(*c),
                                                                    data_unchecked_note(*c) + machine_note(*c)))
                    : Inline().strong("no baseline").text(": results only, nothing was gated")},
        Show::kMarkdownOnly);
  Inline results = Inline("Results: ").code(in.runs->source).text(fmt::format(
      " ({} runs in {} configs, commit {})", in.runs->run_count, in.runs->configs.size(), commit_of(in.runs->context, 12)));
  if (c)
    results.text(" · baseline: ").code(in.baseline_path).text(fmt::format(
        " (commit {}) · {}, alpha {}, minimum effect {}", commit_of(c->baseline_context, 12), gate_rule_text(*c),
        c->options.alpha, min_effects(c->options)));
  d.add(Paragraph{results}, Show::kMarkdownOnly);
}

// The title of a verdict's list in the summary.
const char* md_verdict_title(judge::Verdict v) {
  switch (v) {
    case judge::Verdict::kSeedsNotIndependent: return "Seeds not independent (not compared; a bug to fix)";
    case judge::Verdict::kModelChanged: return "Model changed (not compared; re-record the baseline after review)";
    case judge::Verdict::kTaskChanged: return "Task changed (not compared; re-record the baseline after review)";
    case judge::Verdict::kDataStreamChanged: return "Data stream changed (not compared; re-record the baseline after review)";
    case judge::Verdict::kRegression: return "Regressions";
    case judge::Verdict::kInconclusive: return "Inconclusive";
    case judge::Verdict::kImprovement: return "Improvements";
    case judge::Verdict::kBelowMinimumEffect: return "Significant, below the minimum effect (passes)";
    case judge::Verdict::kNoChange: return "No change";
  }
  return "";
}

// One list per verdict other than no change, the most severe first: each config's key and reason.
void md_verdict_lists(Document& d, const judge::Comparison& c) {
  for (judge::Verdict v : {judge::Verdict::kSeedsNotIndependent, judge::Verdict::kModelChanged, judge::Verdict::kTaskChanged,
                    judge::Verdict::kDataStreamChanged, judge::Verdict::kRegression, judge::Verdict::kInconclusive, judge::Verdict::kBelowMinimumEffect, judge::Verdict::kImprovement}) {
    List list;
    for (const auto& cc : c.configs)
      if (cc.verdict == v) list.items.push_back(Inline().code(cc.key).text(": " + gate_reason(cc, c.options)));
    if (list.items.empty()) continue;
    d.add(Heading{2, md_verdict_title(v)}, Show::kMarkdownOnly);
    d.add(std::move(list), Show::kMarkdownOnly);
  }
  if (const std::string battery = battery_text(c.battery); !battery.empty()) {
    d.add(Heading{2, "The battery (every paired config's pairs pooled)"}, Show::kMarkdownOnly);
    d.add(Paragraph{Inline(battery)}, Show::kMarkdownOnly);
  }
}

// What the gate detects per config (judge::GateOptions::power_analysis), nothing without the analysis.
void md_power_table(Document& d, const judge::Comparison& c) {
  Table t{{{"cell"}, {"task"}, {"baseline lock-in"}, {"lock-in drop detected"}, {"slowdown detected"}}};
  for (const auto& cc : c.configs) {
    const auto& dt = cc.detectable;
    if (dt.draws == 0 && std::isnan(dt.lock_in_to)) continue;
    t.rows.push_back({{cc.current->cell, cc.current->task_label(), fmt::format("{}/{}", cc.baseline_tally().k, cc.baseline_tally().n),
                       std::isnan(dt.lock_in_to) ? std::string("none")
                                                 : fmt::format("{:.2f} → {:.2f}", dt.lock_in_from, dt.lock_in_to),
                       std::isnan(dt.slowdown) ? std::string("none up to ×4") : fmt::format("×{:.1f}", dt.slowdown)}});
  }
  if (t.rows.empty()) return;
  d.add(Heading{2, fmt::format("What this gate detects with power {:.0f}%", 100 * c.options.target_power)},
        Show::kMarkdownOnly);
  d.add(Paragraph{fmt::format("Per config, at {} seeds now, tested alone at alpha / tests: the lock-in drop (exact "
                              "Fisher power) and the slowdown of every seed's lock-in (exact log-rank test, simulated "
                              "from the baseline's seeds).",
                              c.configs.front().current_tally().n)},
        Show::kMarkdownOnly);
  d.add(std::move(t), Show::kMarkdownOnly);
}

// A titled list of config keys, nothing when there are none.
void md_key_list(Document& d, const std::string& title, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  List list;
  for (const auto& k : keys) list.items.push_back(Inline().code(k));
  d.add(Heading{2, title}, Show::kMarkdownOnly);
  d.add(std::move(list), Show::kMarkdownOnly);
}

// Every config: lock-in with its interval, recall, steps, state against the budget, the gate's verdict.
void md_configs_table(Document& d, const RunSet& runs, const judge::Comparison* comparison) {
  std::map<std::string, judge::Verdict> verdict_of;
  if (comparison)
    for (const auto& cc : comparison->configs) verdict_of[cc.key] = cc.verdict;
  Table t{{{"cell"}, {"task"}, {"lock-in"}, {"95% CI"}, {"median recall"}, {"steps to lock in"}, {"not locked in"},
           {"state (budget)"}, {"floor bits"}, {"verdict"}}};
  for (const auto& c : runs.configs) {
    const auto s = judge::summarize(c);
    const auto it = verdict_of.find(c.key);
    t.rows.push_back({{c.cell, c.task_label(), fmt::format("{}/{}", s.k, s.n),
                       fmt::format("{:.2f}–{:.2f}", s.ci.low, s.ci.high), fmt::format("{:.3f}", s.recall.median),
                       s.median_lock_in_step >= 0 ? fmt::format("{:.0f}", s.median_lock_in_step) : "–",
                       learning_text(s.learning),
                       fmt::format("{} ({})", c.state_size, (c.state_budget > 0 ? std::to_string(c.state_budget) : "default") +
                                                                over_budget(c.state_size, c.state_budget)),
                       fmt::format("{:.0f}", c.capacity_bits), it == verdict_of.end() ? "–" : judge::verdict_name(it->second)}});
  }
  d.add(Heading{2, "Configs"}, Show::kMarkdownOnly);
  d.add(std::move(t), Show::kMarkdownOnly);
}

// The tested contrasts, nothing when none was tested.
void md_contrasts(Document& d, const std::vector<ContrastResult>& contrasts) {
  if (contrasts.empty()) return;
  const std::string adjust = contrasts.front().adjust;
  Table t{{{"contrast"}, {"lock-in"}, {"rate diff"}, {"p"}, {"p (" + adjust + ")"}}};
  for (const auto& r : contrasts)
    if (!r.missing)
      t.rows.push_back({{r.spec.name, fmt::format("{}/{} vs {}/{}", r.k_a, r.n_a, r.k_b, r.n_b),
                         fmt::format("{:+.2f}", r.rate_diff), fmt::format("{:.3g}", r.p),
                         fmt::format("{:.3g}{}", r.p_adj, r.significant ? " (significant)" : "")}});
  if (t.rows.empty()) return;
  d.add(Heading{2, "Contrasts (two-sided Fisher on lock-in counts, " + adjust + " across the battery)"},
        Show::kMarkdownOnly);
  d.add(std::move(t), Show::kMarkdownOnly);
}

}  // namespace

void add_summary_sections(Document& d, const ReportInput& in) {
  md_header(d, in);
  if (const judge::Comparison* c = in.comparison) {
    md_verdict_lists(d, *c);
    md_power_table(d, *c);
    md_key_list(d, "Planned but not run (the comparison is inconclusive until they are)", c->missing_planned);
    md_key_list(d, "Baseline seeds with no run here (the paired test needs them: inconclusive until they are run)",
                c->missing_paired);
    md_key_list(d, "In the baseline, missing from these results", c->missing_in_current);
    md_key_list(d, "New (not in the baseline, not gated)", c->missing_in_baseline);
  }
  md_configs_table(d, *in.runs, in.comparison);
  md_contrasts(d, in.contrasts);
  if (!in.claims_section.blocks.empty()) {
    d.add(Heading{2, "Claims (recallbench verify)"}, Show::kMarkdownOnly);
    d.add(in.claims_section, Show::kMarkdownOnly);  // its Markdown-only verdict table
  }
}

Document report_document(const ReportInput& in) {
  RB_ASSERT(in.runs != nullptr, "report needs results");
  Document d{in.title + ": " + report_verdict(in)};
  d.json = report_json(in);
  add_page_sections(d, in);
  add_summary_sections(d, in);
  return d;
}

std::string report_markdown(const ReportInput& in) { return MarkdownRenderer().render(report_document(in)); }

std::string verdict_counts(const judge::Comparison& c) {
  const GateCounts n(c);
  return fmt::format("{} model changed, {} data changed, {} regression(s), {} inconclusive, {}{} improvement(s), {} "
                     "unchanged of {}",
                     n.model_changed, n.data_changed, n.regressions, n.inconclusive,
                     n.below_minimum ? fmt::format("{} below the minimum effect, ", n.below_minimum) : "",
                     n.improvements, n.unchanged, c.configs.size());
}

std::string gate_rule_text(const judge::Comparison& c) {
  const char* adj = stats::adjust_method_name(c.options.adjust);
  if (c.options.rule == judge::GateOptions::Rule::kUnpaired)
    return fmt::format("{} over {} one-sided unpaired tests (lock-in, recall, time to lock-in per config)", adj, c.tests);
  std::string seq = c.options.stage_seeds > 0
                        ? fmt::format("; sequential: {} seed pairs a look, up to {} looks, {} spending, futility p > {}",
                                      c.options.stage_seeds, c.options.max_stages,
                                      stats::spending_name(c.options.spending), c.options.futility_p)
                        : std::string();
  return fmt::format("bonferroni over {} primary tests ({} at alpha / {}: on time to lock-in a paired "
                     "min-p test of the lock-in lost, the time of the seeds that lock in on both sides, and both "
                     "pooled, or a paired sign test on recall where the baseline never locks in; unpaired where no "
                     "seed pairs{}); Fisher on lock-in counts, Mann–Whitney on recall and the log-rank test are "
                     "secondary, not gated ({})",
                     c.tests, c.battery.tested ? "one per config and the battery's pooled one" : "one per config",
                     c.tests, seq, adj);
}

// " (data identity not checked for N configs: the baseline records no fingerprints)" when a side is older.
std::string data_unchecked_note(const judge::Comparison& c) {
  if (c.data_unchecked() == 0) return "";
  return fmt::format("; data identity not checked for {} of {} configs (no data fingerprints on a side: recorded "
                     "before they existed)", c.data_unchecked(), c.configs.size());
}

std::string machine_note(const judge::Comparison& c) {
  const auto d = c.machine_difference();
  if (d.empty()) return "";
  const auto t = c.ties();
  return fmt::format("; the baseline was recorded on another machine kind ({}): a seed's run is bit-identical only "
                     "on one CPU kind and BLAS core, so pairs may be redrawn here ({} of {} pairs tied); the paired "
                     "test stays valid but loses power: record the baseline on this kind of machine",
                     machine_difference_text(d), t.tied, t.pairs);
}

std::string comparison_text(const judge::Comparison& c, const std::string& baseline_path) {
  const GateCounts n(c);
  std::string out = fmt::format(
      "verdict: {} ({} model changed, {} data changed, {} regression, {} inconclusive, {}{} improvement, {} no change "
      "of {} configs compared with {}; {}, alpha {}, minimum effect {}){}\n",
      judge::verdict_name(c.verdict()), n.model_changed, n.data_changed, n.regressions, n.inconclusive,
      n.below_minimum ? fmt::format("{} below the minimum effect, ", n.below_minimum) : "", n.improvements,
      n.unchanged, c.configs.size(), baseline_path, gate_rule_text(c), c.options.alpha, min_effects(c.options),
      data_unchecked_note(c) + machine_note(c));
  for (const auto& cc : c.configs) {
    if (cc.verdict == judge::Verdict::kNoChange && cc.model.empty()) continue;
    out += fmt::format("  {:<12} {}\n               {}\n", judge::verdict_name(cc.verdict), cc.key,
                       gate_reason(cc, c.options));
  }
  if (!c.missing_planned.empty())
    out += fmt::format("  incomplete   {} planned run(s) have no result (first: {}): inconclusive until they are run "
                       "(the same run command finishes them)\n",
                       c.missing_planned.size(), c.missing_planned.front());
  if (!c.missing_paired.empty())
    out += fmt::format("  incomplete   {} baseline seed(s) have no run in the results (first: {}): the paired test "
                       "needs them; inconclusive until they are run\n",
                       c.missing_paired.size(), c.missing_paired.front());
  if (const std::string battery = battery_text(c.battery); !battery.empty()) out += "  " + battery + "\n";
  for (const auto& k : c.missing_in_current) out += "  missing      " + k + " (in the baseline, not in the results)\n";
  for (const auto& k : c.missing_in_baseline) out += "  new          " + k + " (not in the baseline: not gated)\n";
  if (n.model_changed > 0)
    out += fmt::format("the model changed under {} config key(s): review the change; to accept it, record a new "
                       "baseline from these results with `recallbench baseline update BATTERY --results DIR --out {}` "
                       "and commit it (or compare anyway with --allow-model-change)\n",
                       n.model_changed, baseline_path);
  int64_t data_accept = 0;  // task or stream changes: accepted by re-recording, like a model change
  for (const auto& cc : c.configs)
    data_accept += cc.verdict == judge::Verdict::kTaskChanged || cc.verdict == judge::Verdict::kDataStreamChanged ? 1 : 0;
  if (data_accept > 0)
    out += fmt::format("the data changed under {} config key(s) (task generator or training stream): review the change; "
                       "to accept it, record a new baseline from these results with `recallbench baseline update "
                       "BATTERY --results DIR --out {}` and commit it (or compare anyway with --allow-data-change)\n",
                       data_accept, baseline_path);
  if (n.data_changed > data_accept)
    out += "seeds that saw the same training batches are not independent draws: the seed does not reach the "
           "training stream; fix the bug (this is never accepted)\n";
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Baselines
// ---------------------------------------------------------------------------------------------------

json baseline_json(const RunSet& runs, const std::string& battery) {
  json configs = json::array();
  for (const auto& c : runs.configs) configs.push_back(config_to_json(c, false));
  return {{"schema_version", kBaselineSchemaVersion},
          {"kind", "recallbench.baseline"},
          {"battery", battery},
          {"created", utc_now()},
          {"source", runs.source},
          {"context", runs.context},
          {"commits", runs.commits},
          {"configs", configs}};
}

void check_same_battery(const Baseline& baseline, const std::string& baseline_path, const std::string& current_battery,
                        bool allow) {
  if (allow || baseline.battery.empty() || current_battery.empty() || baseline.battery == current_battery) return;
  throw UsageError("baseline " + baseline_path + " was recorded from battery '" + baseline.battery +
                       "', the current results are battery '" + current_battery + "'",
                   "compare with ci/baselines/" + current_battery + ".json, or pass --allow-other-battery to compare the "
                   "configs the two share");
}

Baseline read_baseline(const std::filesystem::path& path) {
  const std::string where = "baseline " + path.string();
  const std::string hint = "record a baseline with `recallbench baseline update BATTERY --results DIR`";
  if (!std::filesystem::exists(path)) throw UsageError(where + ": file not found", hint);
  if (std::filesystem::is_directory(path))
    throw UsageError(where + ": got a directory, expected a baseline JSON file (ci/baselines/<battery>.json)", hint);
  json doc;
  try {
    doc = read_json_file(path);
  } catch (const UsageError& e) {
    throw UsageError(e.what(), hint);  // "malformed JSON in FILE: ..." or "cannot read FILE"
  }
  if (!doc.is_object())
    throw UsageError(where + ": got a JSON " + std::string(doc.type_name()) + ", expected an object", hint);
  const std::string kind = kind_of(doc);
  if (kind != "recallbench.baseline" && kind != "recallbench.report")
    throw UsageError(where + ": got kind '" + kind + "', expected 'recallbench.baseline' (or a 'recallbench.report')",
                     hint);
  const int expected = kind == "recallbench.baseline" ? kBaselineSchemaVersion : kReportSchemaVersion;
  if (!doc.contains("schema_version") || !doc.at("schema_version").is_number_integer())
    throw UsageError(where + ": no integer field 'schema_version', expected " + std::to_string(expected), hint);
  // Compared as the 64-bit number written, never narrowed: 2^32 + 1 must not read as 1.
  const json& version = doc.at("schema_version");
  if (!version.is_number_integer() || version != json(expected))
    throw UsageError(fmt::format("{}: got schema_version {}, expected {} (this recallbench reads {} version {})", where,
                                 version.dump(), expected, kind, expected),
                     hint);
  Baseline b;
  with_json_errors(where, [&] {
    b.battery = doc.value("battery", "");
    b.created = doc.value("created", doc.value("generated", ""));
    b.context = doc.value("context", json::object());
    b.commits = doc.value("commits", json::array());
  });
  const json configs = require_field<json>(doc, "configs", where);
  if (!configs.is_array() || configs.empty())
    throw UsageError(where + ": field 'configs' must be a non-empty array", hint);
  try {
    std::set<std::string> keys;
    for (size_t i = 0; i < configs.size(); ++i) {
      b.configs.push_back(config_from_json(configs[i], fmt::format("{}: configs[{}]", where, i)));
      if (!keys.insert(b.configs.back().key).second)
        throw UsageError(fmt::format("{}: configs[{}]: config {} appears twice", where, i, b.configs.back().key));
    }
  } catch (const UsageError& e) {
    throw UsageError(e.what(), hint);
  }
  return b;
}

}  // namespace rb::reports
