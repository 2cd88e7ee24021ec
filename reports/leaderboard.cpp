// The stored leaderboard, its ranking and its pages. See leaderboard.h.
#include "reports/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/document.h"
#include "reports/html_parts.h"
#include "reports/report.h"
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
    rows.push_back({{"cell", r.cell}, {"added", r.added}, {"source", r.source}, {"context", r.context},
                    {"commits", r.commits}, {"configs", configs}});
  }
  return {{"schema_version", kLeaderboardSchemaVersion},
          {"kind", "recallbench.leaderboard"},
          {"battery", board.battery},
          {"battery_version", board.battery_version},
          {"battery_document", board.battery_document},
          {"updated", board.updated},
          {"rows", rows}};
}

std::vector<std::string> add_results(Leaderboard& board, const RunSet& runs, bool is_new) {
  const std::string where = "results " + runs.source;
  if (!runs.battery_document.is_object())
    throw UsageError(where + ": no plan.json, so the battery these runs came from is unknown",
                     "score a cell with `recallbench run --battery " +
                         (board.battery.empty() ? std::string("leaderboard") : board.battery) + " --cell NAME --out DIR`");
  if (runs.configs.empty()) throw UsageError(where + ": no runs");
  const json recipe = battery_recipe(runs.battery_document);
  const std::string version = battery_version(runs.battery_document);
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
  std::set<std::string> points;
  for (const auto& r : board.rows)
    for (const auto& c : r.configs) points.insert(setting_key(c));
  std::map<std::string, LeaderboardRow> fresh;
  for (const auto& c : runs.configs) {
    if (!points.empty() && !points.count(setting_key(c)))
      throw UsageError(fmt::format("{}: config {} has a task point, model or recipe that no stored row has", where, c.key),
                       "the same battery version should give the same task points: was the run made with another "
                       "build's task defaults?");
    auto& row = fresh[c.cell];
    row.cell = c.cell;
    Config stored = c;
    for (auto& s : stored.seeds) s.curve.clear();
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
  return judge::rank_cells(entrants, alpha);
}

namespace {

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

std::string conclusion(const Standing& st) {
  if (st.separating == 0) return "no task point separates the cells";
  if (!st.claim_survives)
    return fmt::format("no class claim survives: every cell is in the top group of every task point that separates "
                       "the cells (Holm, alpha {})",
                       st.alpha);
  return fmt::format("ranked by task points in the top group, of {} that separate the cells (Holm over the table, alpha {})",
                     st.separating, st.alpha);
}

}  // namespace

json standing_json(const Leaderboard& board, const Standing& st) {
  json overall = json::array(), tasks = json::array();
  for (const auto& o : st.overall)
    overall.push_back({{"cell", o.cell}, {"rank", o.rank}, {"tied", o.tied}, {"top_group_task_points", o.top_count},
                       {"task_points", o.task_points}, {"locked_in", o.locked}, {"seeds", o.seeds}, {"new", o.is_new}});
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

std::string leaderboard_text(const Leaderboard& board, const Standing& st) {
  std::string out = fmt::format("leaderboard: battery {} (version {}), {} cells; {}\n", board.battery,
                                board.battery_version, board.rows.size(), conclusion(st));
  out += fmt::format("  {:<5} {:<20} {:>10} {:>10}\n", "rank", "cell", "top group", "lock-in");
  for (const auto& o : st.overall)
    out += fmt::format("  {:<5} {:<20} {:>10} {:>10}{}{}\n", rank_text(o), o.cell,
                       fmt::format("{}/{}", o.top_count, st.separating), fmt::format("{}/{}", o.locked, o.seeds),
                       o.is_new ? "   (new)" : "", incomplete(o, st));
  for (const auto& r : board.rows)
    if (const std::string note = cell_note(r); !note.empty()) out += fmt::format("  {}: {}\n", r.cell, note);
  for (const auto& t : st.tasks) {
    out += fmt::format("\n  {}{}\n", t.label, t.by_recall ? "  (no cell locked in: top group by recall)" : "");
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

Group overall_section(const Standing& st) {
  Group g;
  g.add(Heading{2, "Overall"}, Show::kHtmlOnly);
  g.add(Paragraph{Inline(conclusion(st)).raw(kOverallNote), "note"}, Show::kHtmlOnly);
  Table t{{{"rank"}, {"cell"}, {Inline().raw("top group", "task points in the top group"), true},
           {Inline().raw("lock-in", "lock-in, all seeds"), true}}};
  t.cls = "sortable";
  t.id = "overall";
  t.rule = " --- ";
  for (const auto& o : st.overall) {
    Row row{{Cell(rank_text(o)), Cell(cell_name(o.cell, o.is_new).text(incomplete(o, st))),
             Cell(fmt::format("{} / {}", o.top_count, st.separating), static_cast<double>(o.top_count)),
             Cell(fmt::format("{} / {}", o.locked, o.seeds), o.seeds ? double(o.locked) / o.seeds : 0.0)},
            o.is_new ? "new" : ""};
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

Group task_section(const TaskStanding& t) {
  Group g;
  g.add(Heading{2, t.label});
  Inline note(fmt::format("capacity floor {:.0f} bits", t.capacity_bits));
  if (t.by_recall)
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

Document leaderboard_document(const Leaderboard& board, const Standing& st) {
  Document d{"recallbench leaderboard: " + board.battery};
  d.markdown_escape = MarkdownEscape::kNone;
  d.add(Raw{kLeaderboardCss}, Show::kHtmlOnly);
  d.add(leaderboard_header(board, st));
  d.add(overall_section(st));
  List notes;
  for (const auto& r : board.rows)
    if (const std::string note = cell_note(r); !note.empty()) notes.items.push_back(Inline().code(r.cell).text(": " + note));
  if (!notes.items.empty()) {
    d.add(Paragraph{"Cells described by their authors (sidecar files):"}, Show::kMarkdownOnly);
    d.add(std::move(notes), Show::kMarkdownOnly);
  }
  for (const auto& t : st.tasks) d.add(task_section(t));
  d.add(rows_section(board), Show::kHtmlOnly);
  d.json = standing_json(board, st);
  return d;
}

std::string leaderboard_markdown(const Leaderboard& board, const Standing& st) {
  return MarkdownRenderer().render(leaderboard_document(board, st));
}

std::string leaderboard_html(const Leaderboard& board, const Standing& st) {
  return HtmlRenderer().render(leaderboard_document(board, st));
}

}  // namespace rb::reports
