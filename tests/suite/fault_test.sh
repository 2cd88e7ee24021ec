#!/usr/bin/env bash
# Fault injection: kill -9 a worker, then kill -9 the runner, mid-battery. Checks that no result file is
# corrupt or half-written, that the killed worker's run was retried, that workers die with the runner (no
# orphans), and that rerunning the same command trains only what was missing (finished files untouched:
# same inode and mtime) and gives an aggregate identical to an uninterrupted run's.
set -u
rb="$1"
here="$(cd "$(dirname "$0")" && pwd)"
tmp=$(mktemp -d)
runner=""
cleanup() { [ -n "$runner" ] && kill -9 "$runner" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
[ -n "${RB_KEEP:-}" ] && trap "" EXIT && echo "keeping $tmp"
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; return 1; fi; }
children() { ps -o pid=,stat= --ppid "$1" 2>/dev/null | awk '$2 !~ /^Z/ {print $1}'; }  # live, not zombies

# The tiny battery with longer runs (so there is something to interrupt).
sed -e 's/"steps": 30/"steps": 150/' -e 's/"seeds": "0-2",/"seeds": "0-2", "threshold": 1.0,/' \
  "$here/tiny_battery.json" >"$tmp/b.json"

"$rb" run --battery "$tmp/b.json" --out "$tmp/ref" --jobs 2 >"$tmp/ref.out" 2>&1 || { cat "$tmp/ref.out"; exit 1; }

"$rb" run --battery "$tmp/b.json" --out "$tmp/x" --jobs 2 >"$tmp/x1.out" 2>"$tmp/x1.err" &
runner=$!
# Wait for two finished runs and a busy worker, then kill -9 a worker.
for _ in $(seq 3000); do  # up to ~5 minutes on a loaded machine
  n=$(ls "$tmp/x/runs" 2>/dev/null | grep -c '\.json$'); w=$(children "$runner" | head -1)
  [ "$n" -ge 2 ] && [ -n "$w" ] && break; sleep 0.1
done
sleep 0.5
victim=$(children "$runner" | sort -n | tail -1)  # the newest worker: its run has just started
check "a worker to kill" test -n "$victim" ||
  { echo "  runs done: $n; runner alive: $([ -e /proc/$runner ] && echo yes || echo no)"; ps -o pid,stat,etime,comm --ppid "$runner"; cat "$tmp/x1.err"; }
kill -9 "$victim"
for _ in $(seq 300); do grep -q "killed by signal 9" "$tmp/x1.err" && break; sleep 0.1; done
check "the killed worker was reported and retried" grep -q "killed by signal 9.*(retrying)" "$tmp/x1.err"
# Wait for one more finished run, then kill -9 the runner itself.
n=$(ls "$tmp/x/runs" | grep -c '\.json$')
for _ in $(seq 3000); do
  m=$(ls "$tmp/x/runs" | grep -c '\.json$'); [ "$m" -gt "$n" ] && break; sleep 0.1
done
sleep 0.3
orphans=$(children "$runner")
check "workers busy when the runner is killed" test -n "$orphans"
kill -9 "$runner"; wait "$runner" 2>/dev/null; runner=""
sleep 1
alive=0; for p in $orphans; do [ -e "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && alive=1; done
check "workers died with the runner" test $alive = 0

# Every file present is a complete, valid result (merge validates each; it exits 2 as the store is incomplete).
"$rb" merge "$tmp/x" --out "$tmp/check" >"$tmp/merge.out" 2>&1
check "no invalid result file after kill -9" grep -q " 0 invalid file(s) skipped" "$tmp/merge.out"
before=$(ls "$tmp/x/runs" | grep -c '\.json$')
check "some but not all runs finished before the kill ($before/8)" test "$before" -ge 2 -a "$before" -lt 8
stat -c '%n %i %Y' "$tmp"/x/runs/*.json | sort >"$tmp/stat.before"

"$rb" run --battery "$tmp/b.json" --out "$tmp/x" --jobs 2 >"$tmp/x2.out" 2>"$tmp/x2.err"
check "rerun exits 0" test $? = 0
check "rerun trains only the rest" grep -q " $((8 - before)) trained, $before already done" "$tmp/x2.out"
stat -c '%n %i %Y' "$tmp"/x/runs/*.json | sort >"$tmp/stat.after"
check "finished runs untouched (inode, mtime)" test -z "$(comm -23 "$tmp/stat.before" "$tmp/stat.after")"
check "aggregate equals the uninterrupted run's" cmp -s "$tmp/ref/aggregate.json" "$tmp/x/aggregate.json"
check "no leftover locks" test -z "$(ls "$tmp/x/locks" 2>/dev/null)"
exit $fail
