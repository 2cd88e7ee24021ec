#!/usr/bin/env bash
# `recallbench gate --record DB` and `--baseline-history DB` on a tiny battery: the first gate (file baseline)
# records its commit; a second gate on the history compares with it (the same commit is left out of the pool,
# so a history holding only this commit is bad input, exit 2); a dirty build is refused with exit 2. Then the
# same through ci/gate (GATE_HISTORY, GATE_BASELINE=history): it records, and writes the trend page and summary.
#   gate_history_test.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
src=$(cd "$2" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"
cat >"$tmp/tiny.json" <<'JSON'
{"schema_version": 1, "name": "tiny-gate", "description": "gate history test", "cells": ["diag+conv"],
 "model": {"d_model": 16, "layers": 1, "mlp": false}, "threshold": 0.9, "seeds": "0-1",
 "tasks": [{"name": "mqar", "options": {"pairs": 2, "length": 12, "vocab": 16}}],
 "recipes": [{"name": "r", "steps": 40, "batch": 8, "lr": 3e-3, "eval_every": 20, "eval_examples": 32}]}
JSON
cd "$src" || exit 1
expect 0 "" -- run --battery "$tmp/tiny.json" --out "$tmp/base" --jobs 2
expect 0 "" -- baseline update tiny-gate --results "$tmp/base" --out "$tmp/baseline.json"
commit=$("$rb" version 2>/dev/null | grep -o '"git_commit": *"[^"]*"' | head -1 | sed 's/.*: *"//; s/"$//')
if [[ "$commit" == *-dirty || -z "$commit" ]]; then
  expect 2 "dirty tree" -- gate --battery "$tmp/tiny.json" --baseline "$tmp/baseline.json" --out "$tmp/g1" \
    --record "$tmp/h.sqlite" --stages 1 --jobs 2
  echo "note: this build is dirty ($commit): recording refused as it should be; the clean path runs in CI"
else
  expect 0 "recorded commit" -- gate --battery "$tmp/tiny.json" --baseline "$tmp/baseline.json" --out "$tmp/g1" \
    --record "$tmp/h.sqlite" --stages 1 --jobs 2
  expect 0 '"seed":1' -- history export --db "$tmp/h.sqlite"
  expect 2 "holds no runs of these configs (or only of this commit)" -- gate --battery "$tmp/tiny.json" \
    --baseline-history "$tmp/h.sqlite" --out "$tmp/g2" --stages 1 --jobs 2
fi
expect 2 "expected one of --baseline" -- gate --battery "$tmp/tiny.json" --out "$tmp/g3"

# ci/gate, as a user's CI calls it.
gate() {  # gate EXPECTED_CODE PATTERN OUT [VAR=VALUE...]
  local code=$1 pattern=$2 out=$3 rc
  shift 3
  env GATE_BATTERY="$tmp/tiny.json" GATE_BASELINE_FILE="$tmp/baseline.json" GATE_BENCH=0 GATE_STAGES=1 GATE_BOOTSTRAP=0 \
    GATE_ARGS="--jobs 2" RECALLBENCH_HISTORY= "$@" ci/gate "$out" >"$tmp/gate.log" 2>&1
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -q -- "$pattern" "$tmp/gate.log"; then
    echo "FAIL: ci/gate $* -> $rc, expected $code and '$pattern'"; cat "$tmp/gate.log"; fail=1
  else
    echo "ok: ci/gate $* -> $rc"
  fi
}
gate 2 "needs GATE_HISTORY" "$tmp/c0" GATE_BASELINE=history
if [[ "$commit" == *-dirty || -z "$commit" ]]; then
  gate 2 "dirty tree" "$tmp/c1" GATE_HISTORY="$tmp/ci.sqlite"
else
  gate 0 "gate: exit 0" "$tmp/c1" GATE_HISTORY="$tmp/ci.sqlite"
  for f in history.html history.md report.html summary.md; do
    [ -s "$tmp/c1/$f" ] || { echo "FAIL: ci/gate wrote no $f"; fail=1; }
  done
  grep -q "${commit:0:7}" "$tmp/c1/history.md" || { echo "FAIL: the history summary names no commit ${commit:0:7}"; fail=1; }
  expect 0 "\"commit\": *\"$commit\"\|\"commit\":\"$commit\"" -- history export --db "$tmp/ci.sqlite"
  gate 0 "gate: exit 0" "$tmp/c2" GATE_HISTORY="$tmp/ci.sqlite"  # the same commit again: nothing new, still a pass
  gate 2 "holds no runs of these configs" "$tmp/c3" GATE_HISTORY="$tmp/ci.sqlite" GATE_BASELINE=history
fi
exit "$fail"
