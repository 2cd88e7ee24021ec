// The gates' verdicts and what they mean for a run of the gate: one severity order, one tally and one exit
// code for the recall gate (judge/recall_gate.h) and the speed gate (judge/speed_gate.h).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace rb::judge {

// The recall gate's verdicts, in increasing severity. The last four are judged by identity and never
// compared: the data stream of a seed changed, the task changed (the held-out set), the model changed, or
// the current seeds are not independent draws (two seeds of one config saw the same training batches).
enum class Verdict {
  kNoChange, kImprovement, kBelowMinimumEffect, kInconclusive, kRegression,
  kDataStreamChanged, kTaskChanged, kModelChanged, kSeedsNotIndependent
};
// kBelowMinimumEffect: the primary test finds the config significantly worse, but by less than the minimum
// effects; it passes, and is listed first among the passes (never as "no change").
// "no change", "improvement", "below minimum effect", "inconclusive", "regression", "data stream changed", "task changed",
// "model changed", "seeds not independent".
const char* verdict_name(Verdict v);

// The speed gate's verdicts, in increasing severity.
enum class SpeedVerdict { kNoChange, kImprovement, kUnreliable, kInconclusive, kRegression };
// "no change", "improvement", "unreliable", "inconclusive", "regression".
const char* speed_verdict_name(SpeedVerdict v);

// What a verdict does to the gate: pass, undecided (exit 3 when asked to fail on it), fail (exit 1), or
// refused (exit 2: the baseline must be re-recorded after review).
enum class GateEffect { kPass, kUndecided, kFail, kRefused };
GateEffect gate_effect(Verdict v);
GateEffect gate_effect(SpeedVerdict v);

// The process exit code of a gate whose worst verdict has `effect` (core/errors.h kExit*).
int gate_exit_code(GateEffect effect, bool fail_on_inconclusive);

// Verdicts counted by value (never by position): of(v) is 0 for a verdict not seen.
template <class V>
struct VerdictCounts {
  std::map<V, int64_t> count;
  void add(V v) { ++count[v]; }
  int64_t of(V v) const {
    const auto it = count.find(v);
    return it == count.end() ? 0 : it->second;
  }
  template <class... Vs>
  int64_t of_any(Vs... vs) const { return (of(vs) + ...); }
  // The most severe verdict counted (the enum's order), `none` when nothing was.
  V worst(V none) const { return count.empty() ? none : count.rbegin()->first; }
};

// Counts the verdicts of `items` (each with a `verdict` field).
template <class V, class Item>
VerdictCounts<V> count_verdicts(const std::vector<Item>& items) {
  VerdictCounts<V> counts;
  for (const auto& item : items) counts.add(item.verdict);
  return counts;
}

}  // namespace rb::judge
