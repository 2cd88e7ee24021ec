#!/usr/bin/env python3
"""Plants run documents in the trainer's format (suite/train/trainer.cpp::train_run) for gate tests.

  plant.py OUT CELL:K:N[:STEPS[:BUDGET[:STATE[:LOCK_STEP[:LR]]]]] ...

writes OUT/runs/<file>.json for N seeds of CELL on mqar (8 pairs, length 64, vocab 256), the first K
locked in (recall 0.99..1.0), the others not (0.2..0.4). STEPS (default 400) is the recipe's maximum
steps and BUDGET (default 0) the state budget: both change the config key, as in the real spec hash.
STATE (default BUDGET or 4096) is the measured state size and LOCK_STEP (default 300) the step at which
the locked-in seeds lock in: neither changes the key (a changed model, slower learning). LR (default 0.003) is
the recipe's learning rate (another recipe: another key).
"""
import json
import os
import random
import sys


MASK = (1 << 64) - 1


def mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def short_hash(value):
    """core/json_io.h short_hash: FNV-1a over nlohmann's compact sorted dump, mixed, 12 hex digits."""
    h = 1469598103934665603
    for c in json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode():
        h = ((h ^ c) * 1099511628211) & MASK
    return "%012x" % (mix64(h) & 0xFFFFFFFFFFFF)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    for arg in sys.argv[2:]:
        parts = arg.split(":")
        cell, k, n = parts[0], int(parts[1]), int(parts[2])
        steps = int(parts[3]) if len(parts) > 3 else 400
        budget = int(parts[4]) if len(parts) > 4 else 0
        state = int(parts[5]) if len(parts) > 5 else (budget or 4096)
        lock_step = int(parts[6]) if len(parts) > 6 else 300
        lr = float(parts[7]) if len(parts) > 7 else 0.003
        train = {"steps": steps, "batch": 64, "lr": lr, "weight_decay": 0.1, "warmup": 0.05, "eval_every": 50,
                 "eval_examples": 512, "threshold": 0.99, "curriculum": "none", "curriculum_options": {},
                 "impl": "auto"}
        model = {"d_model": 64, "layers": 2, "state_budget": budget, "mlp": True}
        task = {"name": "mqar", "options": {"length": 64, "pairs": 8, "vocab": 256}}
        canonical = json.dumps({"cell": cell, "model": model, "task": task, "train": train}, sort_keys=True)
        spec = {"cell": {"name": cell, "options": {}}, "model": model, "task": task, "train": train}
        config_key = "mqar/%s/length:64/pairs:8/vocab:256/%s" % (cell, short_hash(spec))  # as the spec hash
        rng = random.Random(canonical)
        for seed in range(n):
            locked = seed < k
            acc = 0.99 + 0.01 * rng.random() if locked else 0.2 + 0.2 * rng.random()
            doc = {
                "schema_version": 1, "kind": "recallbench.run", "key": "%s/seed:%d" % (config_key, seed),
                "config_key": config_key,
                "spec": {"cell": {"name": cell, "options": {}}, "model": model, "task": task, "train": train,
                         "seed": seed},
                "context": {"git_commit": "planted", "date": "2026-11-29T00:00:00Z", "host": "test"},
                "result": {"status": "ok", "message": "", "final_accuracy": acc, "best_accuracy": acc,
                           "final_loss": 0.1, "locked_in": locked, "lock_in_step": lock_step if locked else None,
                           "steps": lock_step if locked else steps, "wall_seconds": 1.0, "steps_per_second": 300.0,
                           "state_size": state, "parameters": 100000, "capacity_bits": 56.0},
                "curve": [{"step": 50, "loss": 2.0, "accuracy": acc / 3, "lr": 0.003, "stage": 0},
                          {"step": 300, "loss": 0.1, "accuracy": acc, "lr": 0.003, "stage": 0}],
            }
            name = doc["key"].replace("/", "__").replace(":", "-") + ".json"
            with open(os.path.join(out, "runs", name), "w") as f:
                json.dump(doc, f)


if __name__ == "__main__":
    main()
