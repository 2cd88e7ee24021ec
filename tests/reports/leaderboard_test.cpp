// The leaderboard: rows join only on the same battery and version, the top group is Holm over the table,
// equal counts are ties, a stored file round-trips and a damaged one is refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/leaderboard.h"

namespace rb::reports {
namespace {

namespace fs = std::filesystem;

json battery_doc(int64_t steps = 1000) {
  return {{"schema_version", 1}, {"name", "leaderboard"}, {"cells", "all"}, {"description", "x"},
          {"seeds", json::array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})},
          {"recipes", json::array({{{"name", "lb"}, {"steps", steps}}})}};
}

// `cell` on mqar at `pairs`, n seeds, the first k locked in.
Config planted(const std::string& cell, int64_t pairs, int64_t k, int64_t n = 10) {
  Config c;
  c.cell = cell;
  c.task = "mqar";
  c.task_options = {{"pairs", pairs}, {"length", 64}, {"vocab", 64}};
  c.key = "mqar/" + cell + "/pairs:" + std::to_string(pairs);
  c.model = {{"d_model", 32}, {"layers", 2}, {"state_budget", 1024}, {"mlp", true}};
  c.set_train({{"steps", 1000}, {"curriculum", "none"}});
  c.key += "/" + config_hash(c);  // as a stored key is
  c.state_size = 1024;
  c.state_budget = 1024;
  c.capacity_bits = 6.0 * pairs;
  for (int64_t s = 0; s < n; ++s) {
    SeedOutcome o;
    o.seed = s;
    o.reached_threshold = s < k;
    o.final_accuracy = o.locked_in() ? 0.95 : 0.2;
    o.lock_in_step = o.locked_in() ? 400 : -1;
    o.steps = o.locked_in() ? 400 : 1000;
    c.seeds.push_back(o);
  }
  return c;
}

RunSet results(std::vector<Config> configs, json doc = battery_doc()) {
  RunSet r;
  r.configs = std::move(configs);
  r.battery = doc.value("name", "");
  r.battery_document = doc;
  r.source = "planted";
  r.context = {{"git_commit", "abc"}};
  return r;
}

const Placing& placing(const Standing& st, const std::string& label_part, const std::string& cell) {
  for (const auto& t : st.tasks)
    if (t.label.find(label_part) != std::string::npos)
      for (const auto& p : t.placings)
        if (p.cell == cell) return p;
  throw std::runtime_error("no placing " + label_part + " " + cell);
}

const OverallRow& overall(const Standing& st, const std::string& cell) {
  for (const auto& o : st.overall)
    if (o.cell == cell) return o;
  throw std::runtime_error("no row " + cell);
}

TEST(Leaderboard, TopGroupIsHolmOverTheTableAndTiesAreTies) {
  Leaderboard board;
  add_results(board, results({planted("a", 4, 10), planted("a", 8, 9), planted("b", 4, 10), planted("b", 8, 2),
                              planted("c", 4, 2), planted("c", 8, 1), planted("d", 4, 9), planted("d", 8, 9)}),
              false);
  const Standing st = rank_cells(board, 0.05);
  ASSERT_EQ(st.tasks.size(), 2u);
  EXPECT_EQ(st.separating, 2);
  EXPECT_TRUE(st.claim_survives);
  // pairs 4: a (10/10) is the best; b ties it; d (9/10) is not worse; c (2/10) is: one-sided Fisher
  // 10/10 vs 2/10 is p = C(10,2)·... = 3.57e-4 raw, times at most 6 comparisons under Holm.
  EXPECT_TRUE(placing(st, "pairs:4", "a").best);
  EXPECT_TRUE(placing(st, "pairs:4", "b").top);
  EXPECT_TRUE(placing(st, "pairs:4", "d").top);
  EXPECT_FALSE(placing(st, "pairs:4", "c").top);
  EXPECT_NEAR(placing(st, "pairs:4", "c").p_raw, 0.000357, 1e-5);  // R: fisher.test(rbind(c(10,0),c(2,8)), alternative="greater")
  EXPECT_GE(placing(st, "pairs:4", "c").p_adjusted, placing(st, "pairs:4", "c").p_raw);
  // pairs 8: a and d (9/10) top; b (2/10) and c (1/10) not.
  EXPECT_TRUE(placing(st, "pairs:8", "a").top);
  EXPECT_TRUE(placing(st, "pairs:8", "d").top);
  EXPECT_FALSE(placing(st, "pairs:8", "b").top);
  EXPECT_FALSE(placing(st, "pairs:8", "c").top);
  // a and d: 2 of 2, tied at rank 1; b: 1 (rank 3); c: 0 (rank 4).
  EXPECT_EQ(overall(st, "a").rank, 1);
  EXPECT_TRUE(overall(st, "a").tied);
  EXPECT_EQ(overall(st, "d").rank, 1);
  EXPECT_EQ(overall(st, "b").rank, 3);
  EXPECT_FALSE(overall(st, "b").tied);
  EXPECT_EQ(overall(st, "c").rank, 4);
  EXPECT_EQ(overall(st, "c").top_count, 0);
  EXPECT_NE(leaderboard_markdown(board, st).find("| 1= | `a` | 2 / 2 |"), std::string::npos);
}

