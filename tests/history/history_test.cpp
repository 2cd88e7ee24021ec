// The history database (history/history.h) and the change-point tests (stats/changepoint.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "history/analysis.h"
#include "suite/history_text.h"
#include "history/history.h"
#include "stats/changepoint.h"

namespace rb::history {
namespace {

namespace fs = std::filesystem;

fs::path temp_db(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("rb_history_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove(p);
  return p;
}

Batch two_commits() {
  Batch b;
  b.battery = "tiny";
  b.commits.push_back({"aaaa1111", "", "2026-01-01T00:00:00Z", "main", "first", nullptr});
  b.commits.push_back({"bbbb2222", "aaaa1111", "2026-01-02T00:00:00Z", "main", "second", nullptr});
  for (const char* c : {"aaaa1111", "bbbb2222"})
    for (int64_t s = 0; s < 4; ++s) {
      Outcome o;
      o.commit = c;
      o.config = "cfg";
      o.seed = s;
      o.locked_in = s < 3;
      if (o.locked_in) o.lock_in_step = 100 + s;
      o.budget = 400;
      o.recall = o.locked_in ? 0.99 : 0.3;
      b.outcomes.push_back(o);
    }
  b.benchmarks.push_back({"bbbb2222", "kernel/x", "s1", 0.5});
  b.verdicts.push_back({"bbbb2222", "claim-1", "reproduced", 0.01});
  return b;
}

std::string dump(const History& h) {
  std::ostringstream out;
  h.export_jsonl(out);
  return out.str();
}

TEST(HistoryDb, IngestIsIdempotentAndRoundTrips) {
  const auto path = temp_db("idem");
  History h(path.string(), History::Mode::kWrite);
  const auto first = h.ingest(two_commits());
  EXPECT_EQ(first.commits, 2);
  EXPECT_EQ(first.outcomes, 8);
  EXPECT_EQ(h.battery(), "tiny");
  const std::string before = dump(h);
  const auto again = h.ingest(two_commits());
  EXPECT_EQ(again.outcomes, 0);
  EXPECT_EQ(again.unchanged, 10);
  EXPECT_EQ(dump(h), before);

  std::istringstream in(before);
  const Batch parsed = parse_jsonl(in, "export");
  const auto copy_path = temp_db("copy");
  History copy(copy_path.string(), History::Mode::kWrite);
  copy.ingest(parsed);
  EXPECT_EQ(dump(copy), before);
  fs::remove(path);
  fs::remove(copy_path);
}

// The learning label (issue 59): diagnosed from the run's curve when a results set is added, stored, exported
// and imported, and read back into the outcomes a pooled baseline judges with; an older row reads as unknown.
TEST(HistoryDb, TheLearningLabelIsAddedExportedAndImported) {
  rb::RunSet runs;
  runs.battery = "tiny";
  rb::Config cfg;
  cfg.key = "cfg";
  cfg.cell = "diag";
  cfg.task = "mqar";
  cfg.set_train({{"steps", 1000}, {"eval_every", 25}, {"warmup", 0.05}});
  for (int64_t s = 0; s < 3; ++s) {
    rb::SeedOutcome o;
    o.seed = s;
    o.final_accuracy = o.best_accuracy = 0.3;
    o.steps = 1000;
    for (int64_t step = 25; step <= 1000; step += 25)  // seed 0 flat, seed 1 still rising; seed 2 no curve
      if (s < 2) o.curve.push_back({step, s == 0 ? 0.3 : 0.05 + 0.5 * step / 1000.0, s == 0 ? 2.0 : 3.0 - 1.5 * step / 1000.0});
    cfg.seeds.push_back(o);
  }
  runs.configs.push_back(cfg);
  const Batch batch = batch_from_runs(runs, {"cccc3333", "", "2026-01-03T00:00:00Z", "main", "third", nullptr});
  ASSERT_EQ(batch.outcomes.size(), 3u);
  EXPECT_EQ(batch.outcomes[0].learning, rb::Learning::kPlateaued);
  EXPECT_EQ(batch.outcomes[1].learning, rb::Learning::kBudgetLimited);
  EXPECT_EQ(batch.outcomes[2].learning, rb::Learning::kUnknown);
  const auto path = temp_db("learning");
  History h(path.string(), History::Mode::kWrite);
  h.ingest(batch);
  const auto stored = h.outcomes("cfg");
  ASSERT_EQ(stored.size(), 3u);
  EXPECT_EQ(stored[1].learning, rb::Learning::kBudgetLimited);
  const std::string text = dump(h);
  EXPECT_NE(text.find("\"learning\":\"plateaued\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"learning\":\"budget-limited\""), std::string::npos) << text;
  std::istringstream in(text);
  const Batch parsed = parse_jsonl(in, "export");
  EXPECT_EQ(parsed.outcomes[0].learning, rb::Learning::kPlateaued);
  std::istringstream bad(R"({"recallbench_history": 3, "battery": "tiny"}
{"commit": "dddd4444", "parent": null, "date": "2026-01-04T00:00:00Z", "subject": "x", "branch": "main"}
{"commit": "dddd4444", "parent": null, "date": "2026-01-04T00:00:00Z", "config": "c", "seed": 0, "locked_in": false, "lock_in_step": null, "budget": 100, "recall": 0.1, "learning": "bored"}
)");
  EXPECT_THROW(parse_jsonl(bad, "bad"), UsageError);
  fs::remove(path);
}

TEST(HistoryDb, ConflictsAndOtherBatteriesWriteNothing) {
  const auto path = temp_db("conflict");
  History h(path.string(), History::Mode::kWrite);
  h.ingest(two_commits());
  const std::string before = dump(h);
  Batch changed = two_commits();
  changed.outcomes.back().recall = 0.5;
  changed.outcomes.push_back(changed.outcomes.back());
  changed.outcomes.back().seed = 99;  // would be new, but the batch is refused as a whole
  EXPECT_THROW(h.ingest(changed), UsageError);
  Batch other = two_commits();
  other.battery = "another";
  EXPECT_THROW(h.ingest(other), UsageError);
  Batch reparented = two_commits();
  reparented.commits[1].parent = "cccc3333";
  EXPECT_THROW(h.ingest(reparented), UsageError);
  EXPECT_EQ(dump(h), before);
  fs::remove(path);
}

TEST(HistoryDb, CommitsFollowTheParentChainBeforeDates) {
  // The child is dated before its parent (a rebase, a skewed clock): the chain wins.
  std::vector<CommitInfo> c = {{"c3", "c2", "2026-01-01", "", "", nullptr},
                               {"c2", "c1", "2026-01-05", "", "", nullptr},
                               {"c1", "", "2026-01-03", "", "", nullptr},
                               {"x9", "", "2026-01-02", "", "", nullptr}};
  const auto o = order_commits(c);
  std::vector<std::string> hashes;
  for (const auto& x : o) hashes.push_back(x.hash);
  EXPECT_EQ(hashes, (std::vector<std::string>{"x9", "c1", "c2", "c3"}));
}

TEST(HistoryDb, RefusesWhatIsNotAHistory) {
  const auto path = temp_db("garbage");
  {
    std::ofstream(path) << std::string(5000, 'x');
  }
  EXPECT_THROW(History(path.string(), History::Mode::kRead), UsageError);
  EXPECT_THROW(History(path.string(), History::Mode::kWrite), UsageError);
  EXPECT_THROW(History(temp_db("absent").string(), History::Mode::kRead), UsageError);
  fs::remove(path);
}

TEST(HistoryJsonl, RejectsBadLinesWithTheirNumber) {
  std::istringstream in("{\"recallbench_history\": 1}\n{\"commit\": \"abcd\", \"date\": \"d\", \"config\": \"k\", "
                        "\"seed\": 1, \"locked_in\": true, \"lock_in_step\": null, \"budget\": 10, \"recall\": 1}\n");
  try {
    parse_jsonl(in, "f");
    FAIL() << "accepted a locked-in seed without a step";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

// --- change points ---------------------------------------------------------------------------------

std::vector<stats::SeriesGroup> binary_series(int commits, int seeds, int change_at, double p0, double p1, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<stats::SeriesGroup> g(static_cast<size_t>(commits));
  for (int c = 0; c < commits; ++c)
    for (int s = 0; s < seeds; ++s) g[static_cast<size_t>(c)].values.push_back(u(rng) < (c >= change_at ? p1 : p0) ? 1 : 0);
  return g;
}

TEST(ChangePoint, StepFindsAPlantedLockInDrop) {
  const auto g = binary_series(30, 10, 16, 0.9, 0.4, 7);
  const auto t = stats::step_test(g, 0, 30, stats::SeriesKind::kBinary);
  EXPECT_EQ(t.split, 16);
  EXPECT_LT(t.p, 0.001);
  EXPECT_LT(t.z, 0);  // the right side locks in less
}

TEST(ChangePoint, NullPValuesAreRoughlyUniform) {
  int below = 0;
  const int trials = 200;
  stats::ChangeTestOptions o;
  o.permutations = 199;
  o.max_permutations = 199;
  for (int i = 0; i < trials; ++i) {
    const auto g = binary_series(20, 10, 99, 0.7, 0.7, 1000 + static_cast<uint64_t>(i));
    below += stats::step_test(g, 0, 20, stats::SeriesKind::kBinary, o).p <= 0.1 ? 1 : 0;
  }
  EXPECT_LE(below, 32);  // 10% of 200 = 20; binomial sd 4.2
  EXPECT_GE(below, 8);
}

TEST(ChangePoint, SurvivalStepAndTrend) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n(0, 0.25);
  std::vector<stats::SeriesGroup> step(30), drift(30);
  for (int c = 0; c < 30; ++c)
    for (int s = 0; s < 10; ++s) {
      const double base = 1000 * std::exp(n(rng));
      step[static_cast<size_t>(c)].times.push_back({base * (c >= 20 ? 1.6 : 1.0), true});
      const double t = base * std::pow(1.03, c);
      drift[static_cast<size_t>(c)].times.push_back({std::min(t, 3000.0), t <= 3000.0});
    }
  const auto st = stats::step_test(step, 0, 30, stats::SeriesKind::kSurvival);
  EXPECT_EQ(st.split, 20);
  EXPECT_LT(st.p, 0.001);
  EXPECT_LT(st.z, 0);  // later events score lower
  const auto tr = stats::trend_test(drift, 0, 30, stats::SeriesKind::kSurvival);
  EXPECT_LT(tr.p, 0.001);
  // Deterministic: the same input gives the same p.
  EXPECT_EQ(stats::trend_test(drift, 0, 30, stats::SeriesKind::kSurvival).p, tr.p);
}

TEST(ChangePoint, SegmentationFindsTwoSteps) {
  std::vector<stats::SeriesGroup> g(30);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0, 1);
  for (int c = 0; c < 30; ++c)
    for (int s = 0; s < 8; ++s) g[static_cast<size_t>(c)].values.push_back(n(rng) + (c >= 10 ? 3 : 0) + (c >= 20 ? 3 : 0));
  const auto top = stats::step_test(g, 0, 30, stats::SeriesKind::kContinuous);
  const auto all = stats::segment_below(g, 0, 30, top, stats::SeriesKind::kContinuous, 0.05);
  std::vector<int64_t> splits;
  for (const auto& t : all) splits.push_back(t.split);
  std::sort(splits.begin(), splits.end());
  EXPECT_EQ(splits, (std::vector<int64_t>{10, 20}));
}

// Commits that rerun the same seeds (deterministic runs): with 7 commits, permuting whole commits cannot
// get below 2/35; permuting each seed's outcomes among its commits can.
TEST(ChangePoint, WithinSeedsFindsAStepAmongFewCommits) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n(0, 0.3);
  std::vector<double> base(20);
  for (auto& b : base) b = 1000 * std::exp(n(rng));
  std::vector<stats::SeriesGroup> g(7);
  for (int c = 0; c < 7; ++c)
    for (int s = 0; s < 20; ++s) {
      g[static_cast<size_t>(c)].times.push_back({base[static_cast<size_t>(s)] * (c >= 3 ? 1.5 : 1.0), true});
      g[static_cast<size_t>(c)].ids.push_back(s);
    }
  EXPECT_GT(stats::step_test(g, 0, 7, stats::SeriesKind::kSurvival).p, 0.03);  // 2/35 = 0.057 exactly
  const auto w = stats::step_test_within_seeds(g, 0, 7, stats::SeriesKind::kSurvival);
  EXPECT_TRUE(w.within_seeds);
  EXPECT_EQ(w.split, 3);
  EXPECT_LT(w.p, 1e-3);
  // Fresh seeds at every commit: nothing to block on.
  for (int c = 0; c < 7; ++c)
    for (auto& id : g[static_cast<size_t>(c)].ids) id += 100 * c;
  EXPECT_EQ(stats::step_test_within_seeds(g, 0, 7, stats::SeriesKind::kSurvival).p, 1.0);
}

TEST(ChangePoint, WithinSeedsNullPValuesAreRoughlyUniform) {
  stats::ChangeTestOptions o;
  o.permutations = 199;
  o.max_permutations = 199;
  std::mt19937_64 rng(12);
  std::normal_distribution<double> n(0, 1);
  int below = 0;
  const int trials = 200;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> seed_effect(10);
    for (auto& e : seed_effect) e = 3 * n(rng);
    std::vector<stats::SeriesGroup> g(8);
    for (int c = 0; c < 8; ++c)
      for (int s = 0; s < 10; ++s) {
        g[static_cast<size_t>(c)].values.push_back(seed_effect[static_cast<size_t>(s)] + n(rng));
        g[static_cast<size_t>(c)].ids.push_back(s);
      }
    below += stats::step_test_within_seeds(g, 0, 8, stats::SeriesKind::kContinuous, o).p <= 0.1 ? 1 : 0;
  }
  EXPECT_LE(below, 32);
  EXPECT_GE(below, 8);
}

TEST(ChangePoint, NoVariationIsNoChange) {
  std::vector<stats::SeriesGroup> g(5, stats::SeriesGroup{{1, 1, 1}, {}, {}});
  EXPECT_EQ(stats::step_test(g, 0, 5, stats::SeriesKind::kBinary).p, 1.0);
  EXPECT_EQ(stats::trend_test(g, 0, 5, stats::SeriesKind::kBinary).p, 1.0);
}

// Paired exact tests: the signed-rank null by enumeration, the max-T over statistics flipped together, and
// Tarone's rule leaving out the tests that cannot reach alpha / K.
TEST(PairedTests, SignedRankAndMaxTAreExact) {
  const auto r = stats::signed_rank_test({1, 2, 3, 4, 5, 0});
  EXPECT_EQ(r.n, 5);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 32.0);
  EXPECT_DOUBLE_EQ(r.min_p, 2.0 / 32.0);
  EXPECT_DOUBLE_EQ(stats::signed_rank_test({1, -2, 3, -4, 5, -6}).p_value, 54.0 / 64.0);  // W = 9, centre 10.5
  // One statistic, +1/-1: the two-sided sign test (7 of 7 one way: 2^-6).
  const auto t = stats::paired_max_t({{1, 1, 1, 1, 1, 1, 1, 0, 0}});
  EXPECT_EQ(t.untied, 7);
  EXPECT_DOUBLE_EQ(t.joint_p, 2.0 / 128.0);
  EXPECT_DOUBLE_EQ(t.min_p, 2.0 / 128.0);
  // Two statistics: a loss in one cannot be paid for by a gain in the other (each judged on its own |z|).
  const auto two = stats::paired_max_t({{1, 1, 1, 1, 1, 1, 1, 1}, {-1, -1, -1, -1, -1, -1, -1, -1}});
  EXPECT_DOUBLE_EQ(two.p[0], 2.0 / 256.0);
  EXPECT_DOUBLE_EQ(two.p[1], 2.0 / 256.0);
  const auto tar = stats::tarone_bonferroni({0.001, 0.5, 0.2}, {0.001, 0.25, 0.2}, 0.05);
  EXPECT_EQ(tar.family, 1);  // only the first can reach 0.05 / 1
  EXPECT_TRUE(tar.in_family[0]);
  EXPECT_FALSE(tar.in_family[1]);
  EXPECT_DOUBLE_EQ(tar.adjusted[0], 0.001);
  EXPECT_DOUBLE_EQ(tar.adjusted[1], 1.0);
}

