#!/usr/bin/env bash
# recallbench stats ... end to end: every subcommand's --json carries its documented keys, the human
# output carries the numbers, and bad input exits 2 with a "got X, expected Y" message.
set -u
rb="$1"
fail=0

run() {  # run CODE PATTERN... -- ARGS...: exit code CODE and every PATTERN in stdout+stderr
  local code=$1
  shift
  local patterns=()
  while [ "$1" != "--" ]; do patterns+=("$1"); shift; done
  shift
  local out rc
  out=$("$rb" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAIL: recallbench $* exited $rc, expected $code"; echo "$out"; fail=1; return
  fi
  for p in "${patterns[@]}"; do
    if ! grep -q -- "$p" <<<"$out"; then echo "FAIL: recallbench $*: output lacks '$p'"; echo "$out"; fail=1; return; fi
  done
  echo "ok: recallbench $* -> $rc"
}

# Human-readable. (Each call pays the binary's start-up, ~0.5 s CPU: keep the list short.)
run 0 "p = 0.0197666" "conditional MLE 17.269" -- stats fisher 7 3 1 9
run 0 "clopper-pearson  \[0.347547, 0.933260\]" "jeffreys" -- stats binom-ci 7 10 --method all
run 0 "exact distribution" "p = 0.1" -- stats mannwhitney --x 1,2,3 --y 4,5,6
run 0 "normal distribution" -- stats mannwhitney --x 1,2,2 --y 2,3,4
run 0 "0.06" -- stats padjust --method holm 0.01 0.04 0.03
# Freireich 6-MP vs placebo (R's survdiff: Chisq = 16.8, O = 9 vs E = 19.25; survfit medians 23 and 8).
freireich=(--a 6,6,6,6+,7,9+,10,10+,11+,13,16,17+,19+,20+,22,23,25+,32+,32+,34+,35+ --b 1,1,2,2,3,4,4,5,5,8,8,8,8,11,11,12,12,15,17,22,23)
run 0 "chi-square = 16.79" "exact permutation" "observed 9, expected 19.2505, KM median 23" "KM median 8" -- \
  stats logrank "${freireich[@]}"
run 0 "cannot reach significance" -- stats power --p1 .1 --p2 .7 --n 3
run 0 "^12 seeds" -- stats seeds --p1 .1 --p2 .7

# JSON keys (as documented in each --help).
run 0 '"p_value": 0.0197666' '"odds_ratio": 21' '"conditional_odds_ratio"' '"ci_low"' '"ci_high"' '"p_two_sided"' \
  '"p_greater"' '"p_less"' '"conf_level"' -- stats fisher 7 3 1 9 --json
run 0 '"ci_high": "inf"' -- stats fisher 6 0 0 6 --json
run 0 '"p_value": 0.00795555' '"statistic"' '"nuisance"' -- stats boschloo 7 3 1 9 --json
run 0 '"intervals"' '"wilson-cc"' -- stats binom-ci 3 10 --method all --json
run 0 '"p_value": 0.34375' '"estimate"' '"ci_low"' '"ci_high"' -- stats binom-test 7 10 0.5 --json
run 0 '"u": 0.0' '"p_value"' '"method": "exact"' '"exact": true' '"z"' '"ties": false' -- \
  stats mannwhitney --x 1,2,3 --y 4,5,6 --json
run 0 '"chi_square": 16.79' '"observed_a": 9.0' '"expected_a"' '"observed_b"' '"expected_b"' '"variance"' \
  '"z"' '"p_value"' '"exact": true' '"p_asymptotic"' '"median_a": 23.0' '"median_b": 8.0' '"n_a": 21' '"n_b": 21' \
  '"alternative": "less"' -- stats logrank "${freireich[@]}" --alternative less --json
run 0 '"median_a": null' -- stats logrank --a 100+,200+ --b 100,200 --json
run 0 '"adjusted"' '"method": "bh"' -- stats padjust --method bh 0.01 0.04 0.03 --json
run 0 '"power"' '"min_attainable_p"' '"can_reach_significance": true' -- stats power --p1 .1 --p2 .7 --n 10 --json
run 0 '"n": 12' '"power"' '"reached": true' -- stats seeds --p1 .1 --p2 .7 --json
run 0 '"n": null' '"reached": false' -- stats seeds --p1 .5 --p2 .5 --max-n 10 --json
# A search past the bound is refused before any work, with the reason (it would run for minutes).
run 2 'expected 1 to 1000' 'cubed' -- stats seeds --p1 .5 --p2 .5001 --max-n 5000

# Bad input: exit 2, a clear message.
run 2 "got 'x', expected a whole number" -- stats fisher x 2 3 4
run 2 "expected two-sided, greater or less" -- stats fisher 1 2 3 4 --alternative both
run 2 "expected K <= N" -- stats binom-ci 11 10
run 2 "expected clopper-pearson, wilson" -- stats binom-ci 1 10 --method wald
run 2 "got 1.5, expected a probability" -- stats binom-test 3 10 1.5
run 2 "expected a non-empty comma-separated list" -- stats mannwhitney --x "" --y 1,2
run 2 "got 'b', expected a finite number" -- stats mannwhitney --x 1,b --y 1,2
run 2 "got 1.2, expected a probability" -- stats padjust 0.5 1.2
run 2 "expected a time at every comma" -- stats logrank --a 1,,2 --b 3,4
run 2 "got 'x', expected a finite number" -- stats logrank --a 1,2 --b x
run 2 "expected a time >= 0" -- stats logrank --a 1,-2+ --b 3
run 2 "expected a number strictly between 0 and 1" -- stats power --p1 .1 --p2 .7 --n 3 --alpha 0
run 2 "expected a number strictly between 0 and 1" -- stats seeds --p1 .1 --p2 .7 --power 1
exit $fail
