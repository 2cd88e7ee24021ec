// The stored leaderboard, its ranking and its pages. See leaderboard.h.
#include "reports/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "judge/learning.h"
#include "reports/document.h"
#include "reports/gate_text.h"
#include "reports/html_parts.h"
#include "reports/report.h"
#include "reports/tuning_text.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

const char* const kHint = "record rows with `recallbench leaderboard --add DIR` from `recallbench run --battery leaderboard`";

}  // namespace

json battery_recipe(const json& battery_document) {
  json recipe = battery_document;
  if (!recipe.is_object()) return json::object();
  for (const char* field : {"cells", "reference", "contrasts", "description"}) recipe.erase(field);
  return recipe;
}

std::string battery_version(const json& battery_document) {
  return short_hash(battery_recipe(battery_document));
}

Leaderboard read_leaderboard(const std::filesystem::path& path) {
  const std::string where = "leaderboard " + path.string();
  if (!std::filesystem::is_regular_file(path)) throw UsageError(where + ": file not found", kHint);
  const json doc = read_json_file(path);
  if (!doc.is_object() || !doc.contains("kind") || doc.at("kind") != "recallbench.leaderboard")
    throw UsageError(where + ": got no 'recallbench.leaderboard' document", kHint);
  const json version = doc.value("schema_version", json(nullptr));
  if (!version.is_number_integer() || version.get<int64_t>() != kLeaderboardSchemaVersion)
    throw UsageError(fmt::format("{}: got schema_version {}, expected {} (this recallbench reads leaderboard version {})",
                                 where, version.dump(), kLeaderboardSchemaVersion, kLeaderboardSchemaVersion),
                     kHint);
  Leaderboard board;
  with_json_errors(where, [&] {
    board.battery = require_field<std::string>(doc, "battery", where);
    board.battery_version = require_field<std::string>(doc, "battery_version", where);
    board.battery_document = require_field<json>(doc, "battery_document", where);
    board.updated = doc.value("updated", "");
  });
  if (!board.battery_document.is_object() || battery_version(board.battery_document) != board.battery_version)
    throw UsageError(where + ": field 'battery_version' " + board.battery_version +
                         " is not the hash of its 'battery_document' (" + battery_version(board.battery_document) +
                         "): the file was edited by hand or is damaged",
                     "restore it from git");
  if (board.tuned()) {  // read by the renderers: its shape checked once here
    const json& t = board.battery_document.at("tuning");
    const auto numbers = [](const json& v, bool integers) {
      return v.is_array() && std::all_of(v.begin(), v.end(), [&](const json& x) {
               return integers ? x.is_number_integer() : x.is_number();
             });
    };
    if (!t.is_object() || !numbers(t.value("lr", json()), false) || !numbers(t.value("seeds", json()), true) ||
        !t.value("rule", json()).is_string())
      throw UsageError(where + ": field 'battery_document.tuning': expected {\"lr\": [numbers], \"seeds\": [integers], "
                               "\"rule\": name}",
                       kHint);
  }
  const json rows = require_field<json>(doc, "rows", where);
  if (!rows.is_array()) throw UsageError(where + ": field 'rows' must be an array", kHint);
  std::set<std::string> cells;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string w = fmt::format("{}: rows[{}]", where, i);
    LeaderboardRow row;
    with_json_errors(w, [&] {
      row.cell = require_field<std::string>(rows[i], "cell", w);
      row.added = rows[i].value("added", "");
      row.source = rows[i].value("source", "");
      row.context = rows[i].value("context", json::object());
      row.commits = rows[i].value("commits", json::array());
    });
    if (rows[i].contains("tuning")) row.tuning = rate_choice_from_json(rows[i]["tuning"], w + ".tuning");
    if (!cells.insert(row.cell).second) throw UsageError(w + ": cell '" + row.cell + "' has a second row", "restore it from git");
    const json configs = require_field<json>(rows[i], "configs", w);
    if (!configs.is_array() || configs.empty()) throw UsageError(w + ": field 'configs' must be a non-empty array");
    for (size_t k = 0; k < configs.size(); ++k) {
      row.configs.push_back(config_from_json(configs[k], fmt::format("{}.configs[{}]", w, k)));
      if (row.configs.back().cell != row.cell)
        throw UsageError(fmt::format("{}.configs[{}]: cell '{}' in the row of '{}'", w, k, row.configs.back().cell, row.cell));
    }
    board.rows.push_back(std::move(row));
  }
  std::sort(board.rows.begin(), board.rows.end(), [](const auto& a, const auto& b) { return a.cell < b.cell; });
  return board;
}

