// libFuzzer target: the run document's reader (core/run_document.h) over arbitrary bytes, through the same
// JSON parser every document goes through (core/json_io.h). Bad input must end in UsageError, never in a
// crash, a sanitizer report or another exception; a document that is accepted must round-trip.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "core/json_io.h"
#include "core/run_document.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const rb::RunDocument doc = rb::RunDocument::from_json(rb::parse_json_text(text, "fuzz"), "fuzz");
    const nlohmann::json again = doc.to_json();
    if (rb::RunDocument::from_json(again, "fuzz").to_json() != again) std::abort();  // the writer's output is read back
    (void)again.dump();
  } catch (const rb::UsageError&) {
  }
  return 0;
}
