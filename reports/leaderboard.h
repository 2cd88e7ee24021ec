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
//
// Ranking. Per task point, the best cell is the one with the highest lock-in rate; every other cell is
// tested against it with a one-sided Fisher exact test on the lock-in counts (H1: the best locks in more
// often). All those p-values, over the whole table, form one Holm family. The top group of a task point is
// the best cell and every cell whose adjusted p is at least alpha: not significantly worse than the best.
// At a task point where no cell locked in (a guardrail beyond every cell at this size) the same is done on
// per-seed final recall: the best median recall, one-sided Mann–Whitney, in the same Holm family. The
// overall order counts, per cell, the task points on which it is in the top group; equal counts are equal
// ranks, shown as ties.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  bool is_new = false;             // came from --results in this invocation, not from the stored file
};

struct Leaderboard {
  std::string battery;                  // the battery's name
  std::string battery_version;          // battery_version(battery_document)
  json battery_document = nullptr;      // the battery without its cell list
  std::string updated;                  // UTC time the stored file was last written
  std::vector<LeaderboardRow> rows;     // sorted by cell name
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
// board's. Returns the cells added.
std::vector<std::string> add_results(Leaderboard& board, const RunSet& runs, bool is_new);

// One cell at one task point.
struct Placing {
  std::string cell;
  bool present = false;         // the row has this task point
  judge::ConfigSummary summary;        // lock-in k/n with its interval, recall spread
  int64_t state_size = 0;
  int64_t state_budget = 0;
  std::vector<double> recalls;  // per-seed final held-out accuracy
  double p_raw = 1.0;           // one-sided Fisher vs the task point's best (1 for the best itself);
                                // Mann–Whitney on recall when no cell locked in there
  double p_adjusted = 1.0;      // Holm over the whole table
  bool best = false;
  bool top = false;             // in the top group
  bool is_new = false;
};

struct TaskStanding {
  std::string point;            // recipe key of the task point (task, options, model, recipe)
  std::string label;            // "mqar pairs:8 length:64 vocab:64" (+ " · curriculum distance")
  double capacity_bits = 0.0;
  bool separates = false;       // some cell locked in, or (by_recall) the cells' recalls differ
  bool by_recall = false;       // no cell locked in: the top group is by per-seed recall (Mann–Whitney)
  std::vector<Placing> placings;  // in row order
};

struct OverallRow {
  std::string cell;
  int64_t rank = 0;             // 1 + cells with more top-group task points (equal counts tie)
  int64_t top_count = 0;        // task points in the top group (among those that separate)
  int64_t task_points = 0;      // task points the row has
  int64_t locked = 0, seeds = 0;  // lock-ins over all its seeds
  bool tied = false;            // shares its rank
  bool is_new = false;
};

struct Standing {
  double alpha = 0.05;
  int64_t separating = 0;        // task points that separate
  std::vector<TaskStanding> tasks;
  std::vector<OverallRow> overall;  // by rank, then by cell name
  bool claim_survives = false;      // some cell is outside the top group somewhere
};

Standing rank_cells(const Leaderboard& board, double alpha = 0.05);

json standing_json(const Leaderboard& board, const Standing& st);
// The leaderboard's document, built once for every renderer: the HTML page (HtmlRenderer: leaderboard_html), the
// Markdown summary (MarkdownRenderer: leaderboard_markdown) and standing_json (JsonRenderer).
Document leaderboard_document(const Leaderboard& board, const Standing& st);
std::string leaderboard_markdown(const Leaderboard& board, const Standing& st);
std::string leaderboard_html(const Leaderboard& board, const Standing& st);
std::string leaderboard_text(const Leaderboard& board, const Standing& st);

}  // namespace rb::reports
