// The claims' verdicts narrated: the note and threshold-sensitivity sentences, the text `verify`
// prints, the verdicts JSON, the claims page and the Markdown table, all from judge/claims.h's
// typed verdicts. The sentences are written here and nowhere else; the rules they describe are in
// reports/claims_schema.md.
//
//   std::vector<judge::ClaimVerdict> v = judge::verify_claims(set, {runs});
//   fmt::print("{}", verdicts_text(v));
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/claims.h"

namespace rb::reports {
struct Document;  // document.h (which includes this header through html_parts.h)
struct Group;
}  // namespace rb::reports

namespace rb::reports {

using judge::ClaimOutcome;
using judge::ClaimSet;
using judge::ClaimVerdict;

// Why, in one line, with the numbers: "observed recall +0.784 [+0.78, +0.80] (...), claimed +0.50;
// power 1.00 for the claimed effect", the depths left out, the seeds an undecided claim needs.
std::string claim_note(const ClaimVerdict& v);
// Fisher claims: the counts and p at the stated and lower thresholds, and whether the significance
// hangs on the threshold; "" for claims without them.
std::string sensitivity_note(const ClaimVerdict& v);
// Why a depth is left out ("floor: no seed of either arm locks in"); "" for an informative depth.
std::string left_out_reason(const judge::Claim& claim, const judge::ClaimComparison& c);

json verdicts_json(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_text(const std::vector<ClaimVerdict>& verdicts);

// The claims page's document (document.h), built once: the HTML page (verdicts_html), the Markdown
// verdict table (verdicts_markdown), verdicts_json (JsonRenderer).
Document verdicts_document(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);
// The verdict table as one section (HTML: <section id="claims">; Markdown: the table alone): the
// claims page's, and the report's claims section.
Group verdicts_section(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_markdown(const std::vector<ClaimVerdict>& verdicts);
std::string verdicts_html(const ClaimSet& set, const std::vector<ClaimVerdict>& verdicts);

}  // namespace rb::reports
