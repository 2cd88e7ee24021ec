#!/usr/bin/env bash
# End to end on a tiny battery (8 runs of a few seconds): the aggregate's metrics are identical byte for
# byte across --jobs 1, --jobs 2 and 3 shards sharing one store + merge; a rerun trains nothing; a corrupt
# or truncated result file is reported, moved aside and rerun; bad battery files exit 2 naming the field
# and write nothing.
set -u
rb="$1"
here="$(cd "$(dirname "$0")" && pwd)"
battery="$here/tiny_battery.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 1 >"$tmp/j1.out" 2>"$tmp/j1.err" || { cat "$tmp/j1.err"; exit 1; }
"$rb" run --battery "$battery" --out "$tmp/j2" --jobs 2 >"$tmp/j2.out" 2>"$tmp/j2.err" || { cat "$tmp/j2.err"; exit 1; }
# Three shards at once into one store, then merge.
pids=()
for i in 0 1 2; do
  "$rb" run --battery "$battery" --out "$tmp/sh" --jobs 1 --shard "$i/3" >"$tmp/sh$i.out" 2>"$tmp/sh$i.err" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a shard exited non-zero"; cat "$tmp"/sh*.err; fail=1; }; done
"$rb" merge "$tmp/sh" >"$tmp/merge.out" 2>&1 || { echo "FAIL: merge"; cat "$tmp/merge.out"; fail=1; }
# Three shards into three stores, merged into a fourth.
for i in 0 1 2; do
  "$rb" run --battery "$battery" --out "$tmp/s$i" --jobs 2 --shard "$i/3" >/dev/null 2>&1 || fail=1
done
"$rb" merge "$tmp/s0" "$tmp/s1" "$tmp/s2" --out "$tmp/m" >"$tmp/merge2.out" 2>&1 || { echo "FAIL: merge of 3 stores"; cat "$tmp/merge2.out"; fail=1; }

