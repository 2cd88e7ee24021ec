// Change points along a series of groups (commits, oldest first), each group a sample of subjects (seeds).
//
// Every metric is tested with one machinery, a linear score statistic whose scores fit the data:
//   binary      lock-in counts: the score of a seed is 1 when it locked in, else 0 (the scan statistic is
//               then the two-proportion z of the binomial split);
//   survival    time to lock-in, censored at the budget: log-rank scores from the segment's pooled sample
//               (event at t: 1 − H(t), censored at t: −H(t), H the Nelson–Aalen estimate), so the split
//               statistic is the log-rank z between the two sides;
//   continuous  recall: mid-ranks in the pooled segment, so the split statistic is the Mann–Whitney z
//               between the two sides;
//   log-measure kernel times (relative to the GEMM ceiling, > 0): their logarithm, so the split statistic is
//               the two-sample z of mean log time (a ratio). Ranks would not place the step: with one
//               measurement per commit, moving the split past the last value before the step leaves the
//               rank sum as extreme while balancing the sides.
// Step: for each split c of the segment [a, b) into [a, c) and [c, b), z_c = (S_left − E) / sd, with the
// subjects' permutation variance; the statistic is max_c |z_c|. Trend (drift): the covariance of the
// subjects' scores with their group's position. Both p-values come from permuting whole groups (the seeds
// of a commit stay together, so a commit's shared conditions cannot fake a change): exact in the limit,
// valid (p = (1 + exceedances) / (1 + permutations)) at any number of permutations, deterministic for a
// given seed. Permutations start at `permutations` and grow tenfold while fewer than 10 exceed the observed
// statistic, up to `max_permutations`, so small p-values are resolved where a family correction needs them.
#pragma once

#include <cstdint>
#include <vector>

#include "stats/stats.h"

namespace rb::stats {

enum class SeriesKind { kBinary, kSurvival, kContinuous, kLogMeasure };

// One group of a series: the values (binary: 0 or 1; continuous: the value) or the survival times.
struct SeriesGroup {
  std::vector<double> values;
  std::vector<SurvivalObservation> times;
  std::vector<int64_t> ids;  // per subject, its seed (optional): the within-seeds design blocks on it
  int64_t size() const { return static_cast<int64_t>(values.empty() ? times.size() : values.size()); }
};

struct ChangeTestOptions {
  int64_t permutations = 999;        // first round
  int64_t max_permutations = 99999;  // grow tenfold while fewer than 10 permutations exceed, up to this
  uint64_t seed = 0x5eed2026;        // the permutations' generator: the same input gives the same p
};

struct ChangeTest {
  int64_t split = -1;        // step: the first group of the right segment (absolute index); -1 for a trend
  double statistic = 0.0;    // step: max |z|; trend: the standardised covariance
  double z = 0.0;            // signed z at the split (or of the trend): > 0 when the right side scores higher
  double p = 1.0;            // permutation p-value (two-sided)
  int64_t permutations = 0;  // how many were drawn
  bool within_seeds = false; // the seed-blocked design (below)
};

// The best split of groups [a, b) and its permutation p. Fewer than 2 groups, or no variation in the
// scores: p = 1. Empty groups are allowed (they carry no subjects).
ChangeTest step_test(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                     const ChangeTestOptions& options = {});

// The linear trend of the scores over the groups' positions in [a, b), two-sided, with its permutation p.
ChangeTest trend_test(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                      const ChangeTestOptions& options = {});

// The same two tests in the seed-blocked design, for histories whose commits rerun the same seeds (runs are
// deterministic per seed, so an unchanged commit repeats the seed's outcome exactly, and permuting whole
// commits, with few commits, cannot reach a small p). Blocks are seeds; each block's scores are centred on
// the block's mean; the permutation shuffles each seed's scores among the commits that seed was run at
// (valid under "the commit does not matter" whatever the seeds' own differences). Seeds run at one commit
// only carry nothing; without a seed run twice: p = 1.
ChangeTest step_test_within_seeds(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                                  const ChangeTestOptions& options = {});
ChangeTest trend_test_within_seeds(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b, SeriesKind kind,
                                   const ChangeTestOptions& options = {});

// Binary segmentation below a significant top-level split: the segments [a, split) and [split, b) are
// tested again (each at `alpha`, in the design of `top`), recursively, until no split is significant. Returns every significant
// split in order, `top` first. Segments of one group are not split further.
std::vector<ChangeTest> segment_below(const std::vector<SeriesGroup>& groups, int64_t a, int64_t b,
                                      const ChangeTest& top, SeriesKind kind, double alpha,
                                      const ChangeTestOptions& options = {});

}  // namespace rb::stats
