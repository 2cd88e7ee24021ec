#include "judge/test_result.h"

namespace rb::judge {

void adjust_family(const std::vector<TestResult*>& family, stats::AdjustMethod method) {
  std::vector<double> p;
  for (const auto* t : family) p.push_back(t->p);
  const auto adjusted = stats::p_adjust(p, method);
  for (size_t i = 0; i < family.size(); ++i) family[i]->p_adjusted = adjusted[i];
}

}  // namespace rb::judge
