// verify: every verdict kind on planted results, the power boundary, per-depth Holm, the gate's exit code,
// and bad claims files.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "reports/claims.h"
#include "stats/stats.h"

namespace rb::reports {
namespace {

// `cell` on mqar (pairs, length), n seeds, the first k locked in; recall 0.95 locked, `low` otherwise.
Config planted(const std::string& cell, int64_t k, int64_t n, int64_t length = 64, double low = 0.2,
               const std::string& curriculum = "none") {
  Config c;
  c.cell = cell;
  c.task = "mqar";
  c.task_options = {{"pairs", 8}, {"length", length}, {"vocab", 64}};
  c.key = "mqar/" + cell + "/length:" + std::to_string(length) + "/" + curriculum;
  c.model = {{"d_model", 32}, {"layers", 2}};
  c.train = {{"steps", 1000}, {"curriculum", curriculum}};
  for (int64_t s = 0; s < n; ++s) {
    SeedOutcome o;
    o.seed = s;
    o.locked_in = s < k;
    o.final_accuracy = o.locked_in ? 0.95 + 0.001 * s : low + 0.01 * s;
    c.seeds.push_back(o);
  }
  return c;
}

json claim(const std::string& id, const std::string& direction, json effect, const std::string& statistic = "fisher") {
  return {{"id", id}, {"claim", "the conv helps"}, {"a", {{"cell", "x+conv"}, {"task", "mqar"}}},
          {"b", {{"cell", "x"}, {"task", "mqar"}}}, {"statistic", statistic}, {"direction", direction},
          {"effect", effect}};
}

ClaimSet claims(std::vector<json> list) {
  return claims_from_json({{"schema_version", 1}, {"kind", "recallbench.claims"}, {"claims", list}}, "test");
}

RunSet runs(std::vector<Config> configs) {
  RunSet r;
  r.configs = std::move(configs);
  return r;
}

ClaimVerdict verdict_of(const json& c, std::vector<Config> configs) {
  static ClaimSet keep;  // verdicts point into the set
  keep = claims({c});
  return verify_claims(keep, {runs(std::move(configs))}).at(0);
}

TEST(Verify, ReproducedContradictedNoEffectUndecided) {
  const json greater = claim("conv", "greater", {{"a", 0.9}, {"b", 0.1}});
  EXPECT_EQ(verdict_of(greater, {planted("x+conv", 10, 10), planted("x", 0, 10)}).verdict, "reproduced");
  EXPECT_EQ(verdict_of(greater, {planted("x+conv", 0, 10), planted("x", 10, 10)}).verdict, "contradicted");
  const ClaimVerdict none = verdict_of(greater, {planted("x+conv", 5, 10), planted("x", 5, 10)});
  EXPECT_EQ(none.verdict, "no effect");
  EXPECT_GE(none.power, 0.8);
  const ClaimVerdict few = verdict_of(greater, {planted("x+conv", 2, 3), planted("x", 1, 3)});
  EXPECT_EQ(few.verdict, "undecided");
  EXPECT_LT(few.power, 0.8);
  EXPECT_EQ(few.seeds_needed, stats::seeds_for_power(0.9, 0.1, 0.8, 0.05, stats::Alternative::kGreater).n);
  EXPECT_NE(few.note.find("seeds per arm"), std::string::npos);
}

TEST(Verify, PowerBoundary) {
  // The first n at which the claimed effect (0.7 vs 0.2, one-sided) reaches 80% power: with n seeds and no
  // difference the verdict is "no effect", with n - 1 it is "undecided".
  const auto plan = stats::seeds_for_power(0.7, 0.2, 0.8, 0.05, stats::Alternative::kGreater);
  ASSERT_TRUE(plan.reached);
  const int64_t n = plan.n;
  ASSERT_LT(stats::fisher_power(0.7, 0.2, n - 1, n - 1, 0.05, stats::Alternative::kGreater), 0.8);
  const json c = claim("edge", "greater", {{"a", 0.7}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(c, {planted("x+conv", n / 2, n), planted("x", n / 2, n)}).verdict, "no effect");
  EXPECT_EQ(verdict_of(c, {planted("x+conv", (n - 1) / 2, n - 1), planted("x", (n - 1) / 2, n - 1)}).verdict, "undecided");
}

TEST(Verify, NoDifferenceClaims) {
  const json tie = claim("tie", "none", {{"a", 0.9}, {"b", 0.2}});
  EXPECT_EQ(verdict_of(tie, {planted("x+conv", 6, 12), planted("x", 7, 12)}).verdict, "reproduced");
  EXPECT_EQ(verdict_of(tie, {planted("x+conv", 12, 12), planted("x", 1, 12)}).verdict, "contradicted");
  EXPECT_EQ(verdict_of(tie, {planted("x+conv", 2, 3), planted("x", 2, 3)}).verdict, "undecided");
}

TEST(Verify, PerDepthNotLessWithHolm) {
  json c = claim("armed", "not-less", {{"a", 0.2}, {"b", 0.9}});
  c["over"] = "length";
  // Equal at two depths, armed far worse at the third: contradicted.
  auto v = verdict_of(c, {planted("x+conv", 9, 10, 16), planted("x", 9, 10, 16), planted("x+conv", 5, 10, 32),
                          planted("x", 5, 10, 32), planted("x+conv", 0, 10, 64), planted("x", 10, 10, 64)});
  EXPECT_EQ(v.verdict, "contradicted");
  ASSERT_EQ(v.comparisons.size(), 3u);
  EXPECT_EQ(v.comparisons[0].depth, 16);  // ordered by depth
  EXPECT_GE(v.comparisons[2].p_opposite_adj, v.comparisons[2].p_opposite);
  v = verdict_of(c, {planted("x+conv", 9, 10, 16), planted("x", 9, 10, 16), planted("x+conv", 10, 10, 32),
                     planted("x", 5, 10, 32)});
  EXPECT_EQ(v.verdict, "reproduced");
}

TEST(Verify, MannWhitneyOnRecall) {
  const json c = claim("recall", "greater", {{"shift", 0.3}}, "mann-whitney");
  // No seed locks in on either side, but a recalls 0.6.. and b 0.2..: reproduced on recall.
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.6), planted("x", 0, 10, 64, 0.2)}).verdict, "reproduced");
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.2), planted("x", 0, 10, 64, 0.6)}).verdict, "contradicted");
  EXPECT_EQ(verdict_of(c, {planted("x+conv", 0, 10, 64, 0.2), planted("x", 0, 10, 64, 0.2)}).verdict, "no effect");
}

