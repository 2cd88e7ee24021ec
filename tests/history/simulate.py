#!/usr/bin/env python3
"""Writes a simulated history as JSON Lines (the `recallbench history import` form, docs/tracking.md).

  simulate.py SCENARIO [--commits 30] [--seeds 10] [--configs 3] [--seed 1] [--at 17] [--gaps]

Scenarios (the change is in config "cfg0"; the others never change):
  noise      nothing changes
  lockin     lock-in probability 0.9 -> 0.4 from commit --at (1-based) on
  slowdown   time to lock-in x1.6 from commit --at on, every seed still locks in
  drift      time to lock-in x1.03 per commit
  speed      benchmark "kernel/a" x1.3 slower from commit --at on
Per seed: lock-in step ~ 1000 * exp(N(0, 0.25)) * factor, censored at the 4000-step budget; recall ~0.97 when
locked in, ~0.3 when not. A benchmark "kernel/a" per commit: 0.5 * exp(N(0, 0.03)). --gaps drops every
cfg0 run of commits 15 and 16 (the change is then known only to lie in a range). --same-seeds: every commit
reruns seeds 0..N-1, each keeping its own draw up to a x exp(N(0, 0.03)) jitter of its step.
"""
import argparse
import datetime
import hashlib
import json
import math
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["noise", "lockin", "slowdown", "drift", "speed"])
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--configs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--at", type=int, default=17)
    ap.add_argument("--gaps", action="store_true")
    ap.add_argument("--same-seeds", action="store_true",
                    help="every commit reruns seeds 0..N-1, each seed's outcome fixed but for a small per-commit "
                         "jitter (deterministic runs perturbed by neutral numeric changes)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # Per config and seed, the seed's own draw (used at every commit with --same-seeds).
    own_rng = random.Random(a.seed + 7777)  # its own generator: the fresh-seed histories stay as they were
    own = {(c, s): (own_rng.gauss(0, 0.25), own_rng.random(), own_rng.gauss(0, 0.01))
           for c in range(a.configs) for s in range(a.seeds)}
    out = sys.stdout
    out.write(json.dumps({"recallbench_history": 1, "battery": "simulated"}) + "\n")
    parent = None
    budget = 4000
    for i in range(1, a.commits + 1):
        commit = hashlib.sha1(("%s %d %d" % (a.scenario, a.seed, i)).encode()).hexdigest()
        date = (datetime.datetime(2026, 1, 1, 12) + datetime.timedelta(hours=6 * (i - 1))).strftime("%Y-%m-%dT%H:%M:%SZ")
        head = {"commit": commit, "parent": parent, "date": date}
        out.write(json.dumps(dict(head, subject="commit %d" % i, branch="main")) + "\n")
        for c in range(a.configs):
            config = "cfg%d" % c
            if a.gaps and c == 0 and i in (a.at - 2, a.at - 1):
                continue
            p_lock, factor = 0.9, 1.0
            if c == 0:
                if a.scenario == "lockin" and i >= a.at:
                    p_lock = 0.4
                if a.scenario == "slowdown" and i >= a.at:
                    p_lock, factor = 1.0, 1.6
                if a.scenario == "slowdown":
                    p_lock = 1.0
                if a.scenario == "drift":
                    factor = 1.03 ** (i - 1)
            for s in range(a.seeds):
                if a.same_seeds:
                    seed = s
                    g, u, r = own[(c, s)]
                    step = int(1000 * math.exp(g + rng.gauss(0, 0.03)) * factor)
                    locked = u < p_lock and step <= budget
                    recall = min(1.0, 0.97 + r) if locked else 0.3 + r
                else:
                    seed = (i - 1) * a.seeds + s  # fresh seeds every commit
                    step = int(1000 * math.exp(rng.gauss(0, 0.25)) * factor)
                    locked = rng.random() < p_lock and step <= budget
                    recall = min(1.0, 0.97 + rng.gauss(0, 0.01)) if locked else 0.3 + rng.gauss(0, 0.05)
                out.write(json.dumps(dict(head, config=config, seed=seed, locked_in=locked,
                                          lock_in_step=step if locked else None, budget=budget,
                                          recall=round(recall, 6))) + "\n")
        value = 0.5 * math.exp(rng.gauss(0, 0.03)) * (1.3 if a.scenario == "speed" and i >= a.at else 1.0)
        out.write(json.dumps(dict(head, benchmark="kernel/a", value=value)) + "\n")
        parent = commit


if __name__ == "__main__":
    main()
