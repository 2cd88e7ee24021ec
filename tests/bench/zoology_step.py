#!/usr/bin/env python3
"""Zoology's side of the side-by-side (issue 31; docs/speed.md §6), driven by tests/bench/zoology_step.sh.

Imports Zoology's own model code from a checkout given on the command line (nothing of Zoology is copied
here) and times its training step in CPU seconds (time.process_time: user + system of this process).

  zoology_step.py step  --zoology PATH --mixer attention|baseconv --work equal|default [--kernel-size K]
                        [--steps N] [--warmup W]
  zoology_step.py floor --mixer attention|baseconv --supervised 16|all [--reps R]

`step` builds zoology.model.LanguageModel (TransformerBlock: LayerNorm, sequence mixer, LayerNorm, MLP×4;
tied head) at d_model 64, 2 layers, vocab 256, batch 32, L 256, MQAR with 16 pairs (16 labelled positions
per sequence, the rest -100), then times N optimiser steps after W warm-up steps:
  --work default  what Zoology's Trainer does for loss_type "ce": logits at all B·L positions, then
                  nn.CrossEntropyLoss (ignore_index -100), backward, AdamW; the model's own defaults
                  (embed_dropout 0.1 on the first block), data generated before training (as Zoology does).
  --work equal    what recallbench's trainer does (suite/train/trainer.cpp): the backbone's hidden states,
                  the tied head and cross-entropy at the 16 labelled positions only, the training accuracy
                  at them, backward, gradient-norm clip at 1.0, AdamW; embed_dropout 0 (ours has none).
`floor` times only the GEMMs of one such step (forward and the two backward GEMMs of every matmul, same
shapes, torch.matmul on one thread): the part of a step that a faster framework cannot remove.

Shims (only where the Debian environment lacks what Zoology imports; none touches a timed operation):
  - einops is not packaged in Debian 12: when `import einops` fails, a stand-in `einops.rearrange` is
    installed that handles the reshape-only patterns Zoology's attention/MLP/BaseConv use
    ("... (three h d) -> ... three h d", "... h d -> ... (h d)") with Tensor.reshape, as einops itself
    does for such patterns; any other pattern raises.
  - zoology/utils.py imports wandb and pandas at module level, for its logging helpers only (the model
    code uses its import_from_str): when they are not installed, stub modules stand in for them
    (any attribute is a placeholder class, for annotations such as pd.DataFrame).
  - Debian's pydantic is 1.10; Zoology's BaseConv decorates __init__ with pydantic 2's validate_call (an
    argument check at construction). When it is missing it is replaced by the identity decorator.
  - Zoology's LanguageModel.forward at HEAD (d88d6f5, Jan 2026) returns the hidden states by default
    (return_embeddings=True), which its Trainer's "ce" path feeds to the loss as if they were logits
    (out of bounds for any vocabulary > d_model). `--work default` therefore calls
    model(inputs, return_embeddings=False), which is what forward() returned before that commit
    (8700f46: `return self.lm_head(hidden_states)`).
  - Zoology's TokenEmbeddings (HEAD) defaults to device="cuda", which LMBackbone does not override, so
    the model cannot be built on a CPU-only torch: the harness sets that default to "cpu".
Data: Zoology's multiquery_ar asserts vocab_size > input_seq_len, so at vocab 256, L 256 the harness draws
the batch itself with the same shape and the same number of labelled positions (16 per sequence); token
values do not change the work.
"""
import argparse
import json
import math
import os
import re
import resource
import sys
import time
import types


