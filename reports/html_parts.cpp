// The shared HTML parts (see html_parts.h).
#include "reports/html_parts.h"

#include <algorithm>

#include <fmt/format.h>

#include "reports/report.h"

namespace rb::reports {

const char* tone_class(Tone tone) {
  switch (tone) {
    case Tone::kBad: return "v-reg";
    case Tone::kOpen: return "v-inc";
    case Tone::kGood: return "v-imp";
    case Tone::kFine: return "v-ok";
    case Tone::kNeutral: return "v-none";
    case Tone::kPlain: return "";
  }
  return "";
}

Tone tone_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNoChange: return Tone::kFine;
    case Verdict::kImprovement: return Tone::kGood;
    case Verdict::kInconclusive: return Tone::kOpen;
    case Verdict::kRegression:
    case Verdict::kDataStreamChanged:
    case Verdict::kTaskChanged:
    case Verdict::kModelChanged:
    case Verdict::kSeedsNotIndependent: return Tone::kBad;
  }
  return Tone::kNeutral;
}

Tone tone_of(ClaimOutcome outcome) {
  switch (outcome) {
    case ClaimOutcome::kReproduced: return Tone::kGood;
    case ClaimOutcome::kContradicted: return Tone::kBad;
    case ClaimOutcome::kUndecided:
    case ClaimOutcome::kDirectionOnly: return Tone::kOpen;
    case ClaimOutcome::kNotRun:
    case ClaimOutcome::kNotInformative:
    case ClaimOutcome::kSizeNotReproduced: return Tone::kPlain;
  }
  return Tone::kPlain;
}

std::string badge(Tone tone, const std::string& text) {
  const std::string cls = tone_class(tone);
  return fmt::format("<span class=\"badge{}\">{}</span>", cls.empty() ? "" : " " + cls, html_escape(text));
}

std::string interval_bar(double low, double high, double rate) {
  return fmt::format("<svg class=\"cibar\" viewBox=\"0 0 60 8\" aria-hidden=\"true\"><rect x=\"0\" y=\"3\" width=\"60\" "
                     "height=\"2\" fill=\"#ddd\"/><rect x=\"{:.1f}\" y=\"1\" width=\"{:.1f}\" height=\"6\" "
                     "fill=\"#8ab\"/><rect x=\"{:.1f}\" y=\"0\" width=\"2\" height=\"8\" fill=\"#234\"/></svg>",
                     60 * low, std::max(60 * (high - low), 1.0), std::clamp(60 * rate - 1, 0.0, 58.0));
}

}  // namespace rb::reports