check "8 run files" test "$(ls "$tmp/j1/runs" | wc -l)" = 8
check "aggregate has 8 runs" grep -q '"runs": 8' "$tmp/j1/aggregate.json"
check "jobs 1 = jobs 2 (aggregate bytes)" cmp -s "$tmp/j1/aggregate.json" "$tmp/j2/aggregate.json"
check "jobs 1 = 3 shards, one store, merge" cmp -s "$tmp/j1/aggregate.json" "$tmp/sh/aggregate.json"
check "jobs 1 = 3 stores merged" cmp -s "$tmp/j1/aggregate.json" "$tmp/m/aggregate.json"
check "shards trained each run once" test "$(cat "$tmp"/sh?.out | grep -o '[0-9]* trained' | awk '{s+=$1} END {print s}')" = 8
check "contrasts in the plan" grep -q '"knob": "conv"' "$tmp/j1/plan.json"
# Issue 46: merging into an output folder that holds a different result for a run is refused like a conflict
# between inputs (exit 2), and writes nothing there.
cp -r "$tmp/m" "$tmp/mc"
mcf=("$tmp"/mc/runs/*.json)
/usr/bin/python3 - "${mcf[0]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["result"]["final_accuracy"] *= 0.999
json.dump(d, open(sys.argv[1], "w"))
PY
cp "${mcf[0]}" "$tmp/mc.ref"
"$rb" merge "$tmp/s0" "$tmp/s1" "$tmp/s2" --out "$tmp/mc" >"$tmp/mc.out" 2>&1
check "merge into a conflicting output folder exits 2" test $? = 2
check "merge names the output folder's conflict" grep -q "different metrics in the output folder" "$tmp/mc.out"
check "refused merge left the output folder's run" cmp -s "${mcf[0]}" "$tmp/mc.ref"
check "refused merge left the output folder's aggregate" cmp -s "$tmp/m/aggregate.json" "$tmp/mc/aggregate.json"

# Issue 47: every valid run counts. Two runs of one battery into one store (seeds 0-1, then 2-3 by
# --seed-offset): aggregate.json counts the 16 runs report counts. Two stores of it merged: all 16 kept.
"$rb" run --battery "$battery" --out "$tmp/two" --jobs 2 >/dev/null 2>&1
"$rb" run --battery "$battery" --seed-offset 2 --out "$tmp/two" --jobs 2 >/dev/null 2>&1
check "aggregate counts both commands' runs" grep -q '"runs": 16' "$tmp/two/aggregate.json"
"$rb" report "$tmp/two" >"$tmp/two.report" 2>&1
check "report counts the same 16 runs" test "$(grep -Ec '^- .* [0-9]+/4 ' "$tmp/two.report")" = 4
"$rb" run --battery "$battery" --seed-offset 2 --out "$tmp/off" --jobs 2 >/dev/null 2>&1
"$rb" merge "$tmp/j1" "$tmp/off" --out "$tmp/mo" >"$tmp/mo.out" 2>&1
check "merge keeps the other seeds" test "$(ls "$tmp/mo/runs" | wc -l)" = 16
check "merged aggregate counts them" grep -q '"runs": 16' "$tmp/mo/aggregate.json"
check "merge says it kept them" grep -q "8 run(s) beyond battery tiny's plan.json are kept" "$tmp/mo.out"

# A rerun trains nothing.
"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 2 >"$tmp/re.out" 2>"$tmp/re.err"
check "rerun exits 0" test $? = 0
check "rerun trains nothing" grep -q " 0 trained, 8 already done" "$tmp/re.out"

# Issue 46: a result another build recorded (here: another commit) is not done: moved to other-build/ and
# rerun; --keep-other-builds counts it. The aggregate is the same (the numbers do not depend on the commit).
cp "$tmp/j1/aggregate.json" "$tmp/agg.ob"
files=("$tmp"/j1/runs/*.json)
/usr/bin/python3 - "${files[0]}" "${files[1]}" <<'PY'
import json, sys
for i, f in enumerate(sys.argv[1:]):
    d = json.load(open(f))
    d["context"]["git_commit" if i == 0 else "compiler"] = "0123abcd" if i == 0 else "GNU 1.0"
    json.dump(d, open(f, "w"))
PY
"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 2 --keep-other-builds >"$tmp/ob0.out" 2>"$tmp/ob0.err"
check "--keep-other-builds keeps them" grep -q " 0 trained, 8 already done" "$tmp/ob0.out"
"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 2 >"$tmp/ob.out" 2>"$tmp/ob.err"
check "other-build rerun exits 0" test $? = 0
check "other builds named" grep -Eq "2 of 8 runs .* were recorded by another build \((git_commit 0123abcd|compiler GNU 1.0) \(this build" "$tmp/ob.err"
check "other builds rerun" grep -q " 2 trained, 6 already done, 2 from another build rerun" "$tmp/ob.out"
check "other builds kept aside" test "$(ls "$tmp/j1/other-build" | wc -l)" = 2
check "aggregate unchanged after other-build rerun" cmp -s "$tmp/agg.ob" "$tmp/j1/aggregate.json"
rm -r "$tmp/j1/other-build"

# Corrupt files: truncated, garbage, wrong key. Each is moved aside and rerun; the aggregate is unchanged.
cp "$tmp/j1/aggregate.json" "$tmp/agg.ref"
files=("$tmp"/j1/runs/*.json)
head -c 200 "${files[0]}" >"$tmp/t" && mv "$tmp/t" "${files[0]}"
echo 'not json' >"${files[1]}"
sed 's/"key": "mqar/"key": "other/' "${files[2]}" >"$tmp/t" && mv "$tmp/t" "${files[2]}"
"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 2 >"$tmp/co.out" 2>"$tmp/co.err"
check "corrupt rerun exits 0" test $? = 0
check "3 corrupt files reported" test "$(grep -c 'warning: corrupt result' "$tmp/co.err")" = 3
check "3 runs retrained" grep -q " 3 trained, 5 already done" "$tmp/co.out"
check "corrupt files kept aside" test "$(ls "$tmp/j1/corrupt" | wc -l)" = 3
check "aggregate unchanged after corrupt rerun" cmp -s "$tmp/agg.ref" "$tmp/j1/aggregate.json"
# The hostile kinds (issue 13): a wrong type, an overflowing number, 100,000 levels of nesting, a 50,000-level
# array in the curve. Each is moved aside and rerun; the aggregate is the clean one, byte for byte.
files=("$tmp"/j1/runs/*.json)
echo '{"kind": 5}' >"${files[3]}"
sed 's/"final_accuracy": [0-9.e-]*/"final_accuracy": 1e999/' "${files[4]}" >"$tmp/t" && mv "$tmp/t" "${files[4]}"
{ printf '%.0s[' $(seq 100000); printf '%.0s]' $(seq 100000); } >"${files[5]}"
sed 's/"curve": \[/"curve": [XX/' "${files[6]}" | sed "s/XX/$(printf '%.0s[' $(seq 50000))$(printf '%.0s]' $(seq 50000)),/" >"$tmp/t" &&
  mv "$tmp/t" "${files[6]}"
"$rb" run --battery "$battery" --out "$tmp/j1" --jobs 2 >"$tmp/co2.out" 2>"$tmp/co2.err"
check "hostile rerun exits 0" test $? = 0
check "4 hostile files reported" test "$(grep -c 'warning: corrupt result' "$tmp/co2.err")" = 4
check "4 runs retrained" grep -q " 4 trained, 4 already done" "$tmp/co2.out"
check "aggregate unchanged after hostile rerun" cmp -s "$tmp/agg.ref" "$tmp/j1/aggregate.json"

# Issue 28: a hand-edited plan.json or a stale aggregate.json of another shape is bad input naming the file
# (exit 2), never an internal error. The shard's store holds its runs (nothing to train) but not the others'.
for plan in '{"kind": "recallbench.plan", "battery": {"name": "tiny"}, "runs": [{"key": 5}]}' \
            '{"kind": "recallbench.plan", "runs": []}'; do
  rm -rf "$tmp/badplan" && cp -r "$tmp/j1" "$tmp/badplan" && echo "$plan" >"$tmp/badplan/plan.json"
  "$rb" merge "$tmp/badplan" --out "$tmp/badplan_out" >"$tmp/bp.out" 2>&1
  check "merge with plan.json $plan exits 2" test $? = 2
  check "merge with plan.json $plan names it" grep -q "badplan/plan.json" "$tmp/bp.out"
done
for agg in '[]' '{"kind": "recallbench.aggregate"}' '{"missing": [], "configs": [{"config_key": 5}]}'; do
  rm -rf "$tmp/stale" && cp -r "$tmp/s0" "$tmp/stale" && echo "$agg" >"$tmp/stale/aggregate.json"
  "$rb" run --battery "$battery" --out "$tmp/stale" --jobs 1 --shard 0/3 >"$tmp/st.out" 2>&1
  check "run beside aggregate.json $agg exits 2" test $? = 2
  check "run beside aggregate.json $agg names it" grep -q "stale/aggregate.json" "$tmp/st.out"
done

# Bad battery files: exit 2, the field named, nothing written.
# Each bad file is the tiny battery with one thing wrong (sed on its text: no python needed).
bad() {  # bad NAME PATTERN SED-EXPRESSION
  local name=$1 pattern=$2 edit=$3
  sed -e "$edit" "$battery" >"$tmp/$name.json"
  cmp -s "$battery" "$tmp/$name.json" && { echo "FAIL: bad battery $name: the edit changed nothing"; fail=1; return; }
  local out rc
  out=$("$rb" run --battery "$tmp/$name.json" --out "$tmp/bad_$name" 2>&1); rc=$?
  if [ $rc != 2 ]; then echo "FAIL: bad battery $name exited $rc, expected 2"; echo "$out"; fail=1
  elif ! grep -q -- "$pattern" <<<"$out"; then echo "FAIL: bad battery $name: message lacks '$pattern'"; echo "$out"; fail=1
  elif [ -e "$tmp/bad_$name" ]; then echo "FAIL: bad battery $name wrote $tmp/bad_$name"; fail=1
  else echo "ok: bad battery $name -> 2: $(head -1 <<<"$out")"; fi
}
bad unknown_cell "cells\[0\]': cell 'nocell' is not registered" 's/"cells": \["diag", "diag+conv"\]/"cells": ["nocell", "diag+conv"]/'
bad bad_grid "tasks\[0\].grid.pairs': expected a non-empty list" 's/"pairs": \[2\]/"pairs": 2/'
bad empty_grid "tasks\[0\].grid.length': expected a non-empty list" 's/"length": \[16, 24\]/"length": []/'
bad missing "missing field 'seeds'" '/"seeds"/d'
bad version "field 'schema_version': expected 1, got integer 2" 's/"schema_version": 1/"schema_version": 2/'
bad typo "unknown field 'recipes\[0\].stepz'" 's/"steps": 30/"stepz": 30/'
bad bad_point "need 4·pairs ≤ length" 's/"pairs": \[2\]/"pairs": [2, 9]/'
bad unknown_task "valid task names" 's/"name": "mqar"/"name": "nope"/'
bad bad_contrast "contrasts\[0\]': expected one of" 's/"contrasts": \["conv"/"contrasts": ["colour"/'
bad bad_json "malformed JSON" 's/"tiny",/"tiny"/'
out=$("$rb" run --battery "$tmp/missing_file.json" --out "$tmp/bad_x" 2>&1); rc=$?
check "missing battery file exits 2" test $rc = 2
exit $fail
