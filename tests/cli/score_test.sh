#!/usr/bin/env bash
# `recallbench score` end to end on a tiny battery and board: a TorchScript cell is checked at the battery's
# sizes, planned, trained and shown on the board with a reference test; without a terminal it asks for
# --yes; a leaky cell and an over-budget cell are stopped before any training; the same command again
# retrains nothing. And two concurrent `leaderboard --add` on one file keep both rows.
#   score_test.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
src=$(cd "$2" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"
py=/usr/bin/python3
cat >"$tmp/tiny.json" <<'JSON'
{"schema_version": 1, "name": "tiny-board", "description": "score test: MQAR 2 pairs, length 16, 2 seeds",
 "cells": ["diag+conv"], "model": {"d_model": 32, "layers": 1, "mlp": false}, "state_budget": 1312,
 "threshold": 0.9, "seeds": "0-1",
 "tasks": [{"name": "mqar", "options": {"pairs": 2, "length": 16, "vocab": 32}}],
 "recipes": [{"name": "r", "steps": 60, "batch": 16, "lr": 3e-3, "eval_every": 20, "eval_examples": 64}]}
JSON
(cd "$tmp" && "$py" "$src/examples/script_cell/linear_attention_conv.py" cell.pt &&
  "$py" "$src/examples/script_cell/linear_attention_conv.py" acausal.pt --acausal) >/dev/null ||
  { echo "FAIL: writing the example cells"; exit 1; }
expect 0 "" -- run --battery "$tmp/tiny.json" --out "$tmp/ref" --jobs 2
expect 0 "" -- leaderboard --add "$tmp/ref" --file "$tmp/board.json"
expect 2 "pass --yes" -- score "script:$tmp/cell.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" --out "$tmp/s" </dev/null
[ -z "$(ls "$tmp/s/runs" 2>/dev/null)" ] || { echo "FAIL: score trained without confirmation"; fail=1; }
expect 0 "against diag+conv" -- score "script:$tmp/cell.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" \
  --out "$tmp/s" --yes --reference diag+conv --jobs 2 --md "$tmp/board.md"
expect 0 "causal       pass" -- score "script:$tmp/cell.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" \
  --out "$tmp/s" --yes --jobs 2
grep -q "linear_attention_conv\|cell" "$tmp/board.md" || { echo "FAIL: the board's Markdown lacks the new row"; fail=1; }
out=$("$rb" score "script:$tmp/cell.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" --out "$tmp/s" --yes 2>&1)
grep -q "0 to run" <<<"$out" || { echo "FAIL: the second score retrained runs"; echo "$out"; fail=1; }
# A sidecar names the cell and describes it on the board (text and Markdown), without touching its module.
(cd "$tmp" && "$py" "$src/examples/script_cell/linear_attention_conv.py" described.pt --name la_conv) >/dev/null ||
  { echo "FAIL: example with a sidecar"; fail=1; }
expect 0 "script:la_conv: linear attention with a width-4" -- score "script:$tmp/described.pt" --battery "$tmp/tiny.json" \
  --board "$tmp/board.json" --out "$tmp/d" --yes --jobs 2 --md "$tmp/described.md"
grep -q '`script:la_conv`: linear attention.*(causal true, d_model 32, key_dim 28, width 4)' "$tmp/described.md" ||
  { echo "FAIL: the board's Markdown lacks the sidecar's description"; fail=1; }
grep -q '"description": "linear attention' "$tmp"/d/runs/*.json ||
  { echo "FAIL: the run documents lack the sidecar's description"; fail=1; }
expect 2 "not causal" -- score "script:$tmp/acausal.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" --out "$tmp/a" --yes
[ -z "$(ls "$tmp/a/runs" 2>/dev/null)" ] || { echo "FAIL: a leaky cell was trained"; fail=1; }
sed 's/"state_budget": 1312/"state_budget": 512/' "$tmp/tiny.json" >"$tmp/tight.json"
# Over the budget is one condition with one exit code (2, as in run), and the hint names what applies to a .pt.
expect 2 "over the battery's state budget" -- score "script:$tmp/cell.pt" --battery "$tmp/tight.json" --board "$tmp/board.json" --out "$tmp/o" --yes
expect 2 "save the module with a smaller state (at most 563 numbers per layer pass" -- score "script:$tmp/cell.pt" \
  --battery "$tmp/tight.json" --board "$tmp/board.json" --out "$tmp/o" --yes
expect 2 "state_size() returns" -- run --battery "$tmp/tight.json" --cell "script:$tmp/cell.pt" --out "$tmp/o" --jobs 1
[ -z "$(ls "$tmp/o/runs" 2>/dev/null)" ] || { echo "FAIL: an over-budget cell was trained"; fail=1; }
expect 2 "no row on the board" -- score "script:$tmp/cell.pt" --battery "$tmp/tiny.json" --board "$tmp/board.json" \
  --out "$tmp/s" --yes --reference nosuch

# Two `leaderboard --add` at once on one file: the lock serialises them and neither row is lost (5 tries;
# RB_RACE_TRIES=100 for the acceptance figure).
sed 's/"cells": \["diag+conv"\]/"cells": ["rank1+conv", "diag"]/' "$tmp/tiny.json" >"$tmp/two.json"
expect 0 "" -- run --battery "$tmp/two.json" --cell rank1+conv --out "$tmp/r1" --jobs 2 --allow-over-budget
expect 0 "" -- run --battery "$tmp/two.json" --cell diag --out "$tmp/r2" --jobs 2 --allow-over-budget
lost=0
for i in $(seq 1 "${RB_RACE_TRIES:-5}"); do
  cp "$tmp/board.json" "$tmp/race.json"
  "$rb" leaderboard --add "$tmp/r1" --file "$tmp/race.json" >/dev/null 2>&1 &
  "$rb" leaderboard --add "$tmp/r2" --file "$tmp/race.json" >/dev/null 2>&1 &
  wait
  rows=$("$rb" leaderboard --file "$tmp/race.json" 2>&1 | grep -c -E '^ +[0-9]+=? +(rank1\+conv|diag) ')
  [ "$rows" = 2 ] || { echo "FAIL: concurrent leaderboard --add, try $i: $rows of the 2 new rows kept"; fail=1; lost=$((lost + 1)); }
done
echo "concurrent leaderboard --add: ${RB_RACE_TRIES:-5} pairs, $lost with a row lost"
exit "$fail"