// A board with a reference ranks only the points its reference solves (8 of 10): at pairs 8 the reference
// locks in 7/10, so that point is shown and not ranked, and counts for nobody.
TEST(Leaderboard, APointWhoseReferenceFailsIsNotRanked) {
  Leaderboard board;
  json doc = battery_doc();
  doc["reference"] = "ref";
  add_results(board, results({planted("ref", 4, 8), planted("ref", 8, 7), planted("a", 4, 8), planted("a", 8, 7),
                              planted("b", 4, 1), planted("b", 8, 0)}, doc),
              false);
  const Standing st = rank_cells(board, 0.05);
  ASSERT_EQ(st.tasks.size(), 2u);
  EXPECT_EQ(st.unranked, 1);
  for (const auto& t : st.tasks) {
    const bool eight = t.label.find("pairs:8") != std::string::npos;
    EXPECT_EQ(t.ranked(), !eight) << t.label;
    EXPECT_EQ(t.reference_k, eight ? 7 : 8);
    for (const auto& p : t.placings) {
      if (eight) {
        EXPECT_FALSE(p.top) << p.cell;
      }
    }
  }
  EXPECT_EQ(st.separating, 1);
  EXPECT_EQ(overall(st, "a").top_count, 1);
  EXPECT_EQ(overall(st, "b").top_count, 0);
  const std::string text = leaderboard_text(board, st);
  EXPECT_NE(text.find("not ranked: the reference ref locks in 7/10 here (a ranked point needs 80%)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 task point not ranked"), std::string::npos) << text;
  const json js = standing_json(board, st);
  int ranked = 0;
  for (const auto& t : js.at("tasks")) ranked += t.at("ranked").get<bool>();
  EXPECT_EQ(ranked, 1);
}

// The stored board: it names its reference, and every point it ranks has the reference at 8 of 10 or better.
TEST(Leaderboard, TheStoredBoardRanksOnlyPointsItsReferenceSolves) {
  const Leaderboard board = read_leaderboard(fs::path(RB_SOURCE_DIR) / "ci/leaderboard/leaderboard.json");
  ASSERT_EQ(board.reference().cell, "attention");
  const Standing st = rank_cells(board, 0.05);
  ASSERT_NE(board.row("attention"), nullptr);
  for (const auto& t : st.tasks) {
    if (!t.ranked()) continue;
    EXPECT_EQ(t.status, judge::PointStatus::kRanked) << t.label;
    EXPECT_GE(t.reference_k * 10, 8 * t.reference_n) << t.label << ": attention " << t.reference_k << "/" << t.reference_n;
  }
}

TEST(Leaderboard, NoClassClaimSurvivesWhenNothingSeparates) {
  Leaderboard board;
  add_results(board, results({planted("a", 4, 6), planted("b", 4, 4), planted("c", 4, 5)}), false);
  const Standing st = rank_cells(board);
  EXPECT_FALSE(st.claim_survives);
  for (const auto& o : st.overall) {
    EXPECT_EQ(o.rank, 1);
    EXPECT_TRUE(o.tied);
  }
  EXPECT_NE(leaderboard_text(board, st).find("no class claim survives"), std::string::npos);
  // Nobody locked in: the task point separates nobody and counts for nobody.
  Leaderboard none;
  add_results(none, results({planted("a", 4, 0), planted("b", 4, 0)}), false);
  const Standing sn = rank_cells(none);
  EXPECT_EQ(sn.separating, 0);
  EXPECT_EQ(overall(sn, "a").top_count, 0);
}

TEST(Leaderboard, WhereNoCellLocksInTheTopGroupIsByRecall) {
  Config high = planted("a", 4, 0), low = planted("b", 4, 0);
  for (auto& s : high.seeds) s.final_accuracy = 0.6 + 0.001 * static_cast<double>(s.seed);
  Leaderboard board;
  add_results(board, results({high, low, planted("a", 8, 10), planted("b", 8, 10)}), false);
  const Standing st = rank_cells(board);
  EXPECT_EQ(st.separating, 2);
  EXPECT_TRUE(placing(st, "pairs:4", "a").best);
  // 0.6.. vs 0.2 on every seed (tied: the normal approximation with tie correction, as R's wilcox.test).
  EXPECT_FALSE(placing(st, "pairs:4", "b").top);
  EXPECT_LT(placing(st, "pairs:4", "b").p_raw, 1e-4);
  EXPECT_EQ(overall(st, "a").rank, 1);
  EXPECT_EQ(overall(st, "b").rank, 2);
  EXPECT_NE(leaderboard_markdown(board, st).find("top group is by per-seed recall"), std::string::npos);
}

