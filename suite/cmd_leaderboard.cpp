// recallbench leaderboard [--file F] [--results DIR ...] [--add DIR ...] [--html F] [--md F] [--json F]
//
// Shows the stored leaderboard (ci/leaderboard/leaderboard.json) with any new results beside it, ranked by
// top groups (reports/leaderboard.h); `--add DIR` writes the cells of DIR into the stored file as rows, so
// a row arrives by pull request. Everything is read and checked before anything is written; the stored
// file is replaced atomically or not at all.
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/file_lock.h"
#include "core/json_io.h"
#include "reports/leaderboard.h"
#include "reports/report.h"
#include "suite/cli.h"
#include "suite/context.h"

namespace rb {
namespace {

struct LeaderboardOptions {
  std::string file;  // "" = find_leaderboard() (suite/context.h)
  std::vector<std::string> results, add;
  std::string html, md, json;
  std::string before;  // "" = untuned.json beside a tuned stored board, when there is one; "none" = no comparison
  double alpha = 0.05;
};

// The board a tuned board replaced (every cell at one common rate): --before, or untuned.json beside the file.
std::optional<reports::Leaderboard> before_board(const LeaderboardOptions& o, const reports::Leaderboard& board) {
  namespace fs = std::filesystem;
  if (o.before == "none" || !board.tuned()) return std::nullopt;
  const fs::path path = o.before.empty() ? fs::path(o.file).parent_path() / "untuned.json" : fs::path(o.before);
  if (o.before.empty() && !fs::exists(path)) return std::nullopt;
  return reports::read_leaderboard(path);
}

int run_leaderboard(const LeaderboardOptions& given) {
  namespace fs = std::filesystem;
  reports::Leaderboard board;
  LeaderboardOptions o = given;
  if (o.file.empty()) {
    o.file = find_leaderboard();
    if (o.file.empty()) {
      if (o.add.empty())
        throw UsageError("leaderboard: the stored board (ci/leaderboard/leaderboard.json) was found neither here, nor in "
                         "the checkout recallbench was built from, nor installed",
                         "pass --file FILE; or start a board of your own with `recallbench leaderboard --add DIR "
                         "--file FILE` (DIR from `recallbench run --battery leaderboard --out DIR`)");
      o.file = "ci/leaderboard/leaderboard.json";
    }
  }
  // --add is a read-modify-write of the stored file: an exclusive flock on FILE.lock, held from the read to the
  // rename, so two at once serialise and neither row is lost (the second reads the first's result).
  std::unique_ptr<FileLock> lock;
  if (!o.add.empty()) lock = std::make_unique<FileLock>(o.file + ".lock");
  const bool stored = fs::exists(o.file);
  if (stored) board = reports::read_leaderboard(o.file);
  else if (o.add.empty())
    throw UsageError("leaderboard " + o.file + ": file not found",
                     "pass the stored board with --file, or record first rows with `recallbench leaderboard --add DIR "
                     "--file " + o.file + "`");
  for (const auto& dir : o.add) {
    const auto cells = reports::add_results(board, reports::load_results(dir), true);
    fmt::print("{}: {} row{} ({})\n", dir, cells.size(), cells.size() == 1 ? "" : "s", fmt::join(cells, ", "));
  }
  if (!o.add.empty()) board.updated = reports::utc_now();
  const reports::Leaderboard to_store = board;  // the stored rows and --add's; --results rows are shown, not stored
  for (const auto& dir : o.results) reports::add_results(board, reports::load_results(dir), true);
  const reports::Standing st = reports::rank_cells(board, o.alpha);
  const std::optional<reports::Leaderboard> before = before_board(o, board);
  if (!o.add.empty()) {
    write_json_atomic(o.file, reports::leaderboard_json(to_store));
    fmt::print("wrote {}: {} rows; review it and commit it: git add {}\n", o.file, to_store.rows.size(), o.file);
  }
  if (const reports::OutputPaths paths{o.json, o.html, o.md}; paths.any())
    reports::write_outputs(reports::leaderboard_document(board, st, before ? &*before : nullptr), paths);
  fmt::print("{}", reports::leaderboard_text(board, st, before ? &*before : nullptr));
  for (const auto* p : {&o.html, &o.md, &o.json})
    if (!p->empty()) fmt::print("wrote {}\n", *p);
  return kExitOk;
}

CommandFn add_leaderboard_command(CLI::App& sub) {
  auto o = std::make_shared<LeaderboardOptions>();
  sub.add_option("--file", o->file, "The stored leaderboard (default: ci/leaderboard/leaderboard.json here, else in the checkout recallbench "
                 "was built from, else installed in <prefix>/share/recallbench)");
  sub.add_option("--results", o->results,
                 "Results of new cells to show beside the stored rows (recallbench run --battery leaderboard "
                 "--cell NAME --out DIR); repeatable")
      ->check(CLI::ExistingDirectory);
  sub.add_option("--add", o->add, "Write the cells of these results into the stored file as rows; repeatable")
      ->check(CLI::ExistingDirectory);
  sub.add_option("--alpha", o->alpha, "Family-wise level of the top-group tests, Holm over the table (default 0.05)")
      ->check(CLI::Range(1e-6, 0.5));
  sub.add_option("--before", o->before,
                 "A tuned board: the board it replaced, every cell at one common rate, shown beside it (what tuning "
                 "changed); default untuned.json beside the stored file when there is one; 'none' for no comparison");
  sub.add_option("--html", o->html, "Write the self-contained HTML page here");
  sub.add_option("--md", o->md, "Write the Markdown tables here (a pull-request comment)");
  sub.add_option("--json", o->json, "Write the ranking as JSON here");
  return [o]() { return run_leaderboard(*o); };
}

}  // namespace

RB_REGISTER(CommandRegistry, leaderboard,
            CommandEntry{"leaderboard",
                         "Show the stored leaderboard with new cells' results beside it; --add stores rows",
                         add_leaderboard_command});

}  // namespace rb