json leaderboard_json(const Leaderboard& board) {
  json rows = json::array();
  for (const auto& r : board.rows) {
    json configs = json::array();
    for (const auto& c : r.configs) configs.push_back(config_to_json(c, false));
    json row = {{"cell", r.cell}, {"added", r.added}, {"source", r.source}, {"context", r.context},
                {"commits", r.commits}, {"configs", configs}};
    if (r.tuning) row["tuning"] = rate_choice_json(*r.tuning);
    rows.push_back(row);
  }
  return {{"schema_version", kLeaderboardSchemaVersion},
          {"kind", "recallbench.leaderboard"},
          {"battery", board.battery},
          {"battery_version", board.battery_version},
          {"battery_document", board.battery_document},
          {"updated", board.updated},
          {"rows", rows}};
}

const LeaderboardRow* Leaderboard::row(const std::string& cell) const {
  for (const auto& r : rows)
    if (r.cell == cell) return &r;
  return nullptr;
}

namespace {

// The tuning stage's choices for the results of a tuned battery (DIR/tuning/selection.json), checked against the
// board's tuning block: the same grid and tuning seeds.
std::map<std::string, judge::RateChoice> tuning_choices(const Leaderboard& board, const RunSet& runs) {
  const std::filesystem::path path = std::filesystem::path(runs.source) / "tuning" / "selection.json";
  const std::string where = path.string();
  if (!std::filesystem::is_regular_file(path))
    throw UsageError("results " + runs.source + ": battery " + board.battery +
                         " chooses each cell's learning rate, and these results carry no tuning/selection.json",
                     "record the row with `recallbench run --battery " + board.battery + " --cell NAME --out DIR` "
                     "(its tuning stage writes the choice), and add DIR");
  const json doc = read_json_file(path);
  std::map<std::string, judge::RateChoice> out;
  with_json_errors(where, [&] {
    if (doc.at("kind") != "recallbench.tuning-selection")
      throw UsageError(where + ": not a tuning selection (kind recallbench.tuning-selection)");
    const json& tuning = board.battery_document.at("tuning");
    if (doc.at("tuning_seeds") != tuning.at("seeds") || doc.at("lr") != tuning.at("lr") || doc.at("rule") != tuning.at("rule"))
      throw UsageError(where + ": its grid, tuning seeds or rule are not the board's battery's",
                       "record the row with this build's preset");
    const json& cells = doc.at("cells");
    for (size_t i = 0; i < cells.size(); ++i) {
      judge::RateChoice c = rate_choice_from_json(cells[i], fmt::format("{}: cells[{}]", where, i));
      out[c.cell] = std::move(c);
    }
  });
  return out;
}

}  // namespace

