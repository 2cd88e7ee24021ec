#!/usr/bin/env bash
# The command line end to end: exit codes and messages (DESIGN.md: 0 ok, 2 bad input/usage).
set -u
rb="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"  # the source tree (stored baselines)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"  # expect CODE PATTERN -- ARGS...

expect 0 "Subcommands" -- --help
expect 0 "cells" -- list cells
expect 0 "mqar" -- list tasks
expect 0 "linear_attn_ref" -- list kernels
expect 0 "first" -- list batteries
expect 0 "libtorch_version" -- version
expect 0 "^recallbench .*, built from " -- --version
# The commit a run records is the one the binary was built from (cmake/build_commit.cmake), the same that
# --version names; built from this checkout, it is a full commit hash.
built=$("$rb" version | python3 -c 'import json,sys; print(json.load(sys.stdin)["git_commit"])')
case "$("$rb" --version)" in
  *"commit $built ("*) ;;
  *) echo "FAIL: --version does not name the context's commit '$built'"; fail=1 ;;
esac
if [ -d "$src/.git" ] && ! [[ "$built" =~ ^[0-9a-f]{40}(-dirty)?$ ]]; then
  echo "FAIL: built from a checkout, but the context's commit is '$built'"; fail=1
fi
expect 2 "valid commands: .*list" -- frobnicate
expect 2 "in-tree cells: .*diag+conv.*script:FILE.pt.*--plugin" -- run --cell nope --task mqar --out "$tmp"
expect 2 "valid task names: .*mqar" -- run --cell diag --task nope --out "$tmp"
expect 2 "need 4·pairs ≤ length" -- run --cell diag --task mqar --pairs 40 --length 64 --out "$tmp"
expect 2 "bad seed list" -- run --cell diag --task mqar --seeds 3-1 --out "$tmp"
# Plausible bounds and impossible configs: refused before anything is trained.
expect 2 "--steps: 0 is outside" -- run --cell diag --task mqar --steps 0 --out "$tmp"
# One reading of numbers in flags and files: decimal digits only (CLI11 alone reads 0x10 as 16).
expect 2 "--pairs: expected an integer in decimal digits.*'0x10'" -- run --cell diag --task mqar --pairs 0x10 --out "$tmp"
expect 2 "--steps: expected an integer in decimal digits.*'1e3'" -- run --cell diag --task mqar --steps 1e3 --out "$tmp"
expect 2 "--lr: expected a decimal number.*'0x1p-3'" -- run --cell diag --task mqar --lr 0x1p-3 --out "$tmp"
expect 2 "--lr: expected a decimal number.*'nan'" -- run --cell diag --task mqar --lr nan --out "$tmp"
expect 2 "--jobs: expected an integer in decimal digits.*'0b11'" -- run --cell diag --task mqar --jobs 0b11 --out "$tmp"
expect 2 "more than 2^30" -- run --cell diag --task mqar --d-model 4000 --batch 65536 --out "$tmp"
expect 2 "length = 70000 is outside the plausible range" -- run --cell diag --task mqar --task-opt length=70000 --out "$tmp"
expect 2 "--device gpu: expected cpu, cuda or cuda:N" -- run --cell diag --task mqar --device gpu --out "$tmp/dev"
if ! nvidia-smi -L >/dev/null 2>&1; then  # where a GPU exists, a CUDA LibTorch trains on it
  expect 2 "--device cuda: no CUDA device is available" -- run --cell diag --task mqar --device cuda --out "$tmp/dev"