// Commits rerunning the same seeds: bit-identical reruns are one epoch, however many commits they span, so
// ten copies of one commit are not ten observations; a neutral redraw is a new epoch.
TEST(HistoryAnalysis, BitIdenticalRerunsAreOneEpoch) {
  const fs::path path = temp_db("epochs");
  Batch b;
  b.battery = "tiny";
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> draw(10);
  std::string parent;
  for (int c = 0; c < 12; ++c) {
    const std::string hash = fmt::format("{:08x}", 0xc0de0000 + c);
    b.commits.push_back({hash, parent, fmt::format("2026-01-{:02d}T00:00:00Z", c + 1), "main", "c", nullptr});
    parent = hash;
    if (c == 0 || c == 6)  // a neutral numerical change at commit 6: every seed redrawn
      for (auto& d : draw) d = u(rng);
    for (int64_t s = 0; s < 10; ++s) {
      Outcome o;
      o.commit = hash;
      o.config = "cfg";
      o.seed = s;
      o.locked_in = draw[static_cast<size_t>(s)] < 0.5;
      if (o.locked_in) o.lock_in_step = 100 + static_cast<int64_t>(1000 * draw[static_cast<size_t>(s)]);
      o.budget = 2000;
      o.recall = o.locked_in ? 0.99 : 0.2 + draw[static_cast<size_t>(s)] / 10;
      b.outcomes.push_back(o);
    }
  }
  {
    History h(path.string(), History::Mode::kWrite);
    h.ingest(b);
  }
  const History h(path.string(), History::Mode::kRead);
  const Analysis a = analyse(h, {});
  ASSERT_EQ(a.configs.size(), 1u);
  EXPECT_EQ(a.configs[0].epochs, 2);
  EXPECT_EQ(a.tests, 1);  // one paired test of the config at its one epoch boundary
  for (const auto& c : a.changes) EXPECT_EQ(c.design, judge::Design::kPairs);
  EXPECT_NE(changes_table(a).find("1 test: 1 in the family, judged at alpha/1"), std::string::npos) << changes_table(a);
  fs::remove(path);
}

