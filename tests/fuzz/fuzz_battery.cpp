// libFuzzer target: battery documents (suite/battery.h Battery::from_json) over arbitrary bytes; an accepted
// battery must round-trip through its canonical document. Bad input must end in UsageError.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "core/json_io.h"
#include "suite/battery.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const rb::Battery b = rb::Battery::from_json(rb::parse_json_text(text, "fuzz"), "fuzz");
    const nlohmann::json canonical = b.to_json();
    if (rb::Battery::from_json(canonical, "fuzz").to_json() != canonical) std::abort();
  } catch (const rb::UsageError&) {
  }
  return 0;
}