fi
dtmp=$(mktemp -d)
# A battery's own "device" (a run option in the document, not in any run key): refused the same way, and
# --device overrides it; a bad name is a bad battery.
python3 - "$src/tests/suite/tiny_battery.json" "$dtmp" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for name, device in (("gpu-battery", "cuda"), ("bad-device", "gpu")):
    b["device"] = device
    json.dump(b, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
expect 2 "field 'device'.*cpu, cuda or cuda:N" -- plan --battery "$dtmp/bad-device.json"
if ! nvidia-smi -L >/dev/null 2>&1; then
  expect 2 "--device cuda: no CUDA device is available" -- run --battery "$dtmp/gpu-battery.json" --out "$tmp/dev"
fi
expect 0 "runs" -- plan --battery "$dtmp/gpu-battery.json"
# slurm passes the device to every task and asks for the GPU.
expect 0 "" -- slurm --battery "$dtmp/gpu-battery.json" --out "$dtmp/sl" --array 2
grep -q -- '--device cuda$' "$dtmp/sl/slurm/array.sbatch" && grep -q '^#SBATCH --gres=gpu:1$' "$dtmp/sl/slurm/array.sbatch" ||
  { echo "FAIL: slurm of a cuda battery: no --device or --gres in array.sbatch"; cat "$dtmp/sl/slurm/array.sbatch"; fail=1; }
expect 0 "" -- slurm --battery "$src/tests/suite/tiny_battery.json" --out "$dtmp/sl2" --array 2 --device cuda:1
grep -q -- '--device cuda:1$' "$dtmp/sl2/slurm/array.sbatch" && grep -q '^#SBATCH --gres=gpu:2$' "$dtmp/sl2/slurm/array.sbatch" ||
  { echo "FAIL: slurm --device cuda:1: no --device or --gres=gpu:2"; cat "$dtmp/sl2/slurm/array.sbatch"; fail=1; }
expect 2 "--device tpu: expected cpu, cuda or cuda:N" -- slurm --battery "$src/tests/suite/tiny_battery.json" --out "$dtmp/sl3" --array 2 --device tpu
rm -rf "$dtmp"
[ ! -e "$tmp/dev" ] || { echo "FAIL: a refused --device made the results directory $tmp/dev"; fail=1; }
expect 2 "task option 'pairs' given twice" -- run --cell diag --task mqar --pairs 8 --task-opt pairs=4 --out "$tmp"
expect 2 "--out is empty" -- run --cell diag --task mqar --out ""
expect 2 "is not a directory" -- run --cell diag --task mqar --out /dev/null
expect 2 "File name too long" -- run --cell diag --task mqar --out "$tmp/$(printf 'a%.0s' $(seq 300))"
expect 2 "an empty item in the list" -- stats mannwhitney --x 1,,2 --y 3,4
# Inconsistent baselines: a config twice, a negative seed, locked_in contradicting lock_in_step.
bad=$(mktemp -d)  # not $tmp: the test checks that rejected commands leave $tmp empty
python3 - "$src/ci/baselines/smoke.json" "$bad" <<'PY'
import json, sys
base, out = json.load(open(sys.argv[1])), sys.argv[2]
def save(name, edit):
    d = json.loads(json.dumps(base)); edit(d); json.dump(d, open(f"{out}/{name}.json", "w"))
save("dupcfg", lambda d: d["configs"].append(d["configs"][0]))
save("negseed", lambda d: d["configs"][0]["seeds"][0].update(seed=-1))
save("contra", lambda d: d["configs"][0]["seeds"][0].update(locked_in=True, lock_in_step=None))
# Issue 46: the one rule of a valid run (core/outcome.h), as every reader applies it.
save("late", lambda d: d["configs"][0]["seeds"][0].update(locked_in=True, lock_in_step=600, steps=450))
save("zero", lambda d: d["configs"][0]["seeds"][0].update(locked_in=True, lock_in_step=450, best_accuracy=0.0, final_accuracy=0.0))
save("over", lambda d: d["configs"][0]["seeds"][0].update(steps=5000, locked_in=False, lock_in_step=None))
save("acc", lambda d: d["configs"][0]["seeds"][0].update(final_accuracy=1.5))
PY
expect 2 "lock_in_step 600 after the 450 steps taken" -- compare --baseline "$bad/late.json" --current "$src/ci/baselines/smoke.json"
expect 2 "never reached the threshold 0.9" -- compare --baseline "$bad/zero.json" --current "$src/ci/baselines/smoke.json"
expect 2 "never reached the threshold 0.9" -- baseline show "$bad/zero.json"
expect 2 "never reached the threshold 0.9" -- report "$bad/zero.json"
expect 2 "5000 steps taken, beyond the step budget 1000" -- compare --baseline "$bad/over.json" --current "$src/ci/baselines/smoke.json"
expect 2 "final_accuracy 1.5 is outside \[0, 1\]" -- baseline show "$bad/acc.json"
# What the tool writes it reads back: a baseline with valid extremes (a lock-in at the budget, final accuracy 0
# after a lock-in, recall exactly 1, seed 2^31-1) recorded again by baseline update shows and compares the same.
python3 - "$src/ci/baselines/smoke.json" "$bad/edge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["configs"][0]["seeds"]  # edits that keep the stored summary (k/n, median recall, median lock-in step)
lo, hi = min(s, key=lambda x: x["final_accuracy"]), max(s, key=lambda x: x["final_accuracy"])
lo.update(final_accuracy=0.0)
hi.update(final_accuracy=1.0, best_accuracy=1.0)
[x for x in s if x["lock_in_step"] >= 400 and x is not lo and x is not hi][0].update(lock_in_step=1000, steps=1000, best_accuracy=0.9)
s[-1]["seed"] = 2 ** 31 - 1
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "wrote" -- baseline update smoke --results "$bad/edge.json" --out "$bad/edge_rt.json"
python3 - "$bad/edge.json" "$bad/edge_rt.json" <<'PY' || { echo "FAIL: baseline update changed per-seed outcomes"; fail=1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fields = ("seed", "locked_in", "lock_in_step", "steps", "final_accuracy", "best_accuracy", "status")
view = lambda d: [(c["key"], [tuple(s.get(f) for f in fields) for s in c["seeds"]]) for c in d["configs"]]
sys.exit(0 if view(a) == view(b) and view(a)[0][1][-1][0] == 2 ** 31 - 1 else 1)
PY
expect 0 "50/50" -- baseline show "$bad/edge_rt.json"
expect 0 "verdict: no change" -- compare --baseline "$bad/edge.json" --current "$bad/edge_rt.json"
expect 2 "appears twice" -- compare --baseline "$bad/dupcfg.json" --current "$src/ci/baselines/smoke.json"
expect 2 "seed -1 is negative" -- compare --baseline "$bad/negseed.json" --current "$src/ci/baselines/smoke.json"
expect 2 "contradict each other" -- compare --baseline "$bad/contra.json" --current "$src/ci/baselines/smoke.json"
# A battery of 7e8 runs: refused by its size, not an allocation failure.
python3 -c "import json,sys; json.dump({'schema_version':1,'name':'huge','cells':'all','seeds':'0-99999','tasks':[{'name':'mqar','options':{'vocab':64},'grid':{'pairs':list(range(1,200)),'length':[1024,2048,4096]}}]}, open(sys.argv[1],'w'))" "$bad/huge.json"
expect 2 "more than the 1000000 one plan may hold" -- plan --battery "$bad/huge.json"
expect 2 "cell option heads = 1000000000 is outside the plausible range" -- run --cell diag --task mqar --cell-opt heads=1000000000 --out "$tmp"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['configs'][0]['state_size']=-5; json.dump(d,open(sys.argv[2],'w'))" \
  "$src/ci/baselines/smoke.json" "$bad/negstate.json"
expect 2 "state_size -5 is negative" -- compare --baseline "$bad/negstate.json" --current "$src/ci/baselines/smoke.json"
python3 -c "import json,sys; json.dump({'schema_version':1,'name':'x'*100000,'cells':['diag'],'seeds':'0','tasks':[{'name':'mqar'}]}, open(sys.argv[1],'w'))" "$bad/longname.json"
expect 2 "a name of at most 100 letters" -- plan --battery "$bad/longname.json"
rm -rf "$bad"
expect 2 "unknown option 'colour'" -- run --cell diag --task mqar --task-opt colour=red --out "$tmp"
expect 2 "valid battery names" -- run --battery nope --out "$tmp"
expect 0 "p = 0.0197666" -- stats fisher 7 3 1 9
expect 2 "got -1, expected a whole number" -- stats fisher -1 2 3 4
[ -z "$(ls -A "$tmp")" ] || { echo "FAIL: a rejected command wrote into $tmp"; fail=1; }
# The gate command sets the look size from the battery: a --stage-seeds of its own is refused.
expect 2 "stage-seeds is set by the battery" -- gate --baseline "$src/ci/baselines/smoke.json" --stage-seeds 5 --out "$tmp/gate"
# A full file system is named with the operating system's words before any worker starts (a worker that
# cannot write its log would otherwise fail with an empty log). Needs root to mount a small tmpfs.
full="$tmp/full"
mkdir -p "$full"
if mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
  dd if=/dev/zero of="$full/fill" bs=1k count=60 2>/dev/null
  expect 2 "No space left on device" -- run --cell diag --task mqar --steps 5 --out "$full/r"
  umount "$full"
  # The disk filling while workers train: exit 2 and no retry (README: a full disk is the user's to fix), and
  # once space is freed the same command finishes the runs.
  mount -t tmpfs -o size=1200k tmpfs "$full"
  ( while [ ! -d "$full/r/logs" ]; do sleep 0.1; done; sleep 1; dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null ) &
  filler=$!
  out=$("$rb" run --cell diag --task mqar --pairs 2 --length 16 --steps 400 --seeds 0-1 --out "$full/r" 2>&1)
  rc=$?
  wait "$filler"
  if [ "$rc" != 2 ] || ! grep -q "failed on a full disk (not retried)" <<<"$out" || grep -q "retrying" <<<"$out"; then
    echo "FAIL: run on a disk that fills: exit $rc (expected 2, no retry)"; echo "$out"; fail=1
  else
    echo "ok: run on a disk that fills while it trains -> 2, not retried"
  fi
  rm -f "$full/fill"
  expect 0 "2 trained" -- run --cell diag --task mqar --pairs 2 --length 16 --steps 400 --seeds 0-1 --out "$full/r"
  umount "$full"
else
  echo "skip: the full-disk case needs a tmpfs mount (root)"
fi
# Every integer option of every registered task, given a huge value, is refused with exit 2 before anything is
# generated: never a crash, an allocation error or a hang (issue 46: sums like 2·n + 1 overflowed).
"$rb" list tasks --json | python3 -c '
import json, subprocess, sys
rb, failed = sys.argv[1], 0
for task in json.load(sys.stdin)["tasks"]:
    for key, default in task["defaults"].items():
        if isinstance(default, bool) or not isinstance(default, int):
            continue
        for value in (4611686018427387904, -1000000000, 1000000000):
            try:
                p = subprocess.run([rb, "sample", "--task", task["name"], "--n", "1", "--task-opt",
                                    "%s=%d" % (key, value)], capture_output=True, text=True, timeout=20)
                code = p.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
            if code != 2:
                print("FAIL: sample --task %s %s=%d: exit %s, expected 2" % (task["name"], key, value, code))
                failed = 1
sys.exit(failed)' "$rb" || fail=1
# What a command prints must reach standard output: a full one is exit 2 with the reason, never exit 0
# (issue 46), for the torch-free commands and for plan's machine-readable output alike.
if [ -w /dev/full ]; then
  for args in "list" "plan --battery smoke --battery-json" "stats fisher 3 1 1 3"; do
    # shellcheck disable=SC2086
    msg=$("$rb" $args 2>&1 >/dev/full); code=$?
    if [ "$code" != 2 ] || [[ "$msg" != *"writing to standard output failed"* ]]; then
      echo "FAIL: '$args' to a full stdout: exit $code ($msg), expected 2"; fail=1
    fi
  done
fi
# Issue 47: plan reads run's flags, so it plans (and costs) any ad hoc run; a run file's spec runs again with
# --spec (the same key: already done), on other seeds with --seeds.
expect 0 "battery adhoc: 3 runs (1 configs x 3 seeds).*estimated" -- plan --cell diag --task mqar --pairs 2 --length 16 --steps 20 --seeds 0-2
expect 2 "need 4·pairs ≤ length" -- plan --cell diag --task mqar --pairs 40 --length 64
expect 2 "--lr applies to --cell/--task runs" -- plan --battery smoke --lr 1e-3
expect 0 "1 trained" -- run --cell diag --task mqar --pairs 2 --length 16 --steps 20 --seeds 0 --jobs 1 --out "$tmp/again"
runfile=$(ls "$tmp"/again/runs/*.json | head -1)
key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$runfile")
expect 0 "$key" -- plan --spec "$runfile"
expect 0 "0 trained, 1 already done" -- run --spec "$runfile" --out "$tmp/again"
expect 0 "battery adhoc: 2 runs" -- plan --spec "$runfile" --seeds 4-5
expect 2 "--spec cannot be combined with --cell" -- run --spec "$runfile" --cell diag --out "$tmp/again"
expect 2 "--lr cannot be combined with --spec" -- run --spec "$runfile" --lr 1e-3 --out "$tmp/again"
expect 2 "--battery cannot be combined with --spec" -- plan --spec "$runfile" --battery smoke
exit $fail
