#!/bin/bash
# Issue 45 item 4's pilots (docs/claims.md, "Pilots for settings that meet the premises"): (1) a state-matched
# Mamba-2 that learns MQAR: width 64 at state 1024 (at width 32 it learns only 2 pairs at any rate of the board's
# grid); (2) S_5 per depth at widths where the armed cell might learn it. The claims presets' recipe (1500 steps
# of batch 32, threshold 0.9). About 5 minutes on 2 cores.
#   tests/bench/claims_pilots_45.sh OUT      (RECALLBENCH: the binary, default build/recallbench)
set -u
B=$(realpath "${RECALLBENCH:-build/recallbench}")
mkdir -p "${1:?usage: $0 OUT}" && cd "$1" || exit 1
common="--task mqar --task-opt vocab=64 --length 64 --budget 1024 --steps 1500 --batch 32 --eval-every 50 --eval-examples 256 --threshold 0.9 --seeds 0-1 --jobs 2"
for lr in 1e-3 3e-3; do
  echo "=== mamba2 w64 p8 lr $lr $(date -u +%T)"; $B run --cell mamba2 --d-model 64 --pairs 8 --lr $lr $common --out m2-w64-p8-lr$lr 2>&1 | tail -3
done
echo "=== mamba2 w64 p4 $(date -u +%T)"; $B run --cell mamba2 --d-model 64 --pairs 4 --lr 3e-3 $common --out m2-w64-p4 2>&1 | tail -3
echo "=== rank1 w64 p8 $(date -u +%T)"; $B run --cell rank1 --d-model 64 --pairs 8 --lr 3e-3 $common --out r1-w64-p8 2>&1 | tail -3
for w in 64 128; do
  echo "=== s5 rank1+conv w$w $(date -u +%T)"
  $B run --cell rank1+conv --task s5 --length 8 --d-model $w --budget $(( w == 64 ? 1024 : 4096 )) --steps 2000 --batch 64 --eval-every 100 --eval-examples 256 --threshold 0.9 --seeds 0-1 --jobs 2 --out s5-w$w 2>&1 | tail -3
done
echo "=== pilots end $(date -u +%T)"