def install_shims():
    shims = []
    try:
        import einops  # noqa: F401
    except ImportError:
        mod = types.ModuleType("einops")

        def _groups(side):  # "... (three h d)" -> [["..."], ["three", "h", "d"]]
            return [t[1:-1].split() if t.startswith("(") else [t] for t in re.findall(r"\([^)]*\)|\S+", side)]

        def rearrange(t, pattern, **axes):
            lhs, rhs = (s.strip() for s in pattern.split("->"))
            L, R = _groups(lhs), _groups(rhs)
            flat = lambda gs: [n for g in gs for n in g]
            if flat(L) != flat(R):
                raise NotImplementedError(f"einops shim: only reshape patterns, got {pattern!r}")
            sizes, shape, d = dict(axes), list(t.shape), 0
            ell = t.dim() - (len(L) - (1 if ["..."] in L else 0))
            for g in L:
                if g == ["..."]:
                    sizes["..."] = shape[d:d + ell]
                    d += ell
                    continue
                known = math.prod(sizes[n] for n in g if n in sizes)
                unknown = [n for n in g if n not in sizes]
                if len(unknown) > 1:
                    raise NotImplementedError(f"einops shim: cannot solve {g} in {pattern!r}")
                if unknown:
                    sizes[unknown[0]] = shape[d] // known
                d += 1
            new = []
            for g in R:
                if g == ["..."]:
                    new += sizes["..."]
                else:
                    new.append(math.prod(sizes[n] for n in g))
            return t.reshape(new)

        mod.rearrange = rearrange
        sys.modules["einops"] = mod
        shims.append("einops.rearrange (reshape-only stand-in)")
    for name in ("wandb", "pandas"):  # zoology/utils.py imports them for its logging helpers only
        try:
            __import__(name)
        except ImportError:
            stub = types.ModuleType(name)
            stub.__getattr__ = lambda attr: type(attr, (), {})  # annotations such as pd.DataFrame
            sys.modules[name] = stub
            shims.append(f"{name} (stub module)")
    import pydantic
    if not hasattr(pydantic, "validate_call"):
        pydantic.validate_call = lambda f: f
        shims.append("pydantic.validate_call (identity)")
    return shims


B, L, D, LAYERS, VOCAB, PAIRS = 32, 256, 64, 2, 256, 16


def batch(seed):
    import torch
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randint(VOCAB, (B, L), generator=g)
    labels = torch.full((B, L), -100, dtype=torch.long)
    pos = torch.stack([torch.randperm(L - 2 * PAIRS, generator=g)[:PAIRS] + 2 * PAIRS for _ in range(B)])
    labels.scatter_(1, pos, torch.randint(VOCAB // 2, VOCAB, (B, PAIRS), generator=g))
    return inputs, labels


def blas_info():
    import ctypes
    for name in open("/proc/self/maps").read().split():
        if "libopenblas" in name:
            try:
                ob = ctypes.CDLL(name)
                ob.openblas_get_corename.restype = ctypes.c_char_p
                return {"openblas": name, "core": ob.openblas_get_corename().decode(),
                        "threads": ob.openblas_get_num_threads()}
            except OSError:
                pass
    return {"openblas": None}


def cmd_step(a):
    shims = install_shims()
    sys.path.insert(0, os.path.abspath(a.zoology))
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.set_num_threads(1)
    torch.manual_seed(0)
    from zoology.config import ModelConfig, ModuleConfig
    import zoology.model
    from zoology.model import LanguageModel
    # HEAD's TokenEmbeddings defaults to device="cuda" and LMBackbone passes none: on a CPU-only torch the
    # model cannot be built. Shim: the same default, "cpu" (where its parameters and position ids live).
    init = zoology.model.TokenEmbeddings.__init__
    names = init.__code__.co_varnames[1:init.__code__.co_argcount]
    defaults = list(init.__defaults__)
    i = names.index("device") - (len(names) - len(defaults))
    if defaults[i] != "cpu":
        defaults[i] = "cpu"
        init.__defaults__ = tuple(defaults)
        shims.append("zoology.model.TokenEmbeddings device default cuda -> cpu")

    equal = a.work == "equal"
    ks = [int(k) for k in str(a.kernel_size).split(",")]
    ks = ks[0] if len(ks) == 1 else ks
    if a.mixer == "attention":
        mixer = ModuleConfig(name="zoology.mixers.attention.MHA", kwargs={"num_heads": 1})
        positions = L   # learned positions, as ours gives attention (ModelConfig's default 64 < L)
    else:
        mixer = ModuleConfig(name="zoology.mixers.base_conv.BaseConv",
                             kwargs={"l_max": L, "kernel_size": ks})
        positions = 0   # ours gives baseconv none; Zoology's MQAR configs use 0
    extra = {"embed_dropout": 0.0} if equal else {}
    cfg = ModelConfig(d_model=D, n_layers=LAYERS, vocab_size=VOCAB, max_position_embeddings=positions,
                      sequence_mixer=mixer, **extra)  # state_mixer: Zoology's default MLP, hidden_mult 4
    model = LanguageModel(cfg)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    loss_fn = nn.CrossEntropyLoss()
    data = [batch(i) for i in range(a.warmup + a.steps)]  # generated before training, as Zoology does

    def step(inputs, targets):
        opt.zero_grad()
        if equal:
            h = model(inputs, return_embeddings=True)              # backbone output {B, L, D}
            mask = targets != -100
            t = targets[mask]
            logits = model.lm_head(h[mask])                        # tied head at the 16·B labelled positions
            loss = F.cross_entropy(logits, t)
            loss_value = loss.item()
            _ = (logits.argmax(-1) == t).double().mean().item()    # ours records the training accuracy
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        else:
            logits = model(inputs, return_embeddings=False)        # all B·L positions
            loss = loss_fn(logits.reshape(-1, logits.size(-1)), targets.flatten())
            aux = []
            model.apply(lambda m: aux.append(m.get_auxiliary_loss()) if hasattr(m, "get_auxiliary_loss") else None)
            loss.backward()
            loss_value = loss.item()
        opt.step()
        return loss_value

    for i in range(a.warmup):
        step(*data[i])
    r0, c0, w0 = resource.getrusage(resource.RUSAGE_SELF), time.process_time(), time.perf_counter()
    for i in range(a.warmup, a.warmup + a.steps):
        loss = step(*data[i])
    c1, w1, r1 = time.process_time(), time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "side": "zoology", "mixer": a.mixer, "work": a.work, "kernel_size": ks if a.mixer == "baseconv" else None,
        "steps": a.steps, "cpu_per_step": (c1 - c0) / a.steps, "wall_per_step": (w1 - w0) / a.steps,
        "sys_per_step": (r1.ru_stime - r0.ru_stime) / a.steps, "minflt_per_step": (r1.ru_minflt - r0.ru_minflt) / a.steps,
        "loss": loss, "parameters": sum(p.numel() for p in model.parameters()),
        "torch": torch.__version__, "torch_threads": torch.get_num_threads(), **blas_info(),
        "glibc_tunables": os.environ.get("GLIBC_TUNABLES", ""), "shims": shims}))