// Issue 61: the family's counts are said once, and agree with the list of tests that left it. With one test
// that cannot reach alpha, Tarone's K is 1 but no test is in the family.
TEST(HistoryText, TheFamilyCountsAreSaidOnceAndRight) {
  Analysis a;
  a.tests = 1;
  a.family = 1;
  Analysis::Undecided u;
  u.label = "mqar/diag";
  u.has = 3;
  u.needs = 5;
  a.undecided.push_back(u);
  const std::string text = changes_table(a);
  EXPECT_NE(text.find("1 test: none in the family, judged at alpha/1 (Bonferroni over the tests that can reach it, "
                      "Tarone), 1 left it"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("1 in the family"), std::string::npos) << text;
  EXPECT_EQ(text.find("1 of 1"), std::string::npos) << text;  // said once
  EXPECT_NE(text.find("left the family (they cannot reach alpha/K with the data they have):\n  mqar/diag: needs 5"),
            std::string::npos) << text;
  a.tests = 4;
  a.family = 2;
  EXPECT_NE(changes_table(a).find("4 tests: 3 in the family, judged at alpha/2"), std::string::npos) << changes_table(a);
}

// A regression that arrives in steps each below the gate's floors (four commits each x1.15 slower) fails the
// history-based gate: the pool's anchor is the first epoch (a regression never moves it), not the previous
// commit. An improvement moves it.
Batch creep(double first_factor) {
  Batch b;
  b.battery = "tiny";
  std::string parent;
  double factor = 1.0;
  for (int c = 0; c < 6; ++c) {
    const std::string hash = fmt::format("{:08x}", 0xcee00000 + c);
    b.commits.push_back({hash, parent, fmt::format("2026-02-{:02d}T00:00:00Z", c + 1), "main", "c", nullptr});
    parent = hash;
    if (c >= 1 && c <= 4) factor *= c == 1 ? first_factor : 1.15;
    for (int64_t s = 0; s < 10; ++s) {
      Outcome o;
      o.commit = hash;
      o.config = "cfg";
      o.seed = s;
      o.locked_in = true;
      o.lock_in_step = static_cast<int64_t>(std::lround((400 + 37 * s) * factor));
      o.budget = 4000;
      o.recall = 0.99;
      b.outcomes.push_back(o);
    }
  }
  return b;
}

TEST(HistoryAnalysis, CreepFailsAgainstTheAnchor) {
  const fs::path path = temp_db("creep");
  {
    History h(path.string(), History::Mode::kWrite);
    h.ingest(creep(1.15));
  }
  const History h(path.string(), History::Mode::kRead);
  const std::string last = h.commits().back().hash;
  const auto current = commit_configs(h, last, {});
  ASSERT_EQ(current.size(), 1u);
  const auto pool = pooled_baseline(h, current, last, 0.05, nullptr);
  ASSERT_EQ(pool.configs.size(), 1u);
  for (const auto& s : pool.configs[0].seeds) EXPECT_EQ(s.lock_in_step, 400 + 37 * s.seed) << "seed " << s.seed;
  const auto cmp = judge::compare(pool.configs, current);
  EXPECT_EQ(cmp.verdict(), judge::Verdict::kRegression);
  fs::remove(path);

  // The first step an improvement (x0.5), then three x1.15: the anchor is the improved epoch.
  const fs::path better = temp_db("improved");
  {
    History hb(better.string(), History::Mode::kWrite);
    hb.ingest(creep(0.5));
  }
  const History hb(better.string(), History::Mode::kRead);
  const auto pool2 = pooled_baseline(hb, commit_configs(hb, hb.commits().back().hash, {}), hb.commits().back().hash,
                                     0.05, nullptr);
  ASSERT_EQ(pool2.configs.size(), 1u);
  for (const auto& s : pool2.configs[0].seeds)
    EXPECT_EQ(s.lock_in_step, std::lround((400 + 37 * s.seed) * 0.5)) << "seed " << s.seed;
  fs::remove(better);
}

TEST(HistoryAnalysis, AnAcceptedChangeMovesTheAnchor) {
  const fs::path path = temp_db("accepted");
  Batch b = creep(1.15);
  const std::string third = b.commits[3].hash;  // x1.15^3
  {
    History h(path.string(), History::Mode::kWrite);
    h.ingest(b);
    Batch accept;
    accept.acceptances = {{third, "cfg", "slower, traded for a smaller state"}, {third, "other", "not a config here"}};
    EXPECT_EQ(h.ingest(accept).acceptances, 2);
    EXPECT_EQ(h.ingest(accept).unchanged, 2);  // again: already there
    accept.acceptances = {{third, "cfg", "another reason"}};
    EXPECT_THROW(h.ingest(accept), UsageError);
    accept.acceptances = {{"deadbeef", "cfg", "a commit the history does not hold"}};
    EXPECT_THROW(h.ingest(accept), UsageError);
  }
  const History h(path.string(), History::Mode::kRead);
  ASSERT_EQ(h.acceptances().size(), 2u);
  const std::string last = h.commits().back().hash;
  const auto current = commit_configs(h, last, {});
  std::vector<std::string> notes;
  const auto pool = pooled_baseline(h, current, last, 0.05, &notes);
  ASSERT_EQ(pool.configs.size(), 1u);
  const double f3 = 1.15 * 1.15 * 1.15;
  for (const auto& s : pool.configs[0].seeds)
    EXPECT_EQ(s.lock_in_step, std::lround((400 + 37 * s.seed) * f3)) << "seed " << s.seed;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("accepted at " + third.substr(0, 7)), std::string::npos) << notes[0];
  // Against the accepted level only the last x1.15 remains: no regression (it was one against the first epoch).
  EXPECT_NE(judge::compare(pool.configs, current).verdict(), judge::Verdict::kRegression);
  fs::remove(path);
}

}  // namespace
}  // namespace rb::history
