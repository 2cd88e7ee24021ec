#!/usr/bin/env bash
# The speed gate's acceptance on real benchmark runs (ctest label `slow`; a few minutes on 2 cores):
# one baseline run of the CI benchmark subset, five more runs of the same build each compared with it
# (A/A: none may be flagged), one run with a planted 30% slowdown of gla_fused (RECALLBENCH_BENCH_PLANT,
# busy-wait inside the timed region) that must be flagged as the only regression, and the A/A noise
# calibration of the first pair.
#   speed_gate_acceptance.sh RECALLBENCH [KEEP_DIR]     KEEP_DIR: keep the benchmark files there
#   SPEED_GATE_THRESHOLD=0.1   the gate's --threshold (default 0.1, the gate's own default)
#   SPEED_GATE_REFERENCE=NAME  the gate's --reference (default: the GEMM ceiling of the same run; "" = raw
#                              times, which on the shared 2-core VM drifted by up to +19% between A/A runs)
set -euo pipefail
rb="$1"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
filter='^(linear_attn|gla)_fused/fwd/B:8/H:2/T:256/K:64/'   # the CI subset (ci/gate)
bench() { "$rb" bench --filter "$filter" --repetitions 9 --min-time 0.1 --out "$1" >"$1.log" 2>&1; }
verdicts() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(b['name'] for b in d['benchmarks'] if b['verdict']=='regression'))" "$1"; }
threshold="${SPEED_GATE_THRESHOLD:-0.1}"
reference="${SPEED_GATE_REFERENCE-ceiling/gemm_fp32/N:512/process_time}"
gate=(--threshold "$threshold")
[ -n "$reference" ] && gate+=(--reference "$reference")
fail=0
bench "$work/base.json"
for i in 1 2 3 4 5; do
  bench "$work/aa$i.json"
  rc=0
  "$rb" compare "${gate[@]}" --baseline "$work/base.json" --current "$work/aa$i.json" --json "$work/aa$i.cmp.json" >"$work/aa$i.cmp.txt" || rc=$?
  echo "A/A $i: exit $rc, $(grep '^speed gate' "$work/aa$i.cmp.txt")"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('   ', '; '.join('%s %+.1f%% (raw %+.1f%%)' % (b['name'].split('/')[0], 100*b['change'], 100*b['raw_change']) for b in d['benchmarks']))" "$work/aa$i.cmp.json"
  if [ "$rc" -ne 0 ] || [ -n "$(verdicts "$work/aa$i.cmp.json")" ]; then echo "FAIL: A/A $i flagged"; cat "$work/aa$i.cmp.txt"; fail=1; fi
done
RECALLBENCH_BENCH_PLANT='^gla_fused/fwd/=0.3' bench "$work/planted.json"
rc=0
"$rb" compare "${gate[@]}" --baseline "$work/base.json" --current "$work/planted.json" --json "$work/planted.cmp.json" >"$work/planted.cmp.txt" || rc=$?
cat "$work/planted.cmp.txt"
flagged="$(verdicts "$work/planted.cmp.json")"
echo "planted 30% on gla_fused: exit $rc, regressions: $flagged"
if [ "$rc" -ne 1 ] || [ "$flagged" != "gla_fused/fwd/B:8/H:2/T:256/K:64/V:64/process_time" ]; then echo "FAIL: planted slowdown not (only) flagged"; fail=1; fi
"$rb" compare --aa "${gate[@]}" --baseline "$work/base.json" --current "$work/aa1.json"
exit "$fail"