std::vector<std::string> add_results(Leaderboard& board, const RunSet& runs, bool is_new) {
  const std::string where = "results " + runs.source;
  if (!runs.battery_document.is_object())
    throw UsageError(where + ": no plan.json, so the battery these runs came from is unknown",
                     "score a cell with `recallbench run --battery " +
                         (board.battery.empty() ? std::string("leaderboard") : board.battery) + " --cell NAME --out DIR`");
  if (runs.configs.empty()) throw UsageError(where + ": no runs");
  json recipe = battery_recipe(runs.battery_document);
  const std::string version = battery_version(runs.battery_document);
  // The board's reference (not part of the version: it chooses which points are ranked, not how runs train).
  if (runs.battery_document.contains("reference")) recipe["reference"] = runs.battery_document.at("reference");
  if (board.battery.empty()) {
    board.battery = runs.battery;
    board.battery_version = version;
    board.battery_document = recipe;
  } else if (runs.battery != board.battery) {
    throw UsageError(fmt::format("{}: battery '{}', but the leaderboard is battery '{}'", where, runs.battery, board.battery),
                     "run the cell on the leaderboard's battery: recallbench run --battery " + board.battery +
                         " --cell NAME --out DIR");
  } else if (version != board.battery_version) {
    std::string differs;
    for (const auto& [k, v] : recipe.items())
      if (!board.battery_document.contains(k) || board.battery_document.at(k) != v) differs += (differs.empty() ? "" : ", ") + k;
    for (const auto& [k, v] : board.battery_document.items())
      if (!recipe.contains(k)) differs += (differs.empty() ? "" : ", ") + k;
    throw UsageError(fmt::format("{}: battery '{}' version {}, but the leaderboard holds version {} (they differ in: {})",
                                 where, runs.battery, version, board.battery_version, differs),
                     "rows join only on the same recipe, budget, seeds and task points; rerun with this build's "
                     "preset, or record a new leaderboard");
  }
  if (recipe.contains("reference")) board.battery_document["reference"] = recipe.at("reference");
  std::set<std::string> points;
  for (const auto& r : board.rows)
    for (const auto& c : r.configs) points.insert(setting_key(c, board.rates()));
  const std::map<std::string, judge::RateChoice> choices = board.tuned() ? tuning_choices(board, runs) : std::map<std::string, judge::RateChoice>{};
  std::map<std::string, LeaderboardRow> fresh;
  for (const auto& c : runs.configs) {
    if (board.tuned()) {
      const auto choice = choices.find(c.cell);
      if (choice == choices.end())
        throw UsageError(fmt::format("{}: cell {} has no choice in {}/tuning/selection.json", where, c.cell, runs.source),
                         "record the row with `recallbench run --battery " + board.battery + " --cell " + c.cell +
                             "`: its tuning stage writes the choice");
      if (c.learning_rate() != choice->second.lr)
        throw UsageError(fmt::format("{}: config {} trained at lr {}, but the tuning stage chose {:g} for {}", where,
                                     c.key, c.learning_rate_text(), choice->second.lr, c.cell),
                         "rerun the scoring stage: recallbench run --battery " + board.battery + " --cell " + c.cell);
      fresh[c.cell].tuning = choice->second;
    }
    if (!points.empty() && !points.count(setting_key(c, board.rates())))
      throw UsageError(fmt::format("{}: config {} has a task point, model or recipe that no stored row has", where, c.key),
                       "the same battery version should give the same task points: was the run made with another "
                       "build's task defaults?");
    auto& row = fresh[c.cell];
    row.cell = c.cell;  // (its tuning was set above)
    Config stored = c;  // the row keeps no curves: each seed keeps its learning label, read from its curve first
    const judge::LearningSchedule schedule = judge::LearningSchedule::of(c);
    for (auto& s : stored.seeds) {
      s.learning = judge::diagnose_seed(s, schedule).label;
      s.curve.clear();
    }
    row.configs.push_back(std::move(stored));
  }
  std::vector<std::string> added;
  for (auto& entry : fresh) {
    const std::string cell = entry.first;  // (a structured binding cannot be captured by the lambda below in C++17)
    LeaderboardRow& row = entry.second;
    row.added = utc_now();
    row.source = runs.source;
    row.context = runs.context;
    row.commits = runs.commits;
    row.is_new = is_new;
    board.rows.erase(std::remove_if(board.rows.begin(), board.rows.end(), [&](const auto& r) { return r.cell == cell; }),
                     board.rows.end());
    board.rows.push_back(std::move(row));
    added.push_back(cell);
  }
  std::sort(board.rows.begin(), board.rows.end(), [](const auto& a, const auto& b) { return a.cell < b.cell; });
  return added;
}

Standing rank_cells(const Leaderboard& board, double alpha) {
  std::vector<judge::Entrant> entrants;
  for (const auto& r : board.rows) entrants.push_back({r.cell, r.is_new, &r.configs});
  return judge::rank_cells(entrants, alpha, board.rates(), board.reference());
}

TuningComparison compare_tuning(const Leaderboard& tuned, const Leaderboard& before, double alpha) {
  TuningComparison out;
  Leaderboard a = tuned, b = before;  // each over the cells both have
  const auto keep = [](Leaderboard& x, const Leaderboard& other) {
    x.rows.erase(std::remove_if(x.rows.begin(), x.rows.end(), [&](const auto& r) { return other.row(r.cell) == nullptr; }),
                 x.rows.end());
  };
  for (const auto& r : before.rows)
    if (tuned.row(r.cell) == nullptr) out.only_before.push_back(r.cell);
  keep(a, before);
  keep(b, tuned);
  if (a.rows.empty()) return out;
  const Standing sa = rank_cells(a, alpha), sb = rank_cells(b, alpha);
  out.separating_after = sa.separating;
  out.separating_before = sb.separating;
  for (const auto& o : sa.overall) {
    const auto ob = std::find_if(sb.overall.begin(), sb.overall.end(), [&](const auto& x) { return x.cell == o.cell; });
    if (ob == sb.overall.end()) continue;
    TuningChange c;
    c.cell = o.cell;
    const LeaderboardRow* row = a.row(o.cell);
    c.lr = row->tuning ? row->tuning->lr : NAN;
    const LeaderboardRow* old = b.row(o.cell);
    c.before_lr = old->configs.empty() ? "?" : old->configs.front().learning_rate_text();
    c.locked_after = o.locked, c.seeds_after = o.seeds, c.rank_after = o.rank, c.tied_after = o.tied;
    c.top_after = o.top_count;
    c.locked_before = ob->locked, c.seeds_before = ob->seeds, c.rank_before = ob->rank, c.tied_before = ob->tied;
    c.top_before = ob->top_count;
    const std::string cell = o.cell;
    const auto top_in = [&cell](const TaskStanding& t) {
      for (const auto& p : t.placings)
        if (p.cell == cell) return p.present && p.top;  // (a point that does not separate has every cell on top)
      return false;
    };
    for (const auto& ta : sa.tasks) {
      const auto tb = std::find_if(sb.tasks.begin(), sb.tasks.end(), [&](const auto& t) { return t.label == ta.label; });
      if (tb == sb.tasks.end()) continue;
      const bool now = top_in(ta), then = top_in(*tb);
      if (now && !then) c.joined.push_back(ta.label);
      if (then && !now) c.left.push_back(ta.label);
    }
    out.cells.push_back(std::move(c));
  }
  return out;
}

