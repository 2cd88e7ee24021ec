// The history trend page and its Markdown summary on a document built here: one section with three charts
// per config, the change markers with their short hashes, escaping, null medians, absent fields, the
// Markdown changes table; and a 500-commit × 50-config document that stays a page a browser can open.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "reports/history_page.h"

namespace rb::reports {
namespace {

using json = nlohmann::json;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

std::string hex(int i) { return fmt::format("{:07x}{:033x}", 0xa000000 + i, i); }

// `commits` commits, `configs` configs with a point at every commit; config 0 drops from 8/10 to 2/10 at
// commit `drop` (median time not reached from there on); one benchmark, one claim.
json history_doc(int commits, int configs, int drop) {
  json doc = {{"kind", "recallbench.history_report"}, {"schema_version", 1}, {"database", "ci/history/smoke.db"},
              {"battery", "smoke"}, {"generated", "2026-03-24T18:00:00Z"}, {"alpha", 0.05},
              {"method", "binary segmentation, Holm across series"}};
  for (int i = 0; i < commits; ++i)
    doc["commits"].push_back({{"commit", hex(i)}, {"short", hex(i).substr(0, 7)}, {"date", "2026-03-01T10:00:00Z"},
                              {"subject", fmt::format("commit number {} of the history", i)}, {"branch", "main"}, {"index", i}});
  for (int c = 0; c < configs; ++c) {
    json cfg = {{"config", fmt::format("mqar/cell{}/pairs:8/abcdef{:06d}", c, c)},
                {"label", fmt::format("cell{} · mqar pairs:8 length:64", c)}, {"budget", 3000}};
    for (int i = 0; i < commits; ++i) {
      const bool dropped = c == 0 && i >= drop;
      const int k = dropped ? 2 : 8;
      cfg["points"].push_back({{"commit", hex(i)}, {"index", i}, {"n", 10}, {"locked_in", k}, {"rate", k / 10.0},
                               {"ci", {dropped ? 0.025 : 0.44, dropped ? 0.556 : 0.975}},
                               {"median_time", dropped ? json(nullptr) : json(1200 + i % 7)}, {"rmst", dropped ? 2800.0 : 1400.0},
                               {"recall_median", dropped ? 0.41 : 0.93}, {"recall_q1", dropped ? 0.35 : 0.9},
                               {"recall_q3", dropped ? 0.5 : 0.95}});
    }
    cfg["changes"] = json::array();
    doc["configs"].push_back(cfg);
  }
  const json change = {{"config", doc["configs"][0]["config"]}, {"metric", "lock-in"}, {"kind", "step"}, {"commit", hex(drop)},
                       {"before", 0.8}, {"after", 0.2}, {"effect", -0.6}, {"effect_label", "-60 points"}, {"p", 0.0001},
                       {"p_adjusted", 0.002}};
  doc["configs"][0]["changes"].push_back(change);
  json bench = {{"benchmark", "decay_scan/fused/T:1024"}};
  for (int i = 0; i < commits; ++i) bench["points"].push_back({{"commit", hex(i)}, {"index", i}, {"value", i < 3 ? 0.6 : 0.4}});
  const json speedup = {{"config", "decay_scan/fused/T:1024"}, {"metric", "speed"}, {"kind", "step"}, {"commit", hex(3)},
                        {"first_commit", hex(2)}, {"last_commit", hex(4)}, {"before", 0.6}, {"after", 0.4}, {"effect", 0.67},
                        {"effect_label", "x0.67 faster"}, {"p", 0.001}, {"p_adjusted", 0.01}};
  bench["changes"] = {speedup};
  doc["benchmarks"] = {bench};
  doc["claims"] = {{{"claim", "cell0 beats cell1"},
                    {"points", {{{"commit", hex(1)}, {"index", 1}, {"verdict", "reproduced"}},
                                {{"commit", hex(drop)}, {"index", drop}, {"verdict", "contradicted"}}}}}};
  doc["changes"] = {speedup, change};  // the improvement listed first: the page puts regressions first
  return doc;
}

TEST(HistoryPage, OneSectionWithThreeChartsPerConfig) {
  const json doc = history_doc(30, 3, 17);
  const std::string page = history_html(doc);
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_EQ(count(page, "<section class=\"config\""), 3u);
  EXPECT_EQ(count(page, "<svg class=\"chart trend\""), 3u * 3 + 1);  // three per config, one per benchmark
  for (int c = 0; c < 3; ++c) {
    const size_t at = page.find(fmt::format("<section class=\"config\" id=\"cfg-{}\"", c));
    ASSERT_NE(at, std::string::npos);
    const std::string section = page.substr(at, page.find("</section>", at) - at);
    EXPECT_EQ(count(section, "<svg class=\"chart trend\""), 3u) << "config " << c;
    EXPECT_EQ(count(section, "<circle "), 3u * 30) << "one point per commit and chart";
  }
  EXPECT_NE(page.find("id=\"changes\""), std::string::npos);
  EXPECT_LT(page.find("id=\"changes\""), page.find("id=\"configs\"")) << "the changes table comes first";
  EXPECT_NE(page.find("battery <code>smoke</code>"), std::string::npos);
  EXPECT_NE(page.find("ci/history/smoke.db"), std::string::npos);
  EXPECT_NE(page.find("alpha 0.05"), std::string::npos);
  EXPECT_NE(page.find("id=\"claims\""), std::string::npos);
  EXPECT_EQ(count(page, "<th class=\"vh\""), 2u) << "claims: only commits with a verdict";
}

TEST(HistoryPage, ChangeMarkersAndRegressionsFirst) {
  const json doc = history_doc(30, 3, 17);
  const std::string page = history_html(doc);
  const std::string drop_short = hex(17).substr(0, 7);
  // The marker: a dashed line labelled with the short hash and the effect, in the lock-in chart of config 0.
  EXPECT_NE(page.find("<g class=\"cp\" data-commit=\"" + drop_short + "\">"), std::string::npos);
  EXPECT_NE(page.find(">" + drop_short + " -60 points</text>"), std::string::npos);
  // The range of the benchmark's change as a shaded span, its label with the change commit.
  EXPECT_NE(page.find("class=\"span\""), std::string::npos);
  EXPECT_NE(page.find(">" + hex(3).substr(0, 7) + " x0.67 faster</text>"), std::string::npos);
  // The table: the regression before the improvement although the document lists it second.
  const size_t table = page.find("<table class=\"changes\"");
  ASSERT_NE(table, std::string::npos);
  const size_t reg = page.find("<b>regression</b>", table), imp = page.find("<b>improvement</b>", table);
  ASSERT_NE(reg, std::string::npos);
  ASSERT_NE(imp, std::string::npos);
  EXPECT_LT(reg, imp);
  EXPECT_NE(page.find("80% → 20%", table), std::string::npos);
  EXPECT_NE(page.find("<code>" + hex(2).substr(0, 7) + "</code>..<code>" + hex(4).substr(0, 7) + "</code>", table),
            std::string::npos);
  // Every point tells its commit.
  EXPECT_NE(page.find("data-commit=\"" + drop_short + "\"><title>" + drop_short + " · 2026-03-01 · commit number 17"),
            std::string::npos);
  EXPECT_NE(page.find("<a href=\"#commit-17\"><circle"), std::string::npos);
  EXPECT_NE(page.find("<tr id=\"commit-17\">"), std::string::npos);
}

TEST(HistoryPage, EscapesText) {
  json doc = history_doc(20, 2, 10);
  doc["commits"][10]["subject"] = "fix <script>alert(\"x\")</script> & more";
  doc["configs"][1]["label"] = "a<b> · \"quoted\"";
  doc["database"] = "db/<x>.db";
  const std::string page = history_html(doc);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more"), std::string::npos);
  EXPECT_NE(page.find("a&lt;b&gt; · &quot;quoted&quot;"), std::string::npos);
  EXPECT_NE(page.find("db/&lt;x&gt;.db"), std::string::npos);
  EXPECT_EQ(count(page, "<script>"), 1u) << "only the page's own script";
  const std::string md = history_markdown(doc);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
}

TEST(HistoryPage, NullMedianIsDrawnHollowAtTheBudget) {
  const json doc = history_doc(30, 1, 17);
  const std::string page = history_html(doc);
  EXPECT_EQ(count(page, "class=\"nr\""), 13u) << "commits 17..29 did not reach the median";
  EXPECT_NE(page.find("median not reached within 3000 steps · restricted mean 2800 steps"), std::string::npos);
  EXPECT_NE(page.find("median 1200 steps"), std::string::npos);
  const std::string md = history_markdown(doc);
  EXPECT_NE(md.find("| 2/10 | not reached (> 3000) | 0.410 |"), std::string::npos) << md;
}

TEST(HistoryPage, AbsentFieldsAndNulls) {
  json doc = {{"kind", "recallbench.history_report"}, {"schema_version", 1}};
  EXPECT_NE(history_html(doc).find("No change point found"), std::string::npos);
  EXPECT_NE(history_markdown(doc).find("0 commits"), std::string::npos);
  doc["commits"] = {{{"commit", hex(0)}}, {{"commit", hex(1)}, {"subject", nullptr}}};
  doc["configs"] = {{{"config", "k"}, {"points", {{{"commit", hex(0)}, {"rate", nullptr}, {"ci", nullptr}},
                                                  {{"commit", "unknown"}, {"index", 1}, {"rate", 0.5}, {"n", 2}, {"locked_in", 1}},
                                                  {{"commit", "unknown"}}}}}};
  doc["changes"] = {{{"config", "k"}, {"metric", "recall"}, {"before", nullptr}, {"commit", "nowhere"}}};
  const std::string page = history_html(doc);
  EXPECT_EQ(count(page, "<section class=\"config\""), 1u);
  EXPECT_NE(page.find("lock-in 1/2 (50%)"), std::string::npos);
  EXPECT_NE(history_markdown(doc).find("| k | `" + hex(1).substr(0, 7) + "` | 1/2 | – | – |"), std::string::npos)
      << history_markdown(doc);
}

// A regression is decided by the document's "direction", else by judge::direction_of the metric and the
// levels; the effect label is prose and never consulted.
TEST(HistoryPage, RegressionFromDirectionOrLevelsNeverFromTheLabel) {
  json doc = history_doc(8, 1, 5);
  json& change = doc["changes"][1];  // lock-in 0.8 → 0.2
  change["effect_label"] = "x9.99 faster";
  EXPECT_NE(history_markdown(doc).find("**2 changes, 1 regression**"), std::string::npos);
  change["direction"] = "improvement";
  EXPECT_NE(history_markdown(doc).find("**2 changes, 0 regressions**"), std::string::npos) << history_markdown(doc);
  json& speedup = doc["changes"][0];  // speed 0.6 → 0.4: faster
  speedup["effect_label"] = "x1.50 slower";
  EXPECT_NE(history_markdown(doc).find("**2 changes, 0 regressions**"), std::string::npos);
  EXPECT_EQ(judge::direction_of(judge::Metric::kTime, 100, 130), judge::ChangeDirection::kRegression);
  EXPECT_EQ(judge::direction_of(judge::Metric::kRecall, 0.5, 0.5), judge::ChangeDirection::kNone);
  EXPECT_EQ(judge::direction_of(judge::Metric::kLockIn, 0.2, 0.9), judge::ChangeDirection::kImprovement);
}

TEST(HistoryPage, MarkdownCountsChangesAndLatestPoints) {
  const json doc = history_doc(30, 3, 17);
  const std::string md = history_markdown(doc);
  EXPECT_NE(md.find("## recallbench history: smoke"), std::string::npos);
  EXPECT_NE(md.find("30 commits"), std::string::npos);
  EXPECT_NE(md.find("**2 changes, 1 regression**"), std::string::npos);
  EXPECT_NE(md.find("### Changes\n\n| | metric | config | commit | before → after | effect | p (adjusted) |"), std::string::npos);
  const std::string row = fmt::format("| **regression** | lock-in step | cell0 · mqar pairs:8 length:64 | `{}` commit number 17 "
                                      "of the history | 80% → 20% | -60 points | 0.002 |",
                                      hex(17).substr(0, 7));
  EXPECT_NE(md.find(row), std::string::npos) << md;
  EXPECT_LT(md.find("**regression**"), md.find("| improvement |"));
  EXPECT_NE(md.find("(`" + hex(2).substr(0, 7) + "`..`" + hex(4).substr(0, 7) + "`)"), std::string::npos);
  EXPECT_NE(md.find("### Latest per config"), std::string::npos);
  EXPECT_NE(md.find(fmt::format("| cell1 · mqar pairs:8 length:64 | `{}` | 8/10 | {} | 0.930 |", hex(29).substr(0, 7), 1200 + 29 % 7)),
            std::string::npos)
      << md;
  EXPECT_LT(md.size(), 8000u);
}

// 500 commits × 50 configs: the page is produced and stays lean (no timing assertion: the build may be slow).
TEST(HistoryPage, ScalesTo500CommitsAnd50Configs) {
  json doc = history_doc(500, 50, 250);
  for (auto& c : doc["commits"]) c["subject"] = std::string(60, 's') + " <a long subject line & some>";
  const std::string page = history_html(doc);
  EXPECT_EQ(count(page, "<section class=\"config\""), 50u);
  EXPECT_EQ(count(page, "<circle "), 500u * (50 * 3 + 1));
  EXPECT_LT(page.size(), 40u << 20) << "a page a browser opens";
  EXPECT_LT(page.size() / (500 * (50 * 3 + 1)), 300u) << "bytes per point";
  const std::string md = history_markdown(doc);
  EXPECT_LT(md.size(), 16000u);
}

}  // namespace
}  // namespace rb::reports
