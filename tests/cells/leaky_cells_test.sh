#!/usr/bin/env bash
# Cells that read the future in ways a single split point misses are refused by check-cell (exit 1,
# "causal FAIL") and by run (exit 2, "not causal", nothing trained or stored): one that reads the next
# token (a roll), block-bidirectional cells at block sizes 2, 4, 8 and 16 (without a step path, and with a
# causal step path that hides the leak from the step check), and one that leaks only at lengths above 32
# (check-cell at its default length passes it; run at length 64 refuses it). The example cell still passes.
# And a cell over a battery's state budget is stopped before any training (run --battery B --cell C).
#   leaky_cells_test.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
src=$(cd "$2" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"
py=/usr/bin/python3
cat >"$tmp/leaky.py" <<'PY'
import sys, torch
from typing import List, Tuple
from torch import nn, Tensor
out = sys.argv[1]
D = 32
class Roll(nn.Module):
    def __init__(self):
        super().__init__(); self.p = nn.Linear(D, D); self.d_model = D
    @torch.jit.export
    def state_size(self, length: int) -> int: return self.d_model
    def forward(self, x: Tensor) -> Tensor: return self.p(torch.roll(x, -1, 1))
class Block(nn.Module):
    """Causal running mean, except that inside aligned blocks of `b` tokens every position sees the whole block."""
    def __init__(self, b: int, min_length: int = 0):
        super().__init__(); self.p = nn.Linear(D, D); self.b = b; self.min_length = min_length; self.d_model = D
    @torch.jit.export
    def state_size(self, length: int) -> int: return self.d_model
    def forward(self, x: Tensor) -> Tensor:
        B, T, _ = x.shape
        if T <= self.min_length:
            return self.p(torch.cumsum(x, 1))
        pad = (self.b - T % self.b) % self.b
        xp = torch.cat([x, torch.zeros(B, pad, self.d_model)], 1)
        blocks = xp.reshape(B, -1, self.b, self.d_model).sum(2, keepdim=True).expand(-1, -1, self.b, -1).reshape(B, -1, self.d_model)
        return self.p(blocks[:, :T])
class BlockWithStep(Block):
    @torch.jit.export
    def init_state(self, batch: int) -> List[Tensor]: return [torch.zeros(batch, self.d_model)]
    @torch.jit.export
    def step(self, x_t: Tensor, state: List[Tensor]) -> Tuple[Tensor, List[Tensor]]:
        s = state[0] + x_t
        return self.p(s), [s]
torch.jit.script(Roll()).save(out + "/roll.pt")
for b in (2, 4, 8, 16):
    torch.jit.script(Block(b)).save(out + "/block%d.pt" % b)
    torch.jit.script(BlockWithStep(b)).save(out + "/block%d_step.pt" % b)
torch.jit.script(Block(4, min_length=32)).save(out + "/long_only.pt")
class Raiser(nn.Module):
    """A causal cell that raises its own error once it has been called `after` times."""
    calls: int
    def __init__(self, after: int):
        super().__init__(); self.p = nn.Linear(D, D); self.d_model = D; self.calls = 0; self.after = after
    @torch.jit.export
    def state_size(self, length: int) -> int: return self.d_model
    def forward(self, x: Tensor) -> Tensor:
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("the cell's own error")
        return self.p(torch.cumsum(x, 1))
torch.jit.script(Raiser(0)).save(out + "/raise_now.pt")
torch.jit.script(Raiser(80)).save(out + "/raise_later.pt")
PY
"$py" "$tmp/leaky.py" "$tmp" || { echo "FAIL: writing the leaky modules"; exit 1; }
(cd "$tmp" && "$py" "$src/examples/script_cell/linear_attention_conv.py" cell.pt) >/dev/null || { echo "FAIL: example"; exit 1; }
tiny=(--task mqar --pairs 2 --length 16 --vocab 32 --d-model 32 --steps 40 --batch 8 --eval-every 20 --eval-examples 32 --jobs 1)
for cell in roll block2 block4 block8 block16 block2_step block4_step block8_step block16_step; do
  expect 1 "causal       FAIL" -- check-cell "script:$tmp/$cell.pt" --length 24
  expect 2 "not causal" -- run --cell "script:$tmp/$cell.pt" "${tiny[@]}" --out "$tmp/refused-$cell"
  [ -z "$(ls "$tmp/refused-$cell/runs" 2>/dev/null)" ] || { echo "FAIL: $cell: a refused cell left runs behind"; fail=1; }
done
expect 0 "causal       pass" -- check-cell "script:$tmp/long_only.pt" --length 24
expect 1 "causal       FAIL" -- check-cell "script:$tmp/long_only.pt" --length 64
long=(--task mqar --pairs 2 --length 64 --vocab 32 --d-model 32 --steps 40 --batch 8 --eval-every 20 --eval-examples 32 --jobs 1)
expect 2 "not causal" -- run --cell "script:$tmp/long_only.pt" "${long[@]}" --out "$tmp/refused-long"
expect 0 "causal       pass" -- check-cell "script:$tmp/cell.pt"

# The budget before the compute: attention at length 64 carries 4096 numbers against the leaderboard's 1024.
expect 1 "budget       FAIL" -- check-cell attention --budget 1024 --d-model 32 --length 64
expect 0 "over budget: cell attention on mqar" -- plan --battery leaderboard --cell attention
expect 2 "not a matched-state entrant" -- run --battery leaderboard --cell attention --out "$tmp/over" --jobs 1
[ -z "$(ls "$tmp/over/runs" 2>/dev/null)" ] || { echo "FAIL: an over-budget entrant was trained"; fail=1; }
expect 0 "budget       pass" -- check-cell "script:$tmp/cell.pt" --budget 1312
# A cell whose forward raises is bad input naming the cell and its error: at once (the pre-flight, before
# any training) and in the middle of training (the worker exits 2, is not retried, and run exits 2).
expect 2 "raise_now.pt: forward raised .*the cell's own error" -- run --cell "script:$tmp/raise_now.pt" "${tiny[@]}" \
  --out "$tmp/raise-now"
later=(--task mqar --pairs 2 --length 16 --vocab 32 --d-model 32 --steps 100 --batch 8 --eval-every 20 --eval-examples 32
  --jobs 1)
expect 2 "raise_later.pt: forward raised .*the cell's own error" -- run --cell "script:$tmp/raise_later.pt" "${later[@]}" \
  --out "$tmp/raise-later"
expect 2 "failed on bad input" -- run --cell "script:$tmp/raise_later.pt" "${later[@]}" --out "$tmp/raise-later"
exit "$fail"
