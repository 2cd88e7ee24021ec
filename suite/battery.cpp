#include "suite/battery.h"

#include <sstream>

#include "suite/core/errors.h"

namespace rb {

std::vector<int64_t> parse_seeds(const std::string& text) {
  std::vector<int64_t> seeds;
  std::stringstream ss(text);
  std::string part;
  const auto bad = [&]() {
    return UsageError("bad seed list '" + text + "'", "expected e.g. 3, 0-9 or 0,2,5-7 (non-negative integers)");
  };
  while (std::getline(ss, part, ',')) {
    if (part.empty()) throw bad();
    const auto dash = part.find('-');
    try {
      size_t pos = 0;
      if (dash == std::string::npos) {
        const int64_t s = std::stoll(part, &pos);
        if (pos != part.size() || s < 0) throw bad();
        seeds.push_back(s);
      } else {
        const std::string a = part.substr(0, dash), b = part.substr(dash + 1);
        size_t pa = 0, pb = 0;
        const int64_t lo = std::stoll(a, &pa), hi = std::stoll(b, &pb);
        if (pa != a.size() || pb != b.size() || lo < 0 || hi < lo) throw bad();
        for (int64_t s = lo; s <= hi; ++s) seeds.push_back(s);
      }
    } catch (const std::logic_error&) {
      throw bad();
    }
  }
  if (seeds.empty()) throw bad();
  return seeds;
}

namespace {

// The first battery: the convolution knob on MQAR at the size the design's prototype measured.
std::vector<RunSpec> plan_first() {
  std::vector<RunSpec> runs;
  for (const char* cell : {"diag", "diag+conv"}) {
    for (int64_t seed = 0; seed < 3; ++seed) {
      RunSpec s;
      s.cell.name = cell;
      s.task.name = "mqar";
      s.task.options = {{"pairs", 8}, {"length", 64}, {"vocab", 256}};
      s.seed = seed;
      runs.push_back(s);
    }
  }
  return runs;
}

}  // namespace

RB_REGISTER(BatteryRegistry, first,
            BatteryEntry{"first", "conv on/off for linear attention on MQAR (8 pairs, length 64), 3 seeds each",
                         plan_first});

}  // namespace rb
