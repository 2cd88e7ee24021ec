#!/usr/bin/env bash
# The front end (suite/main.cpp): `recallbench` is linked without LibTorch and runs the JSON commands itself,
# and `plan`, `merge` and `slurm` with in-tree cells (sized by cells/sizing.h); every other command, and a
# battery with a TorchScript cell, reaches recallbench-torch with its arguments, exit code and output intact.
set -u
rb="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"
fail=0
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"

# Not linked against LibTorch (or anything that pulls it in): the reason it starts in milliseconds.
# Library names only: ldd also prints load addresses, and a random one such as 0x7ffc10... contains "c10".
if ldd "$rb" | grep -qE 'lib(torch|c10)[^ ]*\.so'; then
  echo "FAIL: $rb links LibTorch:"; ldd "$rb" | grep -E 'lib(torch|c10)[^ ]*\.so'; fail=1
else
  echo "ok: $rb does not link LibTorch"
fi
if ! ldd "$(dirname "$rb")/recallbench-torch" | grep -q libtorch; then
  echo "FAIL: recallbench-torch beside it does not link LibTorch"; fail=1
fi
# A JSON command runs in this process: with LD_DEBUG, the dynamic loader names every library it opens.
if LD_DEBUG=libs "$rb" stats fisher 5 5 5 0 2>&1 | grep -q 'libtorch'; then
  echo "FAIL: stats fisher loaded LibTorch"; fail=1
else
  echo "ok: stats fisher runs without loading LibTorch"
fi
expect 0 "p = 0.100899" -- stats fisher 5 5 5 0
expect 2 "" -- stats fisher 5 5 5
expect 0 "Usage: recallbench report" -- report --help
expect 0 "smoke" -- baseline show "$src/ci/baselines/smoke.json"
# Commands that need LibTorch are handed over, as are unknown names and plugins; the global --help and
# --version are answered here (the torch side's commands listed from suite/cli.h's table).
expect 0 "Subcommands" -- --help
expect 0 "diag+conv" -- list cells
expect 0 "params" -- list cells --parameters   # counting parameters builds the modules: handed over
expect 0 "libtorch_version" -- version
expect 2 "valid commands: .*stats" -- frobnicate
expect 2 "plugin /nonexistent.so: file not found" -- --plugin /nonexistent.so stats fisher 1 1 1 1
# plan, merge, slurm and list plan batteries without LibTorch, with the keys recallbench-torch computes
# (`list batteries` costs every preset: 34 s through LibTorch's causality checks, 0.2 s here; issue 46).
torch_side="$(dirname "$rb")/recallbench-torch"
for cmd in "list cells" "list cells --json" "--help" "--version" "plan --battery smoke" "plan --cell diag --task mqar --pairs 4 --seeds 0-2" "merge --help" "slurm --help" "list batteries" "list tasks"; do
  # shellcheck disable=SC2086  # cmd is a command with its arguments
  if LD_DEBUG=libs "$rb" $cmd 2>&1 | grep -q 'libtorch'; then
    echo "FAIL: $cmd loaded LibTorch"; fail=1
  else
    echo "ok: $cmd runs without loading LibTorch"
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same_as_torch() {  # same_as_torch ARGS...: output and exit code equal to recallbench-torch's
  local a b ra rb_
  a=$("$rb" "$@" 2>&1); ra=$?
  b=$("$torch_side" "$@" 2>&1); rb_=$?
  if [ "$a" != "$b" ] || [ "$ra" != "$rb_" ]; then
    echo "FAIL: recallbench $* differs from recallbench-torch (exit $ra vs $rb_)"; local d; d=$(diff <(echo "$a") <(echo "$b")); echo "$d" | head -12; echo "$d" | grep "^>" | head -8; fail=1
  else
    echo "ok: recallbench $* = recallbench-torch (exit $ra)"
  fi
}
for battery in smoke first leaderboard; do same_as_torch plan --battery "$battery" --json; done
same_as_torch list batteries --json  # the costs, counted on either side
same_as_torch list cells --json      # the sizing rules here, the modules there
same_as_torch list kernels           # handed over whole: said once
same_as_torch --help                 # every command listed, with the torch side's own help lines
same_as_torch --version
# The board's reference per task point, from the stored board: its lock-ins against each point's budget.
expect 0 "10/10, lock-in step median [0-9]* (range [0-9-]*) of a 6000-step budget" -- plan --battery leaderboard
expect 0 "0/10, no seed locked in in a 1500-step budget; not locked in: .*; not ranked" -- plan --battery leaderboard --cell swa
same_as_torch plan --cell diag+conv --task mqar --pairs 8 --length 64 --seeds 0-4 --lr 1e-3 --specs  # an ad hoc run
same_as_torch plan --cell diag --task mqar --pairs 0  # refused alike
same_as_torch plan --battery smoke --specs
cat >"$tmp/budget.json" <<'JSON'
{"schema_version": 1, "name": "budgets", "cells": "all", "seeds": "0-1", "state_budget": 700,
 "model": {"d_model": 32, "layers": 1},
 "tasks": [{"name": "mqar", "options": {"vocab": 64, "length": 32}, "grid": {"pairs": [2, 4]}}],
 "recipes": [{"name": "r", "steps": 20, "eval_every": 10}]}
JSON
same_as_torch plan --battery "$tmp/budget.json" --specs  # every in-tree cell sized to a budget
same_as_torch plan --battery "$tmp/budget.json"  # with the cells over it
sed 's/"all"/["diag", "nope"]/' "$tmp/budget.json" >"$tmp/unknown.json"
same_as_torch plan --battery "$tmp/unknown.json"
sed 's/"seeds": "0-1",/"seeds": "0-1", "cell_options": {"heads": 0},/; s/"all"/["diag+conv"]/' "$tmp/budget.json" >"$tmp/badopt.json"
same_as_torch plan --battery "$tmp/badopt.json"
# A TorchScript cell: only its module knows its size, so the command is handed over (same output).
if (cd "$tmp" && /usr/bin/python3 "$src/examples/script_cell/linear_attention_conv.py" cell.pt >/dev/null 2>&1); then
  sed 's#"all"#["diag", "script:cell.pt"]#' "$tmp/budget.json" >"$tmp/script.json"
  same_as_torch plan --battery "$tmp/script.json" --specs
  expect 0 "script:cell" -- plan --battery "$tmp/script.json"
else
  echo "note: no python3 with torch: the TorchScript hand-over is not checked here"
fi
exit $fail