TEST(Leaderboard, RowsJoinOnlyOnTheSameBatteryVersionAndTaskPoints) {
  Leaderboard board;
  add_results(board, results({planted("a", 4, 10), planted("b", 4, 3)}), false);
  EXPECT_EQ(board.battery, "leaderboard");
  EXPECT_EQ(board.battery_version, battery_version(battery_doc()));
  // The cell list and description do not change the version; the recipe does.
  json other_cells = battery_doc();
  other_cells["cells"] = json::array({"new"});
  other_cells["description"] = "y";
  EXPECT_EQ(battery_version(other_cells), board.battery_version);
  EXPECT_NE(battery_version(battery_doc(2000)), board.battery_version);

  Leaderboard copy = board;
  auto added = add_results(copy, results({planted("new", 4, 8)}, other_cells), true);
  EXPECT_EQ(added, std::vector<std::string>{"new"});
  EXPECT_EQ(copy.rows.size(), 3u);
  // Another recipe: named in the message.
  try {
    add_results(copy, results({planted("x", 4, 8)}, battery_doc(2000)), true);
    FAIL() << "a second recipe joined";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("differ in: recipes"), std::string::npos) << e.what();
  }
  json renamed = battery_doc();
  renamed["name"] = "smoke";
  EXPECT_THROW(add_results(copy, results({planted("x", 4, 8)}, renamed), true), UsageError);
  RunSet no_plan = results({planted("x", 4, 8)});
  no_plan.battery_document = nullptr;
  EXPECT_THROW(add_results(copy, no_plan, true), UsageError);
  // A task point no stored row has (another budget under the same battery document).
  Config odd = planted("x", 4, 8);
  odd.model["state_budget"] = 2048;
  EXPECT_THROW(add_results(copy, results({odd}), true), UsageError);
  // A row for a stored cell replaces it.
  add_results(copy, results({planted("b", 4, 10)}), true);
  EXPECT_EQ(copy.rows.size(), 3u);
  EXPECT_EQ(rank_cells(copy).overall.front().locked, 10);
}

TEST(Leaderboard, StateOverTheBudgetIsFlagged) {
  EXPECT_EQ(over_budget(1312, 1024), " (over budget by 28%)");
  EXPECT_EQ(over_budget(1036, 1024), "");  // within 10%: the conv buffer of a sized cell
  EXPECT_EQ(over_budget(5000, 0), "");     // no budget: the cell's own sizing
  Config big = planted("big", 4, 5);
  big.state_size = 2048;
  Leaderboard board;
  add_results(board, results({planted("a", 4, 5), big}), false);
  EXPECT_NE(leaderboard_markdown(board, rank_cells(board)).find("2048 / 1024 (over budget by 100%)"), std::string::npos);
}

