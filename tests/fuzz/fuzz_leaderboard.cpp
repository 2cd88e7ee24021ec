// libFuzzer target: the stored leaderboard as `leaderboard` reads it (reports/leaderboard.h
// read_leaderboard, the file path included), the ranking over what was read and every rendering of it;
// and the same file read as results (`verify --results` accepts a leaderboard). Bad input must end in
// UsageError, never in a crash, a hang or another exception.
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/errors.h"
#include "tests/fuzz/fuzz_input.h"
#include "reports/leaderboard.h"
#include "reports/results.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = fuzz_input_file("leaderboard", data, size);
  try {
    const rb::reports::Leaderboard board = rb::reports::read_leaderboard(path);
    const rb::reports::Standing st = rb::reports::rank_cells(board);
    (void)rb::reports::standing_json(board, st).dump();
    (void)rb::reports::leaderboard_markdown(board, st);
    (void)rb::reports::leaderboard_html(board, st);
    (void)rb::reports::leaderboard_text(board, st);
    (void)rb::reports::leaderboard_json(board).dump();
  } catch (const rb::UsageError&) {
  }
  try {
    (void)rb::reports::load_results(path);
  } catch (const rb::UsageError&) {
  }
  return 0;
}
