#!/usr/bin/env bash
# A battery's tuning stage end to end (issue 44), with real training of a few seconds per run:
#  - the scoring seeds never enter the choice: a battery is constructed from measured runs so that its tuning
#    seed and its scoring seed prefer different rates for a cell, and the scoring seed's runs at every rate
#    are put in the tuning store beside the tuning runs; the choice follows the tuning seed, and the scoring
#    runs train at it;
#  - the same battery gives the same choice and the same aggregate on --jobs 1, --jobs 2 and two shards run
#    as Slurm's two arrays would (--stage tuning, then --stage scoring);
#  - the scoring stage never starts on an incomplete tuning stage (a shard alone stops; --stage scoring is
#    refused, exit 2); --stage on a battery without tuning is refused.
set -u
rb="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
battery() {  # battery FILE TUNING_SEEDS SCORING_SEEDS
  cat >"$1" <<JSON
{"schema_version": 1, "name": "tuned", "cells": ["diag+conv", "rank1+conv"],
 "model": {"d_model": 16, "layers": 2, "mlp": true}, "threshold": 0.9, "seeds": $3,
 "tasks": [{"name": "mqar", "options": {"pairs": 2, "length": 16, "vocab": 16}}],
 "recipes": [{"name": "r", "steps": 150, "batch": 16, "lr": 3e-3, "eval_every": 25, "eval_examples": 64}],
 "tuning": {"lr": [1e-3, 1e-2, 3e-2], "seeds": $2}}
JSON
}
choice() {  # choice SELECTION_OR_TUNE_JSON: "cell=lr ..." in cell order
  python3 -c 'import json,sys; print(" ".join("%s=%g" % (c["cell"], c["lr"]) for c in json.load(open(sys.argv[1]))["cells"]))' "$1"
}

# 1. Every rate on seeds 0-5 (the tuning stage of a battery whose tuning seeds are 0-5).
battery "$tmp/grid.json" '"0-5"' '[1000]'
"$rb" run --battery "$tmp/grid.json" --stage tuning --out "$tmp/g" --jobs 2 >"$tmp/g.out" 2>&1 || { cat "$tmp/g.out"; exit 1; }
check "--stage tuning trains the tuning runs only (36) and no scoring run" \
  test "$(ls "$tmp/g/tuning/runs" | wc -l)" = 36 -a "$(ls "$tmp/g/runs" | wc -l)" = 0
for s in 0 1 2 3 4 5; do
  "$rb" tune "$tmp/g/tuning" --seeds "$s" --json "$tmp/seed$s.json" >/dev/null || fail=1
done
# 2. A tuning seed and a scoring seed that prefer different rates for some cell.
read -r t s cell < <(python3 - "$tmp" <<'PY'
import json, sys, itertools
d = sys.argv[1]
ch = {s: {c["cell"]: c["lr"] for c in json.load(open(f"{d}/seed{s}.json"))["cells"]} for s in range(6)}
for t, s in itertools.permutations(range(6), 2):
    for cell in ch[t]:
        if ch[t][cell] != ch[s][cell]:
            print(t, s, cell); sys.exit(0)
print("none none none")
PY
)
if [ "$t" = none ]; then
  echo "FAIL: construction: every seed of 0-5 prefers the same rate for both cells (widen the grid or the seeds)"
  exit 1
fi
echo "constructed: tuning seed $t, scoring seed $s disagree for $cell ($(choice "$tmp/seed$t.json") vs $(choice "$tmp/seed$s.json"))"

