// The leaderboard's ranking (see standing.h).
#include "judge/standing.h"

#include <algorithm>
#include <set>

#include "stats/stats.h"

namespace rb::judge {

std::string point_label(const Config& c) {
  std::string label = c.task_label();
  if (const std::string curriculum = c.curriculum(); curriculum != "none") label += " · curriculum " + curriculum;
  return label;
}

namespace {

// The task points of the entrants (one per setting_key), in label order.
std::vector<TaskStanding> task_points(const std::vector<Entrant>& entrants, Rates rates) {
  std::vector<TaskStanding> tasks;
  std::set<std::string> seen_points;
  for (const auto& r : entrants) {
    for (const auto& c : *r.configs) {
      const std::string p = setting_key(c, rates);
      if (!seen_points.insert(p).second) continue;
      TaskStanding t;
      t.point = p;
      t.label = point_label(c);
      t.capacity_bits = c.capacity_bits;
      tasks.push_back(t);
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  return tasks;
}

// Each row's placing at the task point (absent when the row lacks it), in row order.
void place_rows(TaskStanding& t, const std::vector<Entrant>& entrants, Rates rates) {
  for (const auto& r : entrants) {
    Placing p;
    p.cell = r.cell;
    p.is_new = r.is_new;
    for (const auto& c : *r.configs) {
      if (setting_key(c, rates) != t.point) continue;
      p.present = true;
      p.summary = summarize(c);
      p.state_size = c.state_size;
      p.state_budget = c.state_budget;
      p.recalls = recalls(c);
    }
    t.placings.push_back(p);
  }
}

// Marks the point's best placing and tests every other present one against it (one-sided Fisher on lock-in
// counts; Mann–Whitney on recall where no cell locked in), appending the p-values and their placings.
void test_against_best(TaskStanding& t, std::vector<double>& raw, std::vector<Placing*>& tested) {
  Placing* best = nullptr;
  for (auto& p : t.placings)
    if (p.present && p.summary.n > 0 && (!best || p.summary.rate > best->summary.rate)) best = &p;
  if (!best) return;
  t.by_recall = best->summary.k == 0;
  if (t.by_recall)
    for (auto& p : t.placings)
      if (p.present && p.summary.n > 0 && p.summary.recall.median > best->summary.recall.median) best = &p;
  best->best = true;
  for (auto& p : t.placings) {
    if (!p.present || p.best || p.summary.n == 0) continue;
    if (t.by_recall) {
      p.p_raw = stats::mann_whitney_u(best->recalls, p.recalls, stats::Alternative::kGreater).p_value;
    } else {
      const stats::Table2x2 table{best->summary.k, best->summary.n - best->summary.k, p.summary.k,
                                  p.summary.n - p.summary.k};
      p.p_raw = stats::fisher_p_value(table, stats::Alternative::kGreater);
    }
    raw.push_back(p.p_raw);
    tested.push_back(&p);
  }
}

// Whether the reference solves the point: its placing's lock-in rate against the board's minimum.
void check_reference(TaskStanding& t, const BoardReference& ref) {
  if (ref.cell.empty()) return;
  const auto it = std::find_if(t.placings.begin(), t.placings.end(),
                               [&](const Placing& p) { return p.cell == ref.cell && p.present && p.summary.n > 0; });
  if (it == t.placings.end()) {
    t.status = PointStatus::kNoReference;
    return;
  }
  t.reference_k = it->summary.k, t.reference_n = it->summary.n;
  t.reference_median_step = it->summary.median_lock_in_step;
  t.reference_learning = it->summary.learning;
  t.status = ref.solves(t.reference_k, t.reference_n) ? PointStatus::kRanked : PointStatus::kReferenceFails;
}

// The top group of each point (after Holm) and whether the point separates the cells.
void mark_top_groups(Standing& st) {
  for (auto& t : st.tasks) {
    if (!t.ranked()) continue;
    for (auto& p : t.placings) {
      p.top = p.present && p.summary.n > 0 && (p.best || !stats::significant(p.p_adjusted, st.alpha));
      t.separates = t.separates || (p.present && !p.top);
    }
    if (!t.by_recall)  // a lock-in table separates whenever someone locked in (all tied is a result)
      for (const auto& p : t.placings) t.separates = t.separates || (p.best && p.summary.k > 0);
    st.separating += t.separates ? 1 : 0;
  }
}

// Per row: task points in the top group (of those that separate) and lock-ins; ranks with ties, by rank.
void rank_rows(Standing& st, const std::vector<Entrant>& entrants) {
  for (size_t i = 0; i < entrants.size(); ++i) {
    OverallRow o;
    o.cell = entrants[i].cell;
    o.is_new = entrants[i].is_new;
    for (const auto& t : st.tasks) {
      const Placing& p = t.placings[i];
      if (!p.present) continue;
      ++o.task_points;
      o.locked += p.summary.k;
      o.seeds += p.summary.n;
      if (t.separates && p.top) ++o.top_count;
    }
    st.overall.push_back(o);
  }
  for (auto& o : st.overall) {
    o.rank = 1;
    for (const auto& other : st.overall) {
      if (other.top_count > o.top_count) ++o.rank;
      if (&other != &o && other.top_count == o.top_count) o.tied = true;
    }
  }
  for (const auto& o : st.overall) st.claim_survives = st.claim_survives || o.rank > 1;
  std::sort(st.overall.begin(), st.overall.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.cell < b.cell;
  });
}

}  // namespace

Standing rank_cells(const std::vector<Entrant>& entrants, double alpha, Rates rates, const BoardReference& reference) {
  Standing st;
  st.alpha = alpha;
  st.reference = reference;
  st.tasks = task_points(entrants, rates);
  // Placings, then one Holm family over every (task point, cell) comparison with the point's best.
  std::vector<double> raw;
  std::vector<Placing*> tested;
  for (auto& t : st.tasks) {
    place_rows(t, entrants, rates);
    check_reference(t, reference);
    if (!t.ranked()) {
      ++st.unranked;
      continue;  // no top group: not in the Holm family, not in the overall order
    }
    test_against_best(t, raw, tested);
  }
  const std::vector<double> adjusted = stats::p_adjust(raw, stats::AdjustMethod::kHolm);
  for (size_t i = 0; i < tested.size(); ++i) tested[i]->p_adjusted = adjusted[i];
  mark_top_groups(st);
  rank_rows(st, entrants);
  return st;
}

}  // namespace rb::judge