namespace {

std::string rate_text(double lr) { return std::isfinite(lr) ? fmt::format("{:g}", lr) : "–"; }

// The row's chosen rate on a tuned board, "" otherwise.
std::string row_rate(const Leaderboard& board, const std::string& cell) {
  const LeaderboardRow* r = board.row(cell);
  return r != nullptr && r->tuning ? rate_text(r->tuning->lr) : "";
}

std::string rank_change_text(const TuningChange& c) {
  const std::string before = fmt::format("{}{}", c.rank_before, c.tied_before ? "=" : "");
  const std::string after = fmt::format("{}{}", c.rank_after, c.tied_after ? "=" : "");
  return before == after ? after + " (same)" : before + " → " + after;
}

std::string top_change_text(const TuningChange& c) {
  std::string out;
  for (const auto& p : c.joined) out += (out.empty() ? "" : "; ") + ("joined " + p);
  for (const auto& p : c.left) out += (out.empty() ? "" : "; ") + ("left " + p);
  return out.empty() ? "no change" : out;
}

std::string rank_text(const OverallRow& o) { return fmt::format("{}{}", o.rank, o.tied ? "=" : ""); }

std::string state_text(const Placing& p) {
  if (p.state_budget <= 0) return fmt::format("{} / own", p.state_size);
  return fmt::format("{} / {}{}", p.state_size, p.state_budget, over_budget(p.state_size, p.state_budget));
}

std::string p_text(const Placing& p) {
  if (p.best) return "best";
  return fmt::format("{:.3g}", p.p_adjusted);
}

std::string incomplete(const OverallRow& o, const Standing& st) {
  return o.task_points < static_cast<int64_t>(st.tasks.size())
             ? fmt::format("   (incomplete: {} of {} task points)", o.task_points, st.tasks.size())
             : "";
}

// Whether the point is ranked, by its reference: "" on a board without one.
std::string reference_text(const TaskStanding& t, const Standing& st) {
  const std::string& ref = st.reference.cell;
  const std::string needs = fmt::format("{:.0f}%", 100 * st.reference.min_rate);
  switch (t.status) {
    case judge::PointStatus::kNoReference:
      return ref.empty() ? "" : fmt::format("ranked; the reference {} has no row here to check it by", ref);
    case judge::PointStatus::kReferenceFails:
      return fmt::format("not ranked: the reference {} locks in {}/{} here (a ranked point needs {}); the point "
                         "measures how fast cells learn in this budget, not what a fixed state can recall{}",
                         ref, t.reference_k, t.reference_n, needs,
                         t.reference_learning.not_locked_in > 0 ? "; its seeds: " + learning_text(t.reference_learning)
                                                                 : "");
    case judge::PointStatus::kRanked:
      if (ref.empty()) return "";
      return fmt::format("ranked: the reference {} locks in {}/{}{}", ref, t.reference_k, t.reference_n,
                         t.reference_median_step >= 0 ? fmt::format(" (median {:.0f} steps)", t.reference_median_step) : "");
  }
  return "";
}

std::string conclusion(const Standing& st) {
  if (st.separating == 0) return "no task point separates the cells";
  if (!st.claim_survives)
    return fmt::format("no class claim survives: every cell is in the top group of every task point that separates "
                       "the cells (Holm, alpha {})",
                       st.alpha);
  return fmt::format("ranked by task points in the top group, of {} that separate the cells (Holm over the table, alpha {}){}",
                     st.separating, st.alpha,
                     st.unranked > 0 ? fmt::format("; {} task point{} not ranked: the reference {} fails there", st.unranked,
                                                   st.unranked == 1 ? "" : "s", st.reference.cell)
                                     : "");
}

}  // namespace

