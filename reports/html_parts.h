// Parts the report layer's HTML pages share (the report, the leaderboard page, the claims page): the colour a
// verdict is shown in, the verdict badge and the lock-in interval bar, each defined once here. The page frame
// and escaping are report.h's html_page and html_escape; the stylesheet that styles these parts is html.cpp's.
//
//   row += "<tr class=\"" + std::string(tone_class(tone_of(verdict))) + "\">";
//   cell += badge(tone_of(verdict), verdict_name(verdict)) + interval_bar(s.ci.low, s.ci.high, s.rate);
#pragma once

#include <string>

#include "reports/claims.h"
#include "reports/compare.h"

namespace rb::reports {

// How a verdict reads, whatever produced it: bad (a regression, a changed identity, a contradicted claim),
// open (inconclusive, undecided), good (an improvement, a reproduced claim), fine (no change), neutral (no
// baseline), plain (nothing to say: a claim not run or not informative).
enum class Tone { kBad, kOpen, kGood, kFine, kNeutral, kPlain };

// The stylesheet class of a tone: "v-reg", "v-inc", "v-imp", "v-ok", "v-none", "" (plain).
const char* tone_class(Tone tone);
// The gate's verdicts: regression and every changed identity (not compared, exit 2) bad, inconclusive open,
// improvement good, no change fine.
Tone tone_of(Verdict verdict);
// A claim's verdicts: reproduced good, contradicted bad, undecided and "direction reproduced, size not"
// open, the others plain.
Tone tone_of(ClaimOutcome outcome);

// A small rounded label, <span class="badge v-reg">regression</span> (`text` is escaped; a plain tone gives
// class "badge" alone).
std::string badge(Tone tone, const std::string& text);

// The lock-in rate with its interval as a 60×8 bar (stylesheet class "cibar"): a grey track, the interval
// [low, high] in blue, the rate as a dark tick. All three in [0, 1].
std::string interval_bar(double low, double high, double rate);

}  // namespace rb::reports
