// Shared small pieces of the statistics API: parsing and naming of alternatives.
#include <fmt/format.h>

#include "stats/stats.h"
#include "core/errors.h"

namespace rb::stats {

Alternative parse_alternative(std::string_view name) {
  if (name == "two-sided" || name == "two_sided" || name == "two.sided") return Alternative::kTwoSided;
  if (name == "greater") return Alternative::kGreater;
  if (name == "less") return Alternative::kLess;
  throw UsageError(fmt::format("alternative: got '{}', expected two-sided, greater or less", name));
}

const char* alternative_name(Alternative alt) {
  switch (alt) {
    case Alternative::kTwoSided: return "two-sided";
    case Alternative::kGreater: return "greater";
    case Alternative::kLess: return "less";
  }
  return "?";
}

}  // namespace rb::stats