json standing_json(const Leaderboard& board, const Standing& st) {
  json overall = json::array(), tasks = json::array();
  for (const auto& o : st.overall) {
    overall.push_back({{"cell", o.cell}, {"rank", o.rank}, {"tied", o.tied}, {"top_group_task_points", o.top_count},
                       {"task_points", o.task_points}, {"locked_in", o.locked}, {"seeds", o.seeds}, {"new", o.is_new}});
    if (const LeaderboardRow* r = board.row(o.cell); r != nullptr && r->tuning)
      overall.back()["tuning"] = rate_choice_json(*r->tuning);
  }
  for (const auto& t : st.tasks) {
    json placings = json::array();
    for (const auto& p : t.placings) {
      if (!p.present) {
        placings.push_back({{"cell", p.cell}, {"present", false}});
        continue;
      }
      placings.push_back({{"cell", p.cell}, {"present", true}, {"summary", summary_to_json(p.summary)},
                          {"state_size", p.state_size}, {"state_budget", p.state_budget},
                          {"p_vs_best", p.p_raw}, {"p_vs_best_holm", p.p_adjusted}, {"best", p.best},
                          {"top_group", p.top}, {"new", p.is_new}});
    }
    tasks.push_back({{"label", t.label}, {"capacity_bits", t.capacity_bits}, {"separates", t.separates},
                     {"top_group_by", t.by_recall ? "recall" : "lock-in"},
                     {"ranked", t.ranked()},
                     {"reference",
                      st.reference.cell.empty() || t.status == judge::PointStatus::kNoReference
                          ? json(nullptr)
                          : json{{"cell", st.reference.cell}, {"locked_in", t.reference_k}, {"seeds", t.reference_n},
                                 {"needs_rate", st.reference.min_rate},
                                 {"median_lock_in_step", t.reference_median_step >= 0 ? json(t.reference_median_step) : json(nullptr)},
                                 {"text", reference_text(t, st)}}},
                     {"placings", placings}});
  }
  return {{"schema_version", kLeaderboardSchemaVersion},
          {"kind", "recallbench.leaderboard.standing"},
          {"battery", board.battery},
          {"battery_version", board.battery_version},
          {"alpha", st.alpha},
          {"conclusion", conclusion(st)},
          {"overall", overall},
          {"tasks", tasks}};
}

// A script cell's description and options from its sidecar (the row's first config), "" when it has none:
// "gated linear attention, one head (heads 1, gate sigmoid)".
std::string cell_note(const LeaderboardRow& row) {
  if (row.configs.empty() || !row.configs.front().cell_info.is_object()) return "";
  const json& info = row.configs.front().cell_info;
  std::string out = string_or(info, "description", "");  // another type (an edited file): not shown
  std::string opts;
  if (info.contains("options") && info.at("options").is_object())
    for (const auto& [k, v] : info.at("options").items())
      opts += (opts.empty() ? "" : ", ") + k + " " + (v.is_string() ? v.get<std::string>() : v.dump());
  if (!opts.empty()) out += (out.empty() ? "" : " ") + ("(" + opts + ")");
  return out;
}

std::string leaderboard_text(const Leaderboard& board, const Standing& st, const Leaderboard* before) {
  std::string out = fmt::format("leaderboard: battery {} (version {}), {} cells; {}\n", board.battery,
                                board.battery_version, board.rows.size(), conclusion(st));
  const bool tuned = board.tuned();
  out += fmt::format("  {:<5} {:<20} {:>10} {:>10}{}\n", "rank", "cell", "top group", "lock-in",
                     tuned ? fmt::format(" {:>8}", "lr") : "");
  for (const auto& o : st.overall)
    out += fmt::format("  {:<5} {:<20} {:>10} {:>10}{}{}{}\n", rank_text(o), o.cell,
                       fmt::format("{}/{}", o.top_count, st.separating), fmt::format("{}/{}", o.locked, o.seeds),
                       tuned ? fmt::format(" {:>8}", row_rate(board, o.cell)) : "", o.is_new ? "   (new)" : "",
                       incomplete(o, st));
  if (before != nullptr) {
    const TuningComparison cmp = compare_tuning(board, *before, st.alpha);
    out += fmt::format("\n  what tuning changed (both boards ranked over the {} cells they share):\n", cmp.cells.size());
    for (const auto& c : cmp.cells)
      out += fmt::format("    {:<20} lr {} → {:<7} lock-in {}/{} → {}/{}, rank {}, top group: {}\n", c.cell, c.before_lr,
                         rate_text(c.lr), c.locked_before, c.seeds_before, c.locked_after, c.seeds_after,
                         rank_change_text(c), top_change_text(c));
    if (!cmp.only_before.empty())
      out += fmt::format("    not re-recorded yet: {}\n", fmt::join(cmp.only_before, ", "));
  }
  for (const auto& r : board.rows)
    if (const std::string note = cell_note(r); !note.empty()) out += fmt::format("  {}: {}\n", r.cell, note);
  for (const auto& t : st.tasks) {
    out += fmt::format("\n  {}{}\n", t.label, t.by_recall && t.ranked() ? "  (no cell locked in: top group by recall)" : "");
    if (const std::string ref = reference_text(t, st); !ref.empty()) out += fmt::format("    {}\n", ref);
    for (const auto& p : t.placings) {
      if (!p.present) {
        out += fmt::format("    {:<20} missing\n", p.cell);
        continue;
      }
      out += fmt::format("    {:<20} {:>3}/{:<3} [{:.2f}, {:.2f}]  recall {:.3f}  p {:<8} {}{}\n", p.cell, p.summary.k,
                         p.summary.n, p.summary.ci.low, p.summary.ci.high, p.summary.recall.median, p_text(p),
                         p.top ? "top" : "", p.is_new ? " (new)" : "");
    }
  }
  return out;
}

