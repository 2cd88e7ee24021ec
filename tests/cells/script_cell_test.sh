#!/usr/bin/env bash
# TorchScript cells end to end: the example cell passes check-cell and trains; a non-causal one fails
# check-cell (exit 1, "causal") and run refuses it (exit 2, nothing stored); each bad input (missing file,
# not TorchScript, no state_size, wrong d_model, NaN outputs) is exit 2 with a message; the run key follows
# the file's content, not its path; the same seed gives the same run.
#   script_cell_test.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
src=$(cd "$2" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"
py=/usr/bin/python3  # Debian's python3-torch (ci/bootstrap installs it), the same 1.13 as libtorch-dev
"$py" -c "import torch" 2>/dev/null || { echo "FAIL: $py cannot import torch (ci/bootstrap installs python3-torch)"; exit 1; }
example="$src/examples/script_cell/linear_attention_conv.py"
(cd "$tmp" && "$py" "$example" cell.pt && "$py" "$example" acausal.pt --acausal && "$py" "$example" wide.pt --d-model 48) \
  >/dev/null || { echo "FAIL: the example script"; exit 1; }
# torch.jit.script reads the classes' source, so the writer is a file, not stdin.
cat >"$tmp/bad_modules.py" <<'PY'
import sys, torch
from torch import nn, Tensor
out = sys.argv[1]
class NoStateSize(nn.Module):
    def __init__(self):
        super().__init__(); self.p = nn.Linear(32, 32)
    def forward(self, x: Tensor) -> Tensor: return self.p(x)
class Nan(NoStateSize):
    @torch.jit.export
    def state_size(self, length: int) -> int: return 1
    def forward(self, x: Tensor) -> Tensor: return self.p(x) * float("nan")
class Shape(NoStateSize):
    @torch.jit.export
    def state_size(self, length: int) -> int: return 1
    def forward(self, x: Tensor) -> Tensor: return self.p(x)[:, :1]
torch.jit.script(NoStateSize()).save(out + "/nostate.pt")
torch.jit.script(Nan()).save(out + "/nan.pt")
torch.jit.script(Shape()).save(out + "/shape.pt")
PY
"$py" "$tmp/bad_modules.py" "$tmp" || { echo "FAIL: writing the bad modules"; exit 1; }

expect 0 "causal       pass" -- check-cell "script:$tmp/cell.pt"
expect 0 "state        pass  state_size() 1036; carried 1036" -- check-cell "script:$tmp/cell.pt"
expect 1 "causal       FAIL" -- check-cell "script:$tmp/acausal.pt"
# One width: check-cell and an ad hoc run both use the module's own d_model when none is given, check-cell
# --battery the battery's sizes; the summary line carries every caveat of a pass.
expect 0 "d_model 32 from the module's d_model, budget none" -- check-cell "script:$tmp/cell.pt"
expect 0 "passes every check, with caveats: no state budget checked" -- check-cell "script:$tmp/cell.pt"
expect 0 "d_model 32 from battery leaderboard, budget 1024, length 64" -- check-cell "script:$tmp/cell.pt" --battery leaderboard
expect 0 "d_model 64 from run's default" -- check-cell diag --length 8
expect 1 "failed: causal" -- check-cell "script:$tmp/acausal.pt"
tiny=(--task mqar --pairs 2 --length 16 --vocab 32 --d-model 32 --steps 60 --batch 16 --eval-every 20 --eval-examples 64 --jobs 1)
expect 2 "not causal" -- run --cell "script:$tmp/acausal.pt" "${tiny[@]}" --out "$tmp/refused"
[ -z "$(ls "$tmp/refused/runs" 2>/dev/null)" ] || { echo "FAIL: a refused cell left runs behind"; fail=1; }
expect 2 "built for d_model 48, the run's d_model is 32" -- run --cell "script:$tmp/wide.pt" "${tiny[@]}" --out "$tmp/x"
expect 0 "1 trained" -- run --cell "script:$tmp/wide.pt" --task mqar --pairs 2 --length 16 --vocab 32 --steps 20 \
  --batch 8 --eval-every 20 --eval-examples 16 --jobs 1 --out "$tmp/own-width"   # no --d-model: the module's 48
expect 2 "not found" -- run --cell "script:$tmp/missing.pt" "${tiny[@]}" --out "$tmp/x"
printf 'not a zip' >"$tmp/garbage.pt"
expect 2 "not a TorchScript module" -- check-cell "script:$tmp/garbage.pt"
expect 2 "no exported state_size" -- check-cell "script:$tmp/nostate.pt"
expect 2 "NaN or infinite" -- run --cell "script:$tmp/nan.pt" "${tiny[@]}" --out "$tmp/x"
expect 1 "finite       FAIL" -- check-cell "script:$tmp/nan.pt" --d-model 32
expect 1 "shape        FAIL" -- check-cell "script:$tmp/shape.pt" --d-model 32

# Trains; the key carries the content: a copy elsewhere gives the same key, an edited cell a new one; the
# same seed gives the same run.
expect 0 "1 trained" -- run --cell "script:$tmp/cell.pt" "${tiny[@]}" --out "$tmp/a"
mkdir -p "$tmp/moved" && cp "$tmp/cell.pt" "$tmp/moved/cell.pt"
expect 0 "1 trained" -- run --cell "script:$tmp/moved/cell.pt" "${tiny[@]}" --out "$tmp/b"
ka=$(ls "$tmp/a/runs"); kb=$(ls "$tmp/b/runs")
[ "$ka" = "$kb" ] || { echo "FAIL: moving the file changed the run key ($ka vs $kb)"; fail=1; }
same=$("$py" -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(a['curve']==b['curve'] and a['result']['final_accuracy']==b['result']['final_accuracy'])" \
  "$tmp/a/runs/$ka" "$tmp/b/runs/$kb")
[ "$same" = True ] || { echo "FAIL: the same seed gave a different run"; fail=1; }
# A TorchScript cell's run file runs again by --spec (its recorded file, the same key: already done).
expect 0 "0 trained, 1 already done" -- run --spec "$tmp/a/runs/$ka" --jobs 1 --out "$tmp/a"
(cd "$tmp/moved" && "$py" "$example" cell.pt --key-dim 16 >/dev/null)
expect 0 "1 trained" -- run --cell "script:$tmp/moved/cell.pt" "${tiny[@]}" --out "$tmp/c"
kc=$(ls "$tmp/c/runs")
[ "$ka" != "$kc" ] || { echo "FAIL: an edited cell kept the run key"; fail=1; }
echo "ok: run keys: $ka (moved: same), edited: $kc"
exit $fail