def gemm_shapes(mixer, supervised):
    """(batch, m, k, n) of every forward matmul of one step; backward does (m,n)x(n,k) and (k,m)x(m,n)."""
    BT, M = B * L, (B * PAIRS if supervised != "all" else B * L)
    per_layer = [(1, BT, D, D), (1, BT, D, 4 * D), (1, BT, 4 * D, D)]            # mixer in-proj/out, MLP
    if mixer == "attention":
        per_layer = [(1, BT, D, 3 * D), (B, L, D, L), (B, L, L, D), (1, BT, D, D)] + per_layer[1:]
    return per_layer * LAYERS + [(1, M, D, VOCAB)]                                  # tied head


def cmd_floor(a):
    import torch
    torch.set_num_threads(1)
    ops, flop = [], 0
    for (b, m, k, n) in gemm_shapes(a.mixer, a.supervised):
        shp = (lambda r, c: (b, r, c)) if b > 1 else (lambda r, c: (r, c))
        x, w, g = torch.randn(*shp(m, k)), torch.randn(*shp(k, n)), torch.randn(*shp(m, n))
        ops += [(x, w), (g, w.transpose(-1, -2)), (x.transpose(-1, -2), g)]   # y = xw; dx = g wᵀ; dw = xᵀ g
        flop += 3 * 2 * b * m * k * n
    for x, y in ops:
        torch.matmul(x, y)
    best = float("inf")
    for _ in range(a.reps):
        c0 = time.process_time()
        for x, y in ops:
            torch.matmul(x, y)
        best = min(best, time.process_time() - c0)
    print(json.dumps({"side": "floor", "mixer": a.mixer, "supervised": a.supervised, "gemms": len(ops),
                      "gflop": flop / 1e9, "cpu_s": best, "gflop_per_s": flop / best / 1e9, **blas_info()}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("step")
    s.add_argument("--zoology", required=True)
    s.add_argument("--mixer", choices=["attention", "baseconv"], required=True)
    s.add_argument("--work", choices=["equal", "default"], required=True)
    s.add_argument("--kernel-size", default="3",
                   help="BaseConv filter width: 3 (its default, nn.Conv1d), W, -1 (implicit long FFT filter), "
                        "or one per layer, e.g. 3,-1 (Zoology's paper BaseConv alternates them)")
    s.add_argument("--steps", type=int, default=15)
    s.add_argument("--warmup", type=int, default=3)
    f = sub.add_parser("floor")
    f.add_argument("--mixer", choices=["attention", "baseconv"], required=True)
    f.add_argument("--supervised", choices=["16", "all"], default="16")
    f.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    cmd_step(a) if a.cmd == "step" else cmd_floor(a)


if __name__ == "__main__":
    main()
