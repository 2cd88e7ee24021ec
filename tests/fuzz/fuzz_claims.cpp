// libFuzzer target: claims files as `verify` reads them (judge/claims.h read_claims, the file path
// included), then every verdict rule on what was read: verify_claims against a fixed set of configs (two
// cells on MQAR at two lengths, with and without a curriculum, one arm in the lottery, one at the floor)
// and the JSON, Markdown, text and HTML it writes. Bad input must end in UsageError, never in a crash, a
// hang or another exception.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "core/errors.h"
#include "tests/fuzz/fuzz_input.h"
#include "reports/claims.h"

namespace {

rb::Config config(const std::string& cell, int64_t length, const std::string& curriculum, int64_t locked,
                           double low) {
  rb::Config c;
  c.cell = cell;
  c.task = "mqar";
  c.task_options = {{"pairs", 8}, {"length", length}, {"vocab", 64}, {"filler", "zero"}};
  c.key = "mqar/" + cell + "/length:" + std::to_string(length) + "/" + curriculum;
  c.model = {{"d_model", 32}, {"layers", 2}};
  c.set_train({{"steps", 1000}, {"curriculum", curriculum}, {"threshold", 0.9}});
  for (int64_t s = 0; s < 10; ++s) {
    rb::SeedOutcome o;
    o.seed = s;
    o.reached_threshold = s < locked;
    o.final_accuracy = o.best_accuracy = o.locked_in() ? 0.93 + 0.005 * s : low + 0.02 * s;
    o.lock_in_step = o.locked_in() ? 100 * (s + 1) : -1;
    o.steps = o.locked_in() ? o.lock_in_step : 1000;
    c.seeds.push_back(o);
  }
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rb::RunSet runs = [] {
    rb::RunSet r;
    for (int64_t length : {64, 128}) {
      r.configs.push_back(config("x+conv", length, "none", 6, 0.5));
      r.configs.push_back(config("x", length, "none", 0, 0.05));
      r.configs.push_back(config("x", length, "distance", 3, 0.3));
    }
    return r;
  }();
  const std::string& path = fuzz_input_file("claims", data, size);
  try {
    const rb::judge::ClaimSet set = rb::judge::read_claims(path);
    // Chance as the recall tasks compute it (1/values), so claims with "above_chance" are judged too.
    const rb::judge::ChanceOf chance = [](const rb::Config& c) -> std::optional<double> {
      return 1.0 / static_cast<double>(c.task_options.at("vocab").get<int64_t>() / 2);
    };
    const auto verdicts = rb::judge::verify_claims(set, {runs}, chance);
    (void)rb::reports::verdicts_json(set, verdicts).dump();
    (void)rb::reports::verdicts_markdown(verdicts);
    (void)rb::reports::verdicts_text(verdicts);
    (void)rb::reports::verdicts_html(set, verdicts);
    (void)rb::judge::verify_exit_code(verdicts);
  } catch (const rb::UsageError&) {
  }
  return 0;
}