namespace {

// A cell's name as each format marks it: HTML the name with a "new" badge; Markdown `name`, **name** (new).
Inline cell_name(const std::string& cell, bool is_new) {
  return Inline().raw(html_escape(cell) + (is_new ? " " + badge(Tone::kPlain, "new") : ""),
                      is_new ? "**" + cell + "** (new)" : "`" + cell + "`");
}

Group leaderboard_header(const Leaderboard& board, const Standing& st) {
  Group g{Group::Kind::kHeader};
  g.add(Heading{1, "recallbench leaderboard"}, Show::kHtmlOnly);
  g.add(Paragraph{Inline("battery ").code(board.battery).text(" · version ").code(board.battery_version)
                      .text(fmt::format(" · {} cells · updated {}", board.rows.size(), board.updated)),
                  "meta"},
        Show::kHtmlOnly);
  g.add(Heading{1, Inline("recallbench leaderboard: battery ").code(board.battery).text(" (version ")
                       .code(board.battery_version).text(")")},
        Show::kMarkdownOnly);
  g.add(Paragraph{conclusion(st) + "."}, Show::kMarkdownOnly);
  return g;
}

constexpr const char* kOverallNote =
    ". A cell is in a task point's top group when a one-sided Fisher exact test on lock-in counts does not find it "
    "worse than the point's best cell. Equal counts are equal ranks (=).";

Group overall_section(const Leaderboard& board, const Standing& st) {
  Group g;
  g.add(Heading{2, "Overall"}, Show::kHtmlOnly);
  g.add(Paragraph{Inline(conclusion(st)).raw(kOverallNote), "note"}, Show::kHtmlOnly);
  Table t{{{"rank"}, {"cell"}, {Inline().raw("top group", "task points in the top group"), true},
           {Inline().raw("lock-in", "lock-in, all seeds"), true}}};
  if (board.tuned()) t.columns.push_back({Inline().raw("lr", "learning rate (tuned)"), true});
  t.cls = "sortable";
  t.id = "overall";
  t.rule = " --- ";
  for (const auto& o : st.overall) {
    Row row{{Cell(rank_text(o)), Cell(cell_name(o.cell, o.is_new).text(incomplete(o, st))),
             Cell(fmt::format("{} / {}", o.top_count, st.separating), static_cast<double>(o.top_count)),
             Cell(fmt::format("{} / {}", o.locked, o.seeds), o.seeds ? double(o.locked) / o.seeds : 0.0)},
            o.is_new ? "new" : ""};
    if (board.tuned()) {
      const LeaderboardRow* r = board.row(o.cell);
      row.cells.push_back(r != nullptr && r->tuning ? Cell(rate_text(r->tuning->lr), r->tuning->lr) : Cell("–"));
    }
    row.cells[1].cls = "cellname";
    t.rows.push_back(std::move(row));
  }
  g.add(std::move(t));
  return g;
}

Row placing_row(const Placing& p) {
  Row row{{Cell(cell_name(p.cell, p.is_new))}, std::string(p.is_new ? "new " : "") + (p.top ? "top" : "")};
  row.cells[0].cls = "cellname";
  if (!p.present) {
    Cell missing("missing");
    missing.cls = "empty";
    missing.colspan = 6;
    row.cells.push_back(std::move(missing));
    return row;
  }
  const auto& s = p.summary;
  row.cells.push_back(Cell(fmt::format("{}/{}", s.k, s.n), s.rate));
  row.cells.push_back(Cell(Inline().interval(s.ci.low, s.ci.high, s.rate).raw(" ", "")
                               .sub(fmt::format("[{:.2f}, {:.2f}]", s.ci.low, s.ci.high))));
  row.cells.push_back(Cell(fmt::format("{:.3f}", s.recall.median), s.recall.median));
  row.cells.push_back(Cell(state_text(p), static_cast<double>(p.state_size)));
  row.cells.push_back(Cell(p_text(p), p.best ? 2.0 : p.p_adjusted));
  Cell top(Inline().raw(p.top ? "top group" : "", p.top ? "yes" : ""));
  top.cls = p.top ? "top" : "";
  row.cells.push_back(std::move(top));
  return row;
}

Group task_section(const TaskStanding& t, const Standing& st) {
  Group g;
  g.add(Heading{2, t.label});
  Inline note(fmt::format("capacity floor {:.0f} bits", t.capacity_bits));
  if (const std::string ref = reference_text(t, st); !ref.empty()) note.raw(" · " + ref, "; " + ref);
  if (t.by_recall && t.ranked())
    note.raw(" · no cell locked in: the top group is by per-seed recall (Mann–Whitney)",
             "; no cell locked in: the top group is by per-seed recall (Mann–Whitney)");
  g.add(Paragraph{note, "note"});
  Table table{{{"cell"}, {"lock-in", true}, {"95% CI"}, {"median recall", true}, {"state / budget", true},
               {"p vs best (Holm)", true}, {"top group"}}};
  table.cls = "sortable task";
  table.rule = " --- ";
  for (const auto& p : t.placings) table.rows.push_back(placing_row(p));
  g.add(std::move(table));
  return g;
}

// A tuned board: each row's tuning table, one column per rate of the grid ("lock-ins · mean steps").
Group rates_section(const Leaderboard& board) {
  Group g;
  g.add(Heading{2, "Learning rates"});
  const json& tuning = board.battery_document.at("tuning");
  const std::vector<double> grid = tuning.at("lr").get<std::vector<double>>();
  const auto rule = judge::parse_tuning_rule(tuning.value("rule", std::string()));
  g.add(Paragraph{Inline(fmt::format(
                      "Each cell trains at the rate its tuning stage chose on tuning seeds {} (never the seeds it is "
                      "scored on), by the rule {}: {}. Each rate: lock-ins of its tuning runs · mean steps; the chosen "
                      "rate marked.",
                      fmt::join(tuning.at("seeds").get<std::vector<int64_t>>(), ", "), tuning.value("rule", std::string("?")),
                      rule ? rule_text(*rule) : std::string("a rule this build does not know"))),
                  "note"});
  std::vector<HeadCell> columns = {{"cell"}, {"chosen"}, {"decided by"}};
  for (double lr : grid) columns.push_back({Inline(rate_text(lr)), true});
  Table t{columns};
  t.rule = " --- ";
  for (const auto& r : board.rows) {
    if (!r.tuning) continue;
    Row row{{Cell(cell_name(r.cell, r.is_new)),
             Cell(rate_text(r.tuning->lr) + (r.tuning->interior() ? "" : " (edge of the grid)"), r.tuning->lr),
             Cell(judge::rate_reason_name(r.tuning->reason))},
            r.is_new ? "new" : ""};
    for (double lr : grid) {
      const auto at = std::find_if(r.tuning->rows.begin(), r.tuning->rows.end(), [&](const auto& x) { return x.lr == lr; });
      if (at == r.tuning->rows.end()) {
        row.cells.push_back(Cell("–"));
        continue;
      }
      const std::string text = fmt::format("{}/{} · {}", at->locked_in, at->runs,
                                           std::isfinite(at->mean_steps) ? fmt::format("{:.0f}", at->mean_steps) : "–");
      row.cells.push_back(lr == r.tuning->lr ? Cell(Inline().raw("<b>" + html_escape(text) + "</b>", "**" + text + "**"),
                                                    static_cast<double>(at->locked_in))
                                             : Cell(text, static_cast<double>(at->locked_in)));
    }
    t.rows.push_back(std::move(row));
  }
  g.add(std::move(t));
  return g;
}

// The tuned board beside the board it replaces (one common rate).
Group tuning_change_section(const Leaderboard& before, const TuningComparison& cmp) {
  Group g;
  g.add(Heading{2, "What tuning changed"});
  g.add(Paragraph{Inline(fmt::format(
                      "Each row at its tuned rate beside its row at the common rate of the board before (battery "
                      "version {}, {} rows). Both boards are ranked over the {} cells they share, so a rank moves only "
                      "by the rates{}.",
                      before.battery_version, before.rows.size(), cmp.cells.size(),
                      cmp.only_before.empty() ? ""
                                              : fmt::format("; not re-recorded yet: {}", fmt::join(cmp.only_before, ", ")))),
                  "note"});
  Table t{{{"cell"}, {"lr"}, {Inline("lock-in before"), true}, {Inline("lock-in tuned"), true}, {"rank"},
           {Inline("top group before"), true}, {Inline("top group tuned"), true}, {"top group membership"}}};
  t.rule = " --- ";
  for (const auto& c : cmp.cells)
    t.rows.push_back(Row{{Cell(cell_name(c.cell, false)), Cell(c.before_lr + " → " + rate_text(c.lr)),
                          Cell(fmt::format("{}/{}", c.locked_before, c.seeds_before), static_cast<double>(c.locked_before)),
                          Cell(fmt::format("{}/{}", c.locked_after, c.seeds_after), static_cast<double>(c.locked_after)),
                          Cell(rank_change_text(c)),
                          Cell(fmt::format("{}/{}", c.top_before, cmp.separating_before), static_cast<double>(c.top_before)),
                          Cell(fmt::format("{}/{}", c.top_after, cmp.separating_after), static_cast<double>(c.top_after)),
                          Cell(top_change_text(c))}});
  g.add(std::move(t));
  return g;
}

Group rows_section(const Leaderboard& board) {
  Group g;
  g.add(Heading{2, "Rows"});
  Table t{{{"cell"}, {"description"}, {"commit"}, {"added"}, {"source"}}};
  for (const auto& r : board.rows)
    t.rows.push_back({{r.cell, cell_note(r), Inline().code(commit_of(r.context)), r.added, Inline().code(r.source)},
                      r.is_new ? "new" : ""});
  g.add(std::move(t));
  return g;
}

constexpr const char* kLeaderboardCss =
    "<style>tr.new td{background:#fff6e0}tr.top td.cellname{font-weight:600}td.top{color:#1a9850;font-weight:600}"
    "</style>";

}  // namespace