TEST(Leaderboard, StoredFileRoundTripsAndDamageIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("rb_leaderboard_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Leaderboard board;
  add_results(board, results({planted("a", 4, 10), planted("b", 4, 3)}), false);
  write_json_atomic(dir / "lb.json", leaderboard_json(board));
  const Leaderboard back = read_leaderboard(dir / "lb.json");
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].configs[0].seeds.size(), 10u);
  EXPECT_EQ(rank_cells(back).overall[0].cell, "a");

  json doc = leaderboard_json(board);
  doc["battery_document"]["seeds"] = json::array({0});
  write_json_atomic(dir / "edited.json", doc);
  EXPECT_THROW(read_leaderboard(dir / "edited.json"), UsageError);
  doc = leaderboard_json(board);
  doc["schema_version"] = 2;
  write_json_atomic(dir / "v2.json", doc);
  EXPECT_THROW(read_leaderboard(dir / "v2.json"), UsageError);
  doc = leaderboard_json(board);
  doc["rows"].push_back(doc["rows"][0]);
  write_json_atomic(dir / "dup.json", doc);
  EXPECT_THROW(read_leaderboard(dir / "dup.json"), UsageError);
  doc = leaderboard_json(board);
  doc["rows"][0]["configs"][0]["cell"] = "b";
  write_json_atomic(dir / "mixed.json", doc);
  EXPECT_THROW(read_leaderboard(dir / "mixed.json"), UsageError);
  EXPECT_THROW(read_leaderboard(dir / "missing.json"), UsageError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rb::reports

namespace rb::reports {
namespace {

// A tuned board (issue 44): rows at their own rates meet at one task point, each row takes its choice from the
// results' tuning/selection.json (refused when missing or when a config was trained at another rate), the choice
// round-trips through the stored file, and the comparison with the board before ranks both over shared cells.
Config at_rate(Config c, double lr) {
  c.set_train({{"steps", 1000}, {"curriculum", "none"}, {"lr", lr}});
  c.key = "mqar/" + c.cell + "/pairs:" + std::to_string(static_cast<int64_t>(c.task_number("pairs"))) + "/" + config_hash(c);
  return c;
}

json selection(const std::vector<std::pair<std::string, double>>& chosen) {
  json cells = json::array();
  for (const auto& [cell, lr] : chosen)
    cells.push_back({{"cell", cell}, {"lr", lr}, {"reason", "most lock-ins"}, {"interior", true}, {"left_out", 0},
                     {"rates", json::array({{{"lr", 1e-3}, {"runs", 2}, {"locked_in", 0}, {"mean_steps", 1000.0}, {"median_recall", 0.2}},
                                            {{"lr", 1e-2}, {"runs", 2}, {"locked_in", 2}, {"mean_steps", 400.0}, {"median_recall", 0.9}}})}});
  return {{"kind", "recallbench.tuning-selection"}, {"schema_version", 1}, {"tuning_seeds", {100, 101}},
          {"lr", {1e-3, 1e-2}}, {"rule", "lock-ins-then-recall"}, {"cells", cells}};
}

TEST(Leaderboard, TunedRowsMeetAtOneTaskPointWithTheirChoice) {
  const fs::path dir = fs::temp_directory_path() / ("rb_tuned_board_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "tuning");
  json doc = battery_doc();
  doc["tuning"] = {{"lr", {1e-3, 1e-2}}, {"seeds", {100, 101}}, {"rule", "lock-ins-then-recall"}};
  RunSet runs = results({at_rate(planted("a", 4, 10), 1e-2), at_rate(planted("a", 8, 9), 1e-2),
                         at_rate(planted("b", 4, 3), 1e-3), at_rate(planted("b", 8, 2), 1e-3)},
                        doc);
  runs.source = dir.string();

  Leaderboard board;
  EXPECT_THROW(add_results(board, runs, false), UsageError);  // no tuning/selection.json
  write_json_atomic(dir / "tuning" / "selection.json", selection({{"a", 1e-2}, {"b", 1e-2}}));
  board = Leaderboard{};
  try {
    add_results(board, runs, false);
    ADD_FAILURE() << "b trained at 1e-3 although its choice is 1e-2";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("but the tuning stage chose 0.01 for b"), std::string::npos) << e.what();
  }
  write_json_atomic(dir / "tuning" / "selection.json", selection({{"a", 1e-2}, {"b", 1e-3}}));
  board = Leaderboard{};
  add_results(board, runs, false);
  ASSERT_TRUE(board.tuned());
  ASSERT_TRUE(board.row("b")->tuning.has_value());
  EXPECT_EQ(board.row("b")->tuning->lr, 1e-3);
  const Standing st = rank_cells(board, 0.05);
  EXPECT_EQ(st.tasks.size(), 2u);  // a at 1e-2 and b at 1e-3 share each task point
  EXPECT_EQ(overall(st, "a").rank, 1);

  write_json_atomic(dir / "board.json", leaderboard_json(board));
  const Leaderboard again = read_leaderboard(dir / "board.json");
  ASSERT_TRUE(again.row("a")->tuning.has_value());
  EXPECT_EQ(again.row("a")->tuning->lr, 1e-2);
  EXPECT_EQ(again.row("a")->tuning->rows.size(), 2u);

  // The board before: one common rate, b better than a there; c only before.
  Leaderboard before;
  add_results(before, results({planted("a", 4, 2), planted("a", 8, 1), planted("b", 4, 10), planted("b", 8, 9),
                               planted("c", 4, 5), planted("c", 8, 5)}),
              false);
  const TuningComparison cmp = compare_tuning(board, before, 0.05);
  ASSERT_EQ(cmp.cells.size(), 2u);
  EXPECT_EQ(cmp.only_before, std::vector<std::string>{"c"});
  const auto& a = cmp.cells[0].cell == "a" ? cmp.cells[0] : cmp.cells[1];
  EXPECT_EQ(a.rank_before, 2);
  EXPECT_EQ(a.rank_after, 1);
  EXPECT_EQ(a.locked_before, 3);
  EXPECT_EQ(a.locked_after, 19);
  EXPECT_EQ(a.joined.size(), 2u);
  const std::string text = leaderboard_text(board, st, &before);
  EXPECT_NE(text.find("not re-recorded yet: c"), std::string::npos) << text;
  const std::string md = leaderboard_markdown(board, st);
  EXPECT_NE(md.find("Learning rates"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rb::reports
