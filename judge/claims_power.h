// The power of a claim's test and the seeds it would need (internal to judge/claims.cpp): exact for
// Fisher claims, by resampling the observed seeds for recall claims. The methods:
// reports/claims_schema.md.
#pragma once

#include <cstdint>
#include <vector>

#include "core/results.h"
#include "judge/claims.h"
#include "stats/stats.h"

namespace rb::judge::detail {

// The alternative under which power is computed (the effect the claim asserts or rules out):
// greater for greater, two-sided for none, less for less and not-less (power to see a worse by the
// effect).
stats::Alternative power_alternative(Direction direction);

// A directional claim's power at n_a and n_b seeds per arm (the alpha of one depth): Fisher's exact
// at the claimed rates, counted only on the claimed side for a two-sided claim; Mann–Whitney's by
// resampling the recalls of arm b (`b_recalls`), shifted by the claimed shift for arm a.
double directional_power(const Claim& claim, const std::vector<double>& b_recalls, int64_t n_a,
                         int64_t n_b, double alpha_each);

// A tie or non-inferiority claim's power at n_a and n_b seeds per arm: the chance that the interval
// lands inside the margin when the arms do not differ (Fisher: enumerated at `pooled_rate`; recall:
// resampled from the residuals of a's and b's recalls about their medians).
double equivalence_power(const Claim& claim, const Config& a, const Config& b, double pooled_rate,
                         int64_t n_a, int64_t n_b, double alpha_each);

// A one-arm claim's power at n seeds: 1 when a clean result (no seed in between, above or below) is
// significant against the null share p0, else 0.
double one_arm_power(int64_t n, double p0, double alpha_each);

// Two-arm claims: the seeds per arm (equal) that reach kClaimPower at the first depth (configs a
// and b, n_now seeds there); 0 when the search does not reach it (stats::seeds_for_power).
int64_t seeds_needed(const Claim& claim, const Config& a, const Config& b, int64_t n_now,
                     double alpha_each);
// One-arm claims: the seeds that let a clean result reach significance against p0; 0 beyond
// stats::kMaxSeedSearch.
int64_t one_arm_seeds_needed(double p0, double alpha_each);

}  // namespace rb::judge::detail