# 3. That battery, with the scoring seed's runs at every rate sitting in its tuning store.
battery "$tmp/e.json" "[$t]" "[$s]"
mkdir -p "$tmp/e/tuning/runs" && cp "$tmp/g/tuning/runs/"*.json "$tmp/e/tuning/runs/"
"$rb" run --battery "$tmp/e.json" --out "$tmp/e" --jobs 2 >"$tmp/e.out" 2>&1 || { echo "FAIL: run"; cat "$tmp/e.out"; fail=1; }
check "the tuning runs were already there (0 trained)" grep -q "6 runs: 0 trained, 6 already done" "$tmp/e.out"
check "the choice is the tuning seed's" test "$(choice "$tmp/e/tuning/selection.json")" = "$(choice "$tmp/seed$t.json")"
check "and not the scoring seed's" test "$(choice "$tmp/e/tuning/selection.json")" != "$(choice "$tmp/seed$s.json")"
want=$(python3 -c 'import json,sys; print([c["lr"] for c in json.load(open(sys.argv[1]))["cells"] if c["cell"]==sys.argv[2]][0])' "$tmp/seed$t.json" "$cell")
got=$(python3 - "$tmp/e/runs" "$cell" <<'PY'
import json, sys, glob
print(sorted({json.load(open(f))["spec"]["train"]["lr"] for f in glob.glob(sys.argv[1] + "/*.json")
              if json.load(open(f))["spec"]["cell"]["name"] == sys.argv[2]}))
PY
)
check "the scoring runs of $cell train at the chosen rate ($want)" test "$got" = "[$want]"
check "the plan records the rates" grep -q '"rates"' "$tmp/e/plan.json"

# 4. The same battery on one worker, and as two shards in two stages (Slurm's two arrays).
"$rb" run --battery "$tmp/e.json" --out "$tmp/f1" --jobs 1 >/dev/null 2>&1 || fail=1
pids=()
for i in 0 1; do "$rb" run --battery "$tmp/e.json" --out "$tmp/f2" --jobs 1 --shard $i/2 --stage tuning >/dev/null 2>&1 & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a tuning shard exited non-zero"; fail=1; }; done
pids=()
for i in 0 1; do "$rb" run --battery "$tmp/e.json" --out "$tmp/f2" --jobs 1 --shard $i/2 --stage scoring >/dev/null 2>&1 & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a scoring shard exited non-zero"; fail=1; }; done
check "same choice: --jobs 2 = --jobs 1 (bytes)" cmp -s "$tmp/e/tuning/selection.json" "$tmp/f1/tuning/selection.json"
check "same choice: --jobs 2 = two shards in two stages (bytes)" cmp -s "$tmp/e/tuning/selection.json" "$tmp/f2/tuning/selection.json"
check "same scoring aggregate: --jobs 2 = --jobs 1" cmp -s "$tmp/e/aggregate.json" "$tmp/f1/aggregate.json"
check "same scoring aggregate: --jobs 2 = two shards" cmp -s "$tmp/e/aggregate.json" "$tmp/f2/aggregate.json"

# 5. No scoring before the choice is final.
out=$("$rb" run --battery "$tmp/e.json" --out "$tmp/f3" --jobs 1 --shard 0/2 2>&1); rc=$?
check "a shard alone trains its tuning runs and stops (exit 0)" test "$rc" = 0
check "and says the tuning stage is incomplete" grep -q "tuning stage is incomplete: 3 of its 6 runs" <<<"$out"
check "no scoring run, no selection" test "$(ls "$tmp/f3/runs" | wc -l)" = 0 -a ! -e "$tmp/f3/tuning/selection.json"
out=$("$rb" run --battery "$tmp/e.json" --out "$tmp/f4" --stage scoring 2>&1); rc=$?
check "--stage scoring on no tuning runs: exit 2" test "$rc" = 2
check "naming the missing tuning runs" grep -q "6 of its 6 runs have no result" <<<"$out"
battery "$tmp/plain.json" '[100]' '[0]'
python3 - "$tmp/plain.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1])); del b["tuning"]; json.dump(b, open(sys.argv[1], "w"))
PY
out=$("$rb" run --battery "$tmp/plain.json" --out "$tmp/f5" --stage tuning 2>&1); rc=$?
check "--stage on a battery without tuning: exit 2" test "$rc" = 2 && grep -q "has no tuning stage" <<<"$out"

exit $fail
