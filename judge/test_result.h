// One statistical test as typed data: which test, its alternative, its p-value and the p-value after the
// multiple-comparison adjustment of its family. Every judgement in judge/ reports its tests this way.
#pragma once

#include <vector>

#include "stats/stats.h"

namespace rb::judge {

enum class Test { kFisher, kMannWhitney, kLogRank, kSequentialMinP };

struct TestResult {
  Test test = Test::kFisher;
  stats::Alternative alternative = stats::Alternative::kTwoSided;
  double p = 1.0;
  double p_adjusted = 1.0;  // after adjustment across its family (= p when alone)

  // The project's one rejection rule (stats::significant) on the adjusted p.
  bool rejects(double alpha) const { return stats::significant(p_adjusted, alpha); }
};

// Adjusts one family of tests together (sets each p_adjusted from the family's p-values).
void adjust_family(const std::vector<TestResult*>& family, stats::AdjustMethod method);

}  // namespace rb::judge
