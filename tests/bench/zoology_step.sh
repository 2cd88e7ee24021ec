#!/usr/bin/env bash
# The Zoology side-by-side (issue 31; docs/speed.md §6): the CPU time of one training step of our trainer
# and of Zoology's model code on the same config (d_model 64, 2 layers, MLP×4, batch 32, L 256, MQAR with
# 16 pairs, vocab 256), one LibTorch and one OpenBLAS thread on both sides, interleaved pair by pair, as
# the ratio Zoology / ours per pair; plus the GEMM floor (the step's matmuls alone).
#   tests/bench/zoology_step.sh BUILD_DIR ZOOLOGY_CHECKOUT [REPS] [STEPS] [OURS_STEPS]
# (defaults 5, 12, 20). BUILD_DIR: where recallbench and recallbench-torch are (a copy of build/ will do,
# so that a rebuild during the measurement does not change the binary).
# ZOOLOGY_CHECKOUT: a checkout of github.com/HazyResearch/zoology (imported from there; nothing copied).
# Python: Debian's /usr/bin/python3 with python3-torch (1.13, the same LibTorch as ours), python3-pydantic
# and python3-torchvision; tests/bench/zoology_step.py documents the shims it needs for the rest.
#
# Our step: `recallbench run` trained for 3 and 3 + OURS_STEPS steps (one evaluation on one example at the
# end of each), CPU time (user + system, GNU time) of the difference / OURS_STEPS: everything the trainer does
# per step (batch generation, forward, loss, backward, clip, AdamW), no start-up. Zoology's step: the
# harness's process_time over STEPS steps after 3 warm-up steps (data generated beforehand, as Zoology does).
# Pairs (each prints ours, Zoology's and the ratio; the order within a pair alternates between reps):
#   attention-equal-tuned    equal work (loss at the 16 labelled positions, clip, train accuracy), both
#                            with glibc's allocator tuned (ours: mallopt, its default; Zoology: the same
#                            values through GLIBC_TUNABLES)
#   attention-equal-untuned  equal work, both with glibc's defaults (ours: RECALLBENCH_KEEP_MALLOC=1)
#   attention-default        each as it runs by default: ours (tuned, 16 positions) vs Zoology's Trainer
#                            step (logits and loss over all 256 positions, embed dropout 0.1, glibc defaults)
#   baseconv-w3-equal-tuned  equal work, filter width 3 on both (ours without a budget, Zoology's default)
#   baseconv-w65-equal-tuned equal work, width 65 on both (ours at the batteries' budget 4096 → W 65)
#   baseconv-default         each by default: ours W 3 vs Zoology's BaseConv (kernel_size 3), its loss
#                            over all positions, glibc defaults
#   baseconv-paper-default   what each benchmark trains: ours at budget 4096 (W 65) vs Zoology's paper
#                            BaseConv (kernel_size [3, -1]: short conv, then the implicit long FFT filter)
# ZOO_PAIRS=REGEX runs only the pairs whose name matches (e.g. ZOO_PAIRS='equal-tuned').
# Not a test (it times things): run it by hand. About 8 minutes of CPU at the defaults.
set -euo pipefail
build=$(cd "${1:?usage: zoology_step.sh BUILD_DIR ZOOLOGY_CHECKOUT [REPS] [STEPS] [OURS_STEPS]}" && pwd)
zoo=$(cd "${2:?usage: zoology_step.sh BUILD_DIR ZOOLOGY_CHECKOUT [REPS] [STEPS] [OURS_STEPS]}" && pwd)
reps=${3:-5}
steps=${4:-12}
ours_steps=${5:-20}
s0=3
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x /usr/bin/time ] || { echo "zoology_step.sh: needs GNU time: apt-get install time" >&2; exit 2; }
[ -f "$zoo/zoology/model.py" ] || { echo "zoology_step.sh: $zoo is not a Zoology checkout" >&2; exit 2; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
tuned="glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=536870912:glibc.malloc.top_pad=16777216"
tmp=$(mktemp -d /tmp/zoo_step.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
common=(--task mqar --pairs 16 --length 256 --vocab 256 --d-model 64 --layers 2 --batch 32 --eval-examples 1
        --threshold 1 --seeds 0 --jobs 1 --threads 1 --force)

# ours CELL_ARGS... (env from the caller): CPU seconds per step by difference of two run lengths.
ours() {
  local cpu=()
  for n in $s0 $((s0 + ours_steps)); do
    /usr/bin/time -o "$tmp/time" -f "%U %S" "$build/recallbench" run "$@" "${common[@]}" --steps "$n" --eval-every "$n" \
      --out "$tmp/ours" >"$tmp/ours.log" 2>&1 || { cat "$tmp/ours.log" >&2; exit 1; }
    cpu+=("$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")")
  done
  awk -v a="${cpu[0]}" -v b="${cpu[1]}" -v n="$ours_steps" 'BEGIN { printf "%.5f", (b - a) / n }'
}
# zoology ARGS... (env from the caller): CPU seconds per step, from the harness's JSON line.
zoology() {
  "$py" "$here/zoology_step.py" step --zoology "$zoo" --steps "$steps" --warmup 3 "$@" >"$tmp/zoo.json" 2>"$tmp/zoo.log" ||
    { cat "$tmp/zoo.log" >&2; exit 1; }
  "$py" -c 'import json,sys; print("%.5f" % json.load(open(sys.argv[1]))["cpu_per_step"])' "$tmp/zoo.json"
}

pair() {  # NAME REP "OURS_ENV" "OURS_ARGS" "ZOO_ENV" "ZOO_ARGS"
  local name=$1 rep=$2 o z
  [[ $name =~ ${ZOO_PAIRS:-.} ]] || return 0
  # shellcheck disable=SC2086
  if (( rep % 2 )); then
    o=$(export $3; ours $4)
    z=$(export $5; zoology $6)
  else
    z=$(export $5; zoology $6)
    o=$(export $3; ours $4)
  fi
  printf '%-26s %3s %9s %9s %7.2f\n' "$name" "$rep" "$o" "$z" "$(awk -v o="$o" -v z="$z" 'BEGIN { print z / o }')"
  echo "$name $o $z" >>"$tmp/pairs"
}

echo "Zoology checkout: $zoo ($(git -C "$zoo" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
"$build/recallbench" version | "$py" -c 'import json,sys; d=json.load(sys.stdin); print("ours:", d["git_commit"], d["build_type"], "LibTorch", d["libtorch_version"], "BLAS core", d["blas_core"], "|", d["allocator"])'
echo "reps $reps; Zoology: $steps steps after 3 warm-up; ours: runs of 3 and $((3 + ours_steps)) steps"
printf '%-26s %3s %9s %9s %7s\n' pair rep "ours s" "zoo s" "zoo/ours"
T="GLIBC_TUNABLES=$tuned"
for rep in $(seq 1 "$reps"); do
  pair attention-equal-tuned    "$rep" "RB_=1" "--cell attention" "$T" "--mixer attention --work equal"
  pair attention-equal-untuned  "$rep" "RECALLBENCH_KEEP_MALLOC=1" "--cell attention" "RB_=1" "--mixer attention --work equal"
  pair attention-default        "$rep" "RB_=1" "--cell attention" "RB_=1" "--mixer attention --work default"
  pair baseconv-w3-equal-tuned  "$rep" "RB_=1" "--cell baseconv" "$T" "--mixer baseconv --work equal --kernel-size 3"
  pair baseconv-w65-equal-tuned "$rep" "RB_=1" "--cell baseconv --budget 4096" "$T" "--mixer baseconv --work equal --kernel-size 65"
  pair baseconv-default         "$rep" "RB_=1" "--cell baseconv" "RB_=1" "--mixer baseconv --work default --kernel-size 3"
  pair baseconv-paper-default   "$rep" "RB_=1" "--cell baseconv --budget 4096" "RB_=1" "--mixer baseconv --work default --kernel-size 3,-1"
done

echo
echo "GEMM floor (forward + backward matmuls of one step, same shapes, torch.matmul, one thread; best of 5):"
"$py" "$here/zoology_step.py" floor --mixer attention --supervised 16
"$py" "$here/zoology_step.py" floor --mixer attention --supervised all
"$py" "$here/zoology_step.py" floor --mixer baseconv --supervised 16
grep -h '"core"' "$tmp/zoo.json" | "$py" -c 'import json,sys; d=json.load(sys.stdin); print("Zoology side:", d["torch"], d["openblas"], d["core"], "shims:", "; ".join(d["shims"]))'

echo
"$py" - "$tmp/pairs" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, o, z = line.split()
    rows.setdefault(name, []).append((float(o), float(z)))
print(f"{'pair':26s} {'n':>2s} {'ours s/step':>11s} {'zoo s/step':>10s} {'zoo/ours median':>15s} {'range':>12s}")
for name, v in rows.items():
    r = [z / o for o, z in v]
    print(f"{name:26s} {len(v):2d} {statistics.median(o for o, _ in v):11.4f} {statistics.median(z for _, z in v):10.4f}"
          f" {statistics.median(r):15.2f} {min(r):5.2f}–{max(r):.2f}")
PY
