#!/usr/bin/env bash
# The plan's cost model against measured training steps (issue 31; suite/planner.cpp estimate_run_seconds):
# for each shape, one worker trains the same run key for STEPS_A and STEPS_B steps (no lock-in stop, no
# evaluation until the end) and the CPU time of the difference, divided by STEPS_B − STEPS_A, is the cost of
# one training step without the process start; it is printed beside the estimate's per-step term and their
# ratio. The estimate is taken from `recallbench plan --json` on a one-run battery, so it is the
# product's own. Not a test (it times things): run it by hand on an idle machine.
#   tests/bench/plan_cost.sh BUILD_DIR [STEPS_A] [STEPS_B]
set -euo pipefail
build=$(cd "${1:?usage: plan_cost.sh BUILD_DIR [STEPS_A] [STEPS_B]}" && pwd)
a=${2:-10}
b=${3:-60}
[ -x /usr/bin/time ] || { echo "plan_cost.sh: needs GNU time: apt-get install time" >&2; exit 2; }
[ -x /usr/bin/python3 ] || { echo "plan_cost.sh: needs python3 (to read plan --json): apt-get install python3" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cell d_model batch length pairs vocab layers
shapes=(
  "diag+conv 32 32 16 2 64 2"
  "diag+conv 32 32 32 4 64 2"
  "diag+conv 32 32 64 8 64 2"
  "diag+conv 32 32 128 8 64 2"
  "rank1+decay+conv 32 32 64 8 64 2"
  "rank1+decay+conv 32 32 256 4 64 2"
  "diag+conv 64 64 64 8 256 2"
  "rank1+decay+conv 64 64 64 8 256 2"
  "attention 32 32 64 8 64 2"
  "baseconv 32 32 64 8 64 2"
)
cpu_of() {  # cpu seconds of one run: cell d batch length pairs vocab layers steps
  local out="$tmp/run-$RANDOM$RANDOM"
  /usr/bin/time -o "$tmp/time" -f "%U %S" "$build/recallbench" run --cell "$1" --task mqar --d-model "$2" \
    --batch "$3" --length "$4" --pairs "$5" --vocab "$6" --layers "$7" --steps "$8" --eval-every "$8" \
    --eval-examples 32 --threshold 1 --seeds 0 --jobs 1 --allow-over-budget --out "$out" >/dev/null 2>&1
  awk '{ printf "%.3f", $1 + $2 }' "$tmp/time"
  rm -rf "$out"
}
est_of() {  # the plan's estimated core seconds of one run: cell d batch length pairs vocab layers steps
  local f="$tmp/battery.json"
  printf '{"schema_version": 1, "name": "cost", "cells": ["%s"], "model": {"d_model": %s, "layers": %s},
    "seeds": [0], "tasks": [{"name": "mqar", "options": {"length": %s, "pairs": %s, "vocab": %s}}],
    "recipes": [{"name": "cost", "steps": %s, "batch": %s, "eval_every": %s, "eval_examples": 32}]}\n' \
    "$1" "$2" "$7" "$4" "$5" "$6" "$8" "$3" "$8" > "$f"
  "$build/recallbench" plan --battery "$f" --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated_core_seconds"])'
}
printf '%-18s %3s %5s %6s %6s  %10s %10s %7s\n' cell d batch length layers "s/step" estimate "ratio"
for s in "${shapes[@]}"; do
  read -r cell d batch length pairs vocab layers <<< "$s"
  ta=$(cpu_of "$cell" "$d" "$batch" "$length" "$pairs" "$vocab" "$layers" "$a")
  tb=$(cpu_of "$cell" "$d" "$batch" "$length" "$pairs" "$vocab" "$layers" "$b")
  # The estimate's per-step term, from `plan` itself: the difference of the two runs' estimates (one
  # evaluation each, so its term cancels), as the measurement is.
  ea=$(est_of "$cell" "$d" "$batch" "$length" "$pairs" "$vocab" "$layers" "$a")
  eb=$(est_of "$cell" "$d" "$batch" "$length" "$pairs" "$vocab" "$layers" "$b")
  awk -v c="$cell" -v d="$d" -v B="$batch" -v L="$length" -v l="$layers" -v ta="$ta" -v tb="$tb" \
      -v ea="$ea" -v eb="$eb" -v n=$((b - a)) 'BEGIN {
    per = (tb - ta) / n; est = (eb - ea) / n
    printf "%-18s %3d %5d %6d %6d  %10.4f %10.4f %7.2f\n", c, d, B, L, l, per, est, per / est
  }'
done
