#!/usr/bin/env bash
# Benchmark (label slow): a battery of 8 equal runs (diag, which does not lock in at this size, so
# every run trains all its steps; one task; 8 seeds) with --jobs 2 against
# --jobs 1, on the same machine in the same invocation. Prints both wall times and their ratio; fails when
# the ratio exceeds ${RB_SPEEDUP_MAX:-0.6}. Needs 2 idle cores to mean anything: other load on the
# machine inflates the ratio (the script prints the load average next to the figure).
set -u
rb="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/b.json" <<JSON
{"schema_version": 1, "name": "eight_equal", "cells": ["diag"], "seeds": "0-7",
 "model": {"d_model": 16, "layers": 1, "mlp": false}, "threshold": 1.0,
 "tasks": [{"name": "mqar", "options": {"pairs": 2, "length": 16, "vocab": 16}}],
 "recipes": [{"name": "bench", "steps": ${RB_SPEEDUP_STEPS:-600}, "batch": 16, "eval_every": 50, "eval_examples": 64}]}
JSON
wall() { local s e; s=$(date +%s.%N); "$rb" run --battery "$tmp/b.json" --out "$1" --jobs "$2" >/dev/null 2>&1 || exit 1
         e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN {printf "%.1f", e - s}'; }
load0=$(cut -d' ' -f1 /proc/loadavg)
t1=$(wall "$tmp/j1" 1)
t2=$(wall "$tmp/j2" 2)
load1=$(cut -d' ' -f1 /proc/loadavg)
ratio=$(awk -v a="$t2" -v b="$t1" 'BEGIN {printf "%.3f", a / b}')
echo "8 equal runs: --jobs 1 ${t1}s, --jobs 2 ${t2}s, ratio ${ratio} (load average ${load0} -> ${load1}, $(nproc) cores)"
cmp -s "$tmp/j1/aggregate.json" "$tmp/j2/aggregate.json" || { echo "FAIL: aggregates differ"; exit 1; }
if awk -v r="$ratio" -v m="${RB_SPEEDUP_MAX:-0.6}" 'BEGIN {exit !(r > m)}'; then echo "FAIL: ratio above ${RB_SPEEDUP_MAX:-0.6}"; exit 1; fi
echo "ok"
