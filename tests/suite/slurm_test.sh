#!/usr/bin/env bash
# Slurm end to end (label slurm; needs root: it installs and starts a real single-node Slurm from
# Debian's packages with ci/slurm/start_local_slurm.sh). Runs the tiny battery locally (--jobs 2), then as
# a 4-task job array plus the dependent merge job (`recallbench slurm --array 4 --submit`), and checks
# that the merged aggregate equals the local one byte for byte; then the same with a tuning stage (a tuning
# array, the scoring array after it). Stops only the daemons it started.
set -u
rb="$(readlink -f "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export SLURM_LOCAL_DIR="${SLURM_LOCAL_DIR:-/tmp/recallbench-slurm}"
export SLURM_CONF="$SLURM_LOCAL_DIR/slurm.conf"
tmp=$(mktemp -d /tmp/rb_slurm_test.XXXXXX)
chmod 755 "$tmp"
stop() { "$root/ci/slurm/stop_local_slurm.sh"; rm -rf "$tmp"; }
trap stop EXIT
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }

t0=$(date +%s)
"$root/ci/slurm/start_local_slurm.sh" || { echo "FAIL: could not start a local Slurm"; exit 1; }
echo "slurm up in $(( $(date +%s) - t0 ))s"

"$rb" run --battery "$here/tiny_battery.json" --out "$tmp/local" --jobs 2 >"$tmp/local.out" 2>&1 ||
  { echo "FAIL: local run"; cat "$tmp/local.out"; exit 1; }

"$rb" slurm --battery "$here/tiny_battery.json" --out "$tmp/slurm" --array 4 --submit >"$tmp/submit.out" 2>&1
check "slurm --submit exits 0" test $? = 0
cat "$tmp/submit.out"
ids=$(sed -n 's/^submitted: array job \([0-9]*\) .*merge job \([0-9]*\).*/\1 \2/p' "$tmp/submit.out")
array=${ids% *}; merge=${ids#* }
check "job ids printed" test -n "$array" -a -n "$merge"
check "the array script has 4 tasks" grep -q '^#SBATCH --array=0-3$' "$tmp/slurm/slurm/array.sbatch"

t1=$(date +%s)
for _ in $(seq 3000); do  # poll squeue (sbatch --wait is coarse); at most 10 minutes
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break; sleep 0.2
done
echo "array + merge finished in $(( $(date +%s) - t1 ))s"
check "jobs left the queue" test -z "$(squeue -h -j "$array,$merge" 2>/dev/null)"
check "4 array task logs" test "$(ls "$tmp/slurm/slurm/logs"/array-*.out 2>/dev/null | wc -l)" = 4
for f in "$tmp/slurm/slurm/logs"/array-*.out; do
  grep -q ", shard [0-3]/4" "$f" || { echo "FAIL: $f does not show its shard:"; cat "$f"; fail=1; }
done
check "each run trained once across the tasks" \
  test "$(cat "$tmp/slurm/slurm/logs"/array-*.out | grep -o '[0-9]* trained' | awk '{s+=$1} END {print s}')" = 8
check "merge job wrote the aggregate" test -f "$tmp/slurm/aggregate.json"
grep -h "merged" "$tmp/slurm/slurm/logs"/merge-*.out 2>/dev/null
if "$rb" --help | grep -Eq '^ +report +[^(]'; then  # the merge job's report hook, once report is built
  check "merge job wrote the report" test -f "$tmp/slurm/report.html"
fi
check "Slurm array aggregate = local aggregate (bytes)" cmp -s "$tmp/local/aggregate.json" "$tmp/slurm/aggregate.json"
if grep -q "FAILED\|NodeFail\|CANCELLED" "$SLURM_LOCAL_DIR/log/jobcomp.txt" 2>/dev/null; then
  grep -E "JobId=($array|$merge)" "$SLURM_LOCAL_DIR/log/jobcomp.txt" | grep -E "FAILED|CANCELLED" && fail=1
fi

# A battery with a tuning stage (issue 44): a tuning array, the scoring array after it (afterok), then the merge;
# the choice and the aggregate equal the local run's byte for byte.
python3 - "$here/tiny_battery.json" "$tmp/tuned.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1])); b["name"] = "tiny-tuned"; b["tuning"] = {"lr": [0.003, 0.01, 0.03], "seeds": "100-101"}
json.dump(b, open(sys.argv[2], "w"))
PY
"$rb" run --battery "$tmp/tuned.json" --out "$tmp/tlocal" --jobs 2 >"$tmp/tlocal.out" 2>&1 ||
  { echo "FAIL: local tuned run"; cat "$tmp/tlocal.out"; exit 1; }
"$rb" slurm --battery "$tmp/tuned.json" --out "$tmp/tslurm" --array 3 --submit >"$tmp/tsubmit.out" 2>&1
check "slurm --submit of a tuned battery exits 0" test $? = 0
cat "$tmp/tsubmit.out"
tuning=$(sed -n 's/^submitted: tuning array job \([0-9]*\).*/\1/p' "$tmp/tsubmit.out")
ids=$(sed -n 's/^submitted: array job \([0-9]*\) .*merge job \([0-9]*\).*/\1 \2/p' "$tmp/tsubmit.out")
array=${ids% *}; merge=${ids#* }
check "three job ids printed" test -n "$tuning" -a -n "$array" -a -n "$merge"
check "the scoring array runs --stage scoring" grep -q -- '--stage scoring' "$tmp/tslurm/slurm/array.sbatch"
check "the tuning array runs --stage tuning" grep -q -- '--stage tuning' "$tmp/tslurm/slurm/tuning.sbatch"
for _ in $(seq 3000); do
  [ -z "$(squeue -h -j "$tuning,$array,$merge" 2>/dev/null)" ] && break; sleep 0.2
done
check "tuned jobs left the queue" test -z "$(squeue -h -j "$tuning,$array,$merge" 2>/dev/null)"
check "Slurm choice = local choice (bytes)" cmp -s "$tmp/tlocal/tuning/selection.json" "$tmp/tslurm/tuning/selection.json"
check "Slurm tuned aggregate = local aggregate (bytes)" cmp -s "$tmp/tlocal/aggregate.json" "$tmp/tslurm/aggregate.json"
check "no scoring task found the tuning incomplete" \
  test -z "$(grep -l 'tuning stage is incomplete' "$tmp/tslurm/slurm/logs"/array-*.out 2>/dev/null)"
exit $fail
