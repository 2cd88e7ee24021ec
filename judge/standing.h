// The leaderboard's ranking as typed data: per task point the best cell, the top group, and the overall
// order (the stored board and its pages: reports/leaderboard.h).
//
// Ranking. Per task point, the best cell is the one with the highest lock-in rate; every other cell is
// tested against it with a one-sided Fisher exact test on the lock-in counts (H1: the best locks in more
// often). All those p-values, over the whole table, form one Holm family. The top group of a task point is
// the best cell and every cell whose adjusted p is at least alpha: not significantly worse than the best.
// At a task point where no cell locked in (a guardrail beyond every cell at this size) the same is done on
// per-seed final recall: the best median recall, one-sided Mann–Whitney, in the same Holm family. The
// overall order counts, per cell, the task points on which it is in the top group; equal counts are equal
// ranks, shown as ties.
//
// The reference. A board may name a reference cell (the unbounded attention): a task point is ranked only
// where the reference's row locks in on at least min_rate of its seeds (8 of 10). Where the ceiling fails, the
// point ranks cells by how fast they learn in the budget, not by what a fixed state can recall: it is shown,
// with the reference's count, and not ranked (no top group, not counted in the overall order). A point the
// reference's row does not have is ranked (nothing to check it by) and says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/results.h"
#include "judge/summary.h"

namespace rb::judge {

// One cell's row as the ranking sees it: its configs, one per task point.
struct Entrant {
  std::string cell;
  bool is_new = false;  // came from --results in this invocation, not from the stored file
  const std::vector<Config>* configs = nullptr;
};

// One cell at one task point.
struct Placing {
  std::string cell;
  bool present = false;         // the row has this task point
  ConfigSummary summary;        // lock-in k/n with its interval, recall spread
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

// Why a task point is or is not ranked.
enum class PointStatus { kRanked, kNoReference, kReferenceFails };

struct BoardReference {
  std::string cell;        // "" = none: every point is ranked
  double min_rate = 0.8;   // the reference's lock-in rate a ranked point needs
  // k / n ≥ min_rate, in integers where they are exact (8 of 10 at 0.8)
  bool solves(int64_t k, int64_t n) const {
    return n > 0 && static_cast<double>(k) >= min_rate * static_cast<double>(n) - 1e-9;
  }
};

struct TaskStanding {
  PointStatus status = PointStatus::kRanked;
  int64_t reference_k = 0, reference_n = 0;  // the reference's lock-ins at this point (when it has it)
  double reference_median_step = -1.0;       // its median steps to lock in (-1: none locked in)
  ConfigLearning reference_learning;         // its seeds that did not lock in, by the diagnosis
  bool ranked() const { return status != PointStatus::kReferenceFails; }
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
  BoardReference reference;
  int64_t unranked = 0;          // task points whose reference fails
  int64_t separating = 0;        // task points that separate
  std::vector<TaskStanding> tasks;
  std::vector<OverallRow> overall;  // by rank, then by cell name
  bool claim_survives = false;      // some cell is outside the top group somewhere
};

// A task point's label: "mqar pairs:8 length:64 vocab:64" (+ " · curriculum distance").
std::string point_label(const Config& c);

// Ranks the entrants (in their order; the placings of each task point follow it).
// `rates`: Rates::kPerCell on a board whose cells train at their own tuned rates (task points ignore the lr).
// `reference`: the board's reference cell and the rate a ranked point needs of it (none: all ranked).
Standing rank_cells(const std::vector<Entrant>& entrants, double alpha = 0.05, Rates rates = Rates::kShared,
                    const BoardReference& reference = BoardReference{});

}  // namespace rb::judge
