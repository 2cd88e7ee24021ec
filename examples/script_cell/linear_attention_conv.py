#!/usr/bin/python3
"""A recallbench cell written in PyTorch and saved as TorchScript: linear attention with a width-4 short
causal convolution (+ SiLU) on q, k and v, one head, a per-head RMS norm on the read-out and an output
projection: the same function as the native `diag+conv` cell, written from scratch here.

    /usr/bin/python3 linear_attention_conv.py OUT.pt [--d-model 32] [--key-dim 28] [--acausal] [--name NAME]
    recallbench check-cell script:OUT.pt --d-model 32
    recallbench run --battery smoke --cell script:OUT.pt --out results/mine

The contract (README, "Score your own cell"): forward(x[B, L, D]) -> [B, L, D], causal; an int attribute
d_model; exported state_size(length) -> int; optionally exported init_state(batch) and step(x_t, state),
which let recallbench audit the state size and the step path; optionally reset_parameters().
`--acausal` writes a deliberately broken cell (every position sees the whole sequence) that check-cell and
run must refuse.
"""
import argparse
import json
import os
import math
from typing import List, Tuple

import torch
from torch import nn, Tensor


class LinearAttentionConv(nn.Module):
    d_model: int
    key_dim: int
    width: int
    causal: bool

    def __init__(self, d_model: int, key_dim: int, width: int = 4, causal: bool = True):
        super().__init__()
        self.d_model, self.key_dim, self.width, self.causal = d_model, key_dim, width, causal
        k = key_dim
        self.q_proj = nn.Linear(d_model, k, bias=False)
        self.k_proj = nn.Linear(d_model, k, bias=False)
        self.v_proj = nn.Linear(d_model, k, bias=False)
        self.o_proj = nn.Linear(k, d_model, bias=False)
        # Depthwise convolution over time, causal by left padding: one width-W filter per channel.
        bound = 1.0 / math.sqrt(width)
        self.conv_weight = nn.Parameter(torch.empty(3 * k, width).uniform_(-bound, bound))
        self.conv_bias = nn.Parameter(torch.empty(3 * k).uniform_(-bound, bound))
        self.norm_weight = nn.Parameter(torch.ones(k))

    def _mix(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        length = x.size(1)
        qkv = torch.cat([self.q_proj(x), self.k_proj(x), self.v_proj(x)], -1).transpose(1, 2)  # B, 3K, L
        qkv = nn.functional.pad(qkv, (self.width - 1, 0))
        qkv = nn.functional.conv1d(qkv, self.conv_weight.unsqueeze(1), self.conv_bias, groups=3 * self.key_dim)
        qkv = nn.functional.silu(qkv)[:, :, :length].transpose(1, 2)
        q, k, v = qkv.split(self.key_dim, -1)
        return q / math.sqrt(self.key_dim), k, v

    def _read_out(self, o: Tensor) -> Tensor:
        o = o * torch.rsqrt(o.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm_weight
        return self.o_proj(o)

    def forward(self, x: Tensor) -> Tensor:
        q, k, v = self._mix(x)
        scores = q @ k.transpose(1, 2)  # B, L, L: o_t = sum over s <= t of (q_t . k_s) v_s
        if self.causal:
            scores = scores * torch.ones_like(scores).tril()
        return self._read_out(scores @ v)

    @torch.jit.export
    def state_size(self, length: int) -> int:
        return self.key_dim * self.key_dim + 3 * self.key_dim * (self.width - 1)  # S and the conv buffer

    @torch.jit.export
    def init_state(self, batch: int) -> List[Tensor]:
        return [torch.zeros(batch, self.key_dim, self.key_dim), torch.zeros(batch, 3 * self.key_dim, self.width - 1)]

    @torch.jit.export
    def step(self, x_t: Tensor, state: List[Tensor]) -> Tuple[Tensor, List[Tensor]]:
        s, buffer = state[0], state[1]
        qkv = torch.cat([self.q_proj(x_t), self.k_proj(x_t), self.v_proj(x_t)], -1)  # B, 3K
        window = torch.cat([buffer, qkv.unsqueeze(-1)], -1)  # B, 3K, W
        mixed = nn.functional.silu((window * self.conv_weight).sum(-1) + self.conv_bias)
        q, k, v = mixed.split(self.key_dim, -1)
        q = q / math.sqrt(self.key_dim)
        s = s + k.unsqueeze(2) * v.unsqueeze(1)  # S += k v^T
        o = (q.unsqueeze(1) @ s).squeeze(1)
        return self._read_out(o), [s, window[:, :, 1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--key-dim", type=int, default=28,
                    help="key (and value) dimension K; the state is K*K + 9K numbers per layer: 28 gives 1036, "
                         "within the leaderboard's budget of 1024 (+10%%) like the native diag+conv (default 28)")
    ap.add_argument("--acausal", action="store_true", help="write a broken, non-causal cell (for tests)")
    ap.add_argument("--name", help="also write the sidecar OUT_STEM.cell.json: the cell is then script:NAME on the "
                                   "board, with this module's description and hyperparameters")
    a = ap.parse_args()
    torch.manual_seed(0)
    cell = LinearAttentionConv(a.d_model, a.key_dim, causal=not a.acausal)
    torch.jit.script(cell).save(a.out)
    print(f"wrote {a.out}: linear attention + short conv, d_model {a.d_model}, key_dim {a.key_dim}"
          + (" (NOT causal)" if a.acausal else ""))
    if a.name:
        sidecar = os.path.splitext(a.out)[0] + ".cell.json"
        with open(sidecar, "w") as f:
            json.dump({"name": a.name,
                       "description": "linear attention with a width-4 short causal conv on q, k, v; one head",
                       "options": {"d_model": cell.d_model, "key_dim": cell.key_dim, "width": cell.width,
                                   "causal": cell.causal}}, f, indent=1)
        print(f"wrote {sidecar}: the cell is script:{a.name}")


if __name__ == "__main__":
    main()
