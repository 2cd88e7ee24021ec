// The leaderboard: every cell's row on one battery (the `leaderboard` preset), stored in the repository
// (ci/leaderboard/leaderboard.json) so that a new cell is trained once and shown beside the stored rows.
//
//   Leaderboard board = read_leaderboard("ci/leaderboard/leaderboard.json");
//   add_results(board, load_results("results/mycell"), /*is_new=*/true);   // exit 2 on a recipe mismatch
//   Standing st = rank_cells(board, 0.05);
//   leaderboard_markdown(board, st); leaderboard_html(board, st); standing_json(board, st);
//
// A row is one cell's configs (one per task point of the battery) with per-seed outcomes and the run
// context. Rows join only when they come from the same battery and the same battery version: a hash of
// the battery document without its cell list (model, state budget, threshold, seeds, tasks, recipes), so
// a changed recipe, budget or seed set is a different leaderboard, never a silently mixed one.

// Ranking: judge/standing.h.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <optional>

#include "judge/standing.h"
#include "judge/tuning.h"
#include "reports/document.h"
#include "reports/results.h"

namespace rb::reports {

inline constexpr int kLeaderboardSchemaVersion = 1;

// One cell's results on the leaderboard battery.
struct LeaderboardRow {
  std::string cell;
  std::string added;               // UTC time the row was written into the stored file
  std::string source;              // the results directory it came from
  json context = json::object();   // machine, build, commit of its first run
  json commits = json::array();    // distinct commits of its runs
  std::vector<Config> configs;     // one per task point, per-seed outcomes (no learning curves)
  // On a board whose battery tunes each cell's rate: the choice (the rate, the rule's step, every rate's row on
  // the tuning seeds), from the results' DIR/tuning/selection.json.
  std::optional<judge::RateChoice> tuning;
  bool is_new = false;             // came from --results in this invocation, not from the stored file
};

struct Leaderboard {
  std::string battery;                  // the battery's name
  std::string battery_version;          // battery_version(battery_document)
  json battery_document = nullptr;      // the battery without its cell list
  std::string updated;                  // UTC time the stored file was last written
  std::vector<LeaderboardRow> rows;     // sorted by cell name

  // The battery has a tuning stage: each row at its own rate, task points compared without the lr.
  bool tuned() const { return battery_document.is_object() && battery_document.contains("tuning"); }
  Rates rates() const { return tuned() ? Rates::kPerCell : Rates::kShared; }
  // The board's reference cell (battery_document.reference, "" when none): a task point is ranked only where
  // it locks in on 8 of 10 seeds (judge/standing.h).
  judge::BoardReference reference() const {
    judge::BoardReference r;
    if (battery_document.is_object() && battery_document.contains("reference") && battery_document.at("reference").is_string())
      r.cell = battery_document.at("reference").get<std::string>();
    return r;
  }
  const LeaderboardRow* row(const std::string& cell) const;
};

// The battery document without the fields that name cells or describe it (cells, reference, contrasts,
// description), and the 12-hex-digit hash of its canonical dump.
json battery_recipe(const json& battery_document);
std::string battery_version(const json& battery_document);

// Reads a stored leaderboard. A missing file, malformed JSON, another kind or schema version, or a bad
// field: UsageError naming the file.
Leaderboard read_leaderboard(const std::filesystem::path& path);
// The stored document (kind "recallbench.leaderboard").
json leaderboard_json(const Leaderboard& board);

// Adds the cells of a results directory as rows (replacing stored rows of the same cells). An empty
// board takes the battery of the results. UsageError (exit 2) when the results carry no plan.json, come
// from another battery or battery version, or hold a config whose task point, model or recipe is not the
// board's. On a tuned board (a battery with a tuning stage) each row takes its cell's choice from
// DIR/tuning/selection.json, which must exist, hold the cell, match the battery's grid and tuning seeds, and
// name the rate every config of the row was trained at. Returns the cells added.
std::vector<std::string> add_results(Leaderboard& board, const RunSet& runs, bool is_new);

using judge::OverallRow;
using judge::Placing;
using judge::Standing;
using judge::TaskStanding;

// judge::rank_cells over the board's rows.
Standing rank_cells(const Leaderboard& board, double alpha = 0.05);

json standing_json(const Leaderboard& board, const Standing& st);
// What tuning changed (issue 44): a tuned board beside the board it replaces, whose rows trained every cell at
// one common rate. Both are ranked over the cells they share, so a rank moves only by the rates.
struct TuningChange {
  std::string cell;
  double lr = 0.0;                      // the rate tuning chose
  std::string before_lr;                // the common rate of the board before ("0.003")
  int64_t locked_before = 0, locked_after = 0, seeds_before = 0, seeds_after = 0;
  int64_t rank_before = 0, rank_after = 0;
  bool tied_before = false, tied_after = false;
  int64_t top_before = 0, top_after = 0;         // task points in the top group
  std::vector<std::string> joined, left;         // task points whose top group the cell joined or left
};
struct TuningComparison {
  std::vector<TuningChange> cells;      // the cells of both boards, in the tuned board's rank order
  int64_t separating_before = 0, separating_after = 0;
  std::vector<std::string> only_before; // cells the tuned board does not have yet
};
TuningComparison compare_tuning(const Leaderboard& tuned, const Leaderboard& before, double alpha = 0.05);

// The leaderboard's document, built once for every renderer: the HTML page (HtmlRenderer: leaderboard_html), the
// Markdown summary (MarkdownRenderer: leaderboard_markdown) and standing_json (JsonRenderer). `before`: the
// board it replaces (what tuning changed), or null.
Document leaderboard_document(const Leaderboard& board, const Standing& st, const Leaderboard* before = nullptr);
std::string leaderboard_markdown(const Leaderboard& board, const Standing& st);
std::string leaderboard_html(const Leaderboard& board, const Standing& st);
std::string leaderboard_text(const Leaderboard& board, const Standing& st, const Leaderboard* before = nullptr);

}  // namespace rb::reports
