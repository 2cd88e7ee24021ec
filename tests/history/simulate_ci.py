#!/usr/bin/env python3
"""Writes a CI-like simulated history as JSON Lines (`recallbench history import`, docs/tracking.md).

  simulate_ci.py [--commits 12] [--configs 4] [--seeds 10] [--seed 1] [--neutral 2] [--keep 0 | 0.5-0.9]
                 [--plant none|lockin|time|creep] [--at 7] [--hit cfg0|all]

Every commit reruns seeds 0..N-1 of every config, as CI does. Runs are deterministic per seed: a commit that
does not touch the numerics repeats every seed's outcome bit for bit. `--neutral K` commits (drawn at random,
never the first) change the numerics neutrally: each seed keeps its outcome with probability `--keep` (a
number, or a range lo-hi from which each neutral commit draws its own), else redraws it from the same
distribution (as a reordered sum does through the lock-in lottery).
A seed's draw: u ~ U(0,1) (locks in when u < p_lock and its step is within the 4000-step budget), g ~ N(0, 0.25)
(step = 1000 exp(g) x factor), r ~ N(0, 1) (recall 0.97 + 0.01 r when locked in, else 0.3 + 0.05 r).
Config c has p_lock 0.9, 0.7, 0.5, 0.3 (cycling). Planted changes hit cfg0 (or every config, --hit all) from
commit --at on and move every seed the same way (its draw kept, the distribution shifted):
  lockin  p_lock - 0.3 (lock-in -30 points)
  time    step x 1.4 (--factor)
  creep   step x 1.15 (--factor) at each of commits at, at+1, at+2, at+3 (x 1.75 in all)
The planted commit is also a numerics change: no neutral commit is drawn there.
"""
import argparse
import datetime
import hashlib
import json
import math
import random
import sys

BUDGET = 4000


def draw(rng):
    return (rng.random(), rng.gauss(0, 0.25), rng.gauss(0, 1))


def outcome(d, p_lock, factor):
    u, g, r = d
    step = int(1000 * math.exp(g) * factor)
    locked = u < p_lock and step <= BUDGET
    recall = min(1.0, 0.97 + 0.01 * r) if locked else max(0.0, 0.3 + 0.05 * r)
    return locked, step, recall


def keep_probability(spec, rng):
    if "-" in spec:
        lo, hi = (float(x) for x in spec.split("-"))
        return rng.uniform(lo, hi)
    return float(spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=12)
    ap.add_argument("--configs", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--neutral", type=int, default=2)
    ap.add_argument("--keep", default="0")
    ap.add_argument("--plant", choices=["none", "lockin", "time", "creep"], default="none")
    ap.add_argument("--at", type=int, default=7)
    ap.add_argument("--hit", choices=["cfg0", "all"], default="cfg0")
    ap.add_argument("--factor", type=float, help="the time plant's factor (default 1.4; creep: 1.15 per step)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    planted = set()
    if a.plant in ("lockin", "time"):
        planted = {a.at}
    elif a.plant == "creep":
        planted = {a.at, a.at + 1, a.at + 2, a.at + 3}
    candidates = [i for i in range(2, a.commits + 1) if i not in planted]
    neutral = set(rng.sample(candidates, min(a.neutral, len(candidates))))
    state = {(c, s): draw(rng) for c in range(a.configs) for s in range(a.seeds)}
    out = sys.stdout
    out.write(json.dumps({"recallbench_history": 1, "battery": "simulated"}) + "\n")
    parent = None
    p_shift, factor = 0.0, 1.0
    for i in range(1, a.commits + 1):
        commit = hashlib.sha1(("ci %s %d %d" % (a.plant, a.seed, i)).encode()).hexdigest()
        date = (datetime.datetime(2026, 1, 1, 12) + datetime.timedelta(hours=6 * (i - 1))).strftime("%Y-%m-%dT%H:%M:%SZ")
        head = {"commit": commit, "parent": parent, "date": date}
        kind = "neutral" if i in neutral else "planted" if i in planted else "repeat"
        out.write(json.dumps(dict(head, subject="commit %d (%s)" % (i, kind), branch="main")) + "\n")
        if i in neutral:
            keep = keep_probability(a.keep, rng)
            for key in state:
                if rng.random() >= keep:
                    state[key] = draw(rng)
        if i in planted:
            if a.plant == "lockin":
                p_shift = -0.3
            elif a.plant == "time":
                factor = a.factor or 1.4
            else:
                factor *= a.factor or 1.15
        for c in range(a.configs):
            p_lock = [0.9, 0.7, 0.5, 0.3][c % 4]
            shift, f = (p_shift, factor) if c == 0 or a.hit == "all" else (0.0, 1.0)
            for s in range(a.seeds):
                locked, step, recall = outcome(state[(c, s)], p_lock + shift, f)
                out.write(json.dumps(dict(head, config="cfg%d" % c, seed=s, locked_in=locked,
                                          lock_in_step=step if locked else None, budget=BUDGET,
                                          recall=recall)) + "\n")
        parent = commit
    return 0


if __name__ == "__main__":
    sys.exit(main())