Document leaderboard_document(const Leaderboard& board, const Standing& st, const Leaderboard* before) {
  Document d{"recallbench leaderboard: " + board.battery};
  d.markdown_escape = MarkdownEscape::kNone;
  d.add(Raw{kLeaderboardCss}, Show::kHtmlOnly);
  d.add(leaderboard_header(board, st));
  d.add(overall_section(board, st));
  if (board.tuned()) d.add(rates_section(board));
  std::optional<TuningComparison> cmp;
  if (before != nullptr) {
    cmp = compare_tuning(board, *before, st.alpha);
    d.add(tuning_change_section(*before, *cmp));
  }
  List notes;
  for (const auto& r : board.rows)
    if (const std::string note = cell_note(r); !note.empty()) notes.items.push_back(Inline().code(r.cell).text(": " + note));
  if (!notes.items.empty()) {
    d.add(Paragraph{"Cells described by their authors (sidecar files):"}, Show::kMarkdownOnly);
    d.add(std::move(notes), Show::kMarkdownOnly);
  }
  for (const auto& t : st.tasks) d.add(task_section(t, st));
  d.add(rows_section(board), Show::kHtmlOnly);
  d.json = standing_json(board, st);
  if (cmp) {
    json changes = json::array();
    for (const auto& c : cmp->cells)
      changes.push_back({{"cell", c.cell}, {"lr", c.lr}, {"lr_before", c.before_lr},
                         {"locked_in_before", c.locked_before}, {"locked_in", c.locked_after}, {"seeds", c.seeds_after},
                         {"rank_before", c.rank_before}, {"rank", c.rank_after}, {"top_group_before", c.top_before},
                         {"top_group", c.top_after}, {"joined_top_group", c.joined}, {"left_top_group", c.left}});
    d.json["tuning_change"] = {{"battery_version_before", before->battery_version}, {"cells", changes},
                               {"not_re_recorded", cmp->only_before}};
  }
  return d;
}

std::string leaderboard_markdown(const Leaderboard& board, const Standing& st) {
  return MarkdownRenderer().render(leaderboard_document(board, st));
}

std::string leaderboard_html(const Leaderboard& board, const Standing& st) {
  return HtmlRenderer().render(leaderboard_document(board, st));
}

}  // namespace rb::reports