TEST(Verify, NotRunAndSelectors) {
  json c = claim("later", "greater", {{"a", 0.9}, {"b", 0.1}});
  c["needs"] = "length 1024 (about 40 core-hours)";
  const auto v = verdict_of(c, {planted("y", 1, 10)});
  EXPECT_EQ(v.verdict, "not run");
  EXPECT_NE(v.note.find("40 core-hours"), std::string::npos);
  // A side that matches two configs is bad input; train fields narrow it.
  const json loose = claim("loose", "greater", {{"a", 0.9}, {"b", 0.1}});
  EXPECT_THROW(verdict_of(loose, {planted("x+conv", 5, 10, 64, 0.2, "none"), planted("x+conv", 5, 10, 64, 0.2, "distance"),
                                  planted("x", 1, 10)}),
               UsageError);
  json narrow = loose;
  narrow["a"]["train"] = {{"curriculum", "distance"}};
  EXPECT_EQ(verdict_of(narrow, {planted("x+conv", 10, 10, 64, 0.2, "none"), planted("x+conv", 0, 10, 64, 0.2, "distance"),
                                planted("x", 10, 10)})
                .verdict,
            "contradicted");
}

TEST(Verify, GatedClaimNotReproducedExitsOne) {
  json forward = claim("conv", "greater", {{"a", 0.9}, {"b", 0.1}});
  forward["gate"] = true;
  json reversed = forward;
  reversed["direction"] = "less";
  reversed["effect"] = {{"a", 0.1}, {"b", 0.9}};
  const std::vector<Config> data = {planted("x+conv", 10, 10), planted("x", 0, 10)};
  ClaimSet ok = claims({forward}), bad = claims({reversed});
  EXPECT_EQ(verify_exit_code(verify_claims(ok, {runs(data)})), 0);
  const auto v = verify_claims(bad, {runs(data)});
  EXPECT_EQ(v[0].verdict, "contradicted");
  EXPECT_EQ(verify_exit_code(v), 1);
}

TEST(Verify, BadClaimsFiles) {
  EXPECT_THROW(claims({claim("a", "sideways", {{"a", 0.9}, {"b", 0.1}})}), UsageError);
  EXPECT_THROW(claims({claim("a", "greater", {{"a", 0.1}, {"b", 0.9}})}), UsageError);  // effect points the wrong way
  EXPECT_THROW(claims({claim("a", "greater", {{"shift", 0.1}}, "t-test")}), UsageError);
  EXPECT_THROW(claims({claim("a", "greater", {{"a", 0.9}, {"b", 0.1}}), claim("a", "less", {{"a", 0.1}, {"b", 0.9}})}),
               UsageError);  // duplicate id
  json typo = claim("a", "greater", {{"a", 0.9}, {"b", 0.1}});
  typo["aplha"] = 0.01;
  EXPECT_THROW(claims({typo}), UsageError);
  EXPECT_THROW(claims_from_json({{"schema_version", 2}, {"kind", "recallbench.claims"}, {"claims", json::array()}}, "t"),
               UsageError);
}

}  // namespace
}  // namespace rb::reports
