# Side-by-side check, not product code (docs/budget.md, "Side by side with plain PyTorch"): a textbook 2-layer
# pre-LN transformer in plain PyTorch (learned or rotary positions, 4x GELU MLP, tied head, AdamW with weight
# decay 0.1, 5% warmup then cosine) on MQAR generated the Zoology way (keys from the lower half of the vocabulary,
# values from the upper, queries at random later positions, zeros between), printing held-out accuracy every 250
# steps. It tells whether the board reference's floor is the regime's or recallbench's attention cell's.
#   /usr/bin/python3 tests/bench/plain_attention_mqar.py PAIRS LENGTH VOCAB WIDTH HEADS STEPS LR [rot]
#   (B=256 in the environment for batch 256; default 64)
import math
import os
import sys

import torch
import torch.nn as nn

torch.set_num_threads(1)
P, L, V, D, H = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
steps, lr, B, rot = int(sys.argv[6]), float(sys.argv[7]), int(os.environ.get("B", "64")), len(sys.argv) > 8 and sys.argv[8] == 'rot'
g = torch.Generator().manual_seed(0)
def batch(n):
    half = V // 2
    x = torch.zeros(n, L, dtype=torch.long); y = torch.full((n, L), -100)
    for b in range(n):
        keys = torch.randperm(half - 1, generator=g)[:P] + 1
        vals = torch.randint(half, V, (P,), generator=g)
        x[b, 0:2*P:2] = keys; x[b, 1:2*P:2] = vals
        pos = torch.randperm(L - 2*P, generator=g)[:P] + 2*P
        order = torch.randperm(P, generator=g)
        x[b, pos] = keys[order]; y[b, pos] = vals[order]
    return x, y
class Block(nn.Module):
    def __init__(s):
        super().__init__(); s.n1 = nn.LayerNorm(D); s.n2 = nn.LayerNorm(D)
        s.qkv = nn.Linear(D, 3*D); s.o = nn.Linear(D, D); s.f1 = nn.Linear(D, 4*D); s.f2 = nn.Linear(4*D, D)
    def forward(s, x):
        Bn, T, _ = x.shape
        q, k, v = s.qkv(s.n1(x)).view(Bn, T, 3, H, D//H).permute(2, 0, 3, 1, 4)
        if rot:
            half = (D//H)//2; f = 10000 ** (-torch.arange(half)/half); a = torch.arange(T)[:, None]*f[None]
            a = torch.cat([a, a], 1); c, sn = a.cos(), a.sin()
            r = lambda t: t*c + torch.cat([-t[..., half:], t[..., :half]], -1)*sn
            q, k = r(q), r(k)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(D//H)
        att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float('-inf')).softmax(-1)
        x = x + s.o((att @ v).transpose(1, 2).reshape(Bn, T, D))
        return x + s.f2(nn.functional.gelu(s.f1(s.n2(x))))
class M(nn.Module):
    def __init__(s):
        super().__init__(); s.e = nn.Embedding(V, D); s.p = nn.Embedding(L, D)
        nn.init.normal_(s.e.weight, 0, 0.02); nn.init.normal_(s.p.weight, 0, 0.02)
        s.b = nn.ModuleList([Block(), Block()]); s.n = nn.LayerNorm(D)
    def forward(s, x):
        h = s.e(x) + (0 if rot else s.p(torch.arange(x.shape[1]))[None])
        for b in s.b: h = b(h)
        return s.n(h) @ s.e.weight.t()
torch.manual_seed(0); m = M()
opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=0.1)
warm = int(0.05*steps)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: (t+1)/warm if t < warm else 0.5*(1+math.cos(math.pi*(t-warm)/(steps-warm))))
xe, ye = batch(256)
for t in range(steps):
    x, y = batch(B)
    loss = nn.functional.cross_entropy(m(x).view(-1, V), y.view(-1))
    opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    if (t+1) % 250 == 0:
        with torch.no_grad():
            pr = m(xe).argmax(-1); mask = ye != -100
            print(t+1, round(loss.item(), 3), round((pr[mask] == ye[mask]).float().mean().item(), 3), flush=True)
