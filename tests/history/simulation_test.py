#!/usr/bin/env python3
"""Simulated histories through `recallbench history import` and `history changes --json`
(tests/history/simulate.py makes them): each planted change is found where it is, and noise-only histories
report a change at most at the stated rate (alpha = 0.05 over the whole history).

  simulation_test.py RECALLBENCH [--noise N] [--replicates R] [--out FILE.md]

Deterministic: replicate r uses generator seed r, so a run gives the same table every time.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def history(rb, scenario, seed, *extra):
    return simulated_changes(rb, "simulate.py", scenario, "--seed", str(seed), *extra)


def simulated_changes(rb, script, *args):
    """Runs a simulator of this folder, imports its history and returns (commits, history changes --json)."""
    text = subprocess.run([sys.executable, os.path.join(HERE, script), *args],
                          check=True, capture_output=True, text=True).stdout
    commits = [json.loads(l)["commit"] for l in text.splitlines() if '"subject"' in l]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "h.sqlite")
        subprocess.run([rb, "history", "import", "-", "--db", db], input=text, check=True, capture_output=True, text=True)
        out = subprocess.run([rb, "history", "changes", "--json", "--db", db], check=True, capture_output=True, text=True)
    return commits, json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rb")
    ap.add_argument("--noise", type=int, default=40)
    ap.add_argument("--replicates", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    rows, failures = [], []

    # scenario, extra args, predicate(commits, changes) -> found at the right place, minimum share required
    at17 = lambda metric, config: (lambda cs, ch: any(
        x["config"] == config and x["metric"] == metric and x["commit"] == cs[16] for x in ch))
    at = lambda i, metric, config: (lambda cs, ch: any(
        x["config"] == config and x["metric"] == metric and x["commit"] == cs[i] for x in ch))
    anywhere = lambda metric, config: (lambda cs, ch: any(x["config"] == config and x["metric"] == metric for x in ch))
    in_range = lambda cs, ch: any(x["config"] == "cfg0" and x["metric"] == "lock-in" and x.get("first_commit") == cs[14]
                                  and x.get("last_commit") == cs[16] for x in ch)
    scenarios = [
        ("lock-in 0.9 -> 0.4 at commit 17 of 30", "lockin", [], at17("lock-in", "cfg0"), 0.9),
        ("time to lock-in x1.6 at commit 17, all lock in", "slowdown", [], at17("time", "cfg0"), 0.9),
        ("time to lock-in x1.03 per commit (drift)", "drift", [], anywhere("time", "cfg0"), 0.9),
        ("kernel x1.3 slower at commit 17", "speed", [], at17("speed", "kernel/a"), 0.9),
        ("lock-in drop, commits 15-16 without runs (range)", "lockin", ["--gaps"], in_range, 0.9),
        ("same seeds rerun, 7 commits: time x1.6 at commit 4", "slowdown",
         ["--same-seeds", "--commits", "7", "--at", "4", "--seeds", "10"], at(3, "time", "cfg0"), 0.9),
    ]
    for name, scenario, extra, found, need in scenarios:
        hits, wrong = 0, 0
        for r in range(1, a.replicates + 1):
            commits, changes = history(a.rb, scenario, r, *extra)
            hits += 1 if found(commits, changes) else 0
            unchanged = {"cfg1", "cfg2"} | ({"kernel/a"} if scenario != "speed" else set())
            wrong += 1 if any(x["config"] in unchanged for x in changes) else 0
        rows.append("| %s | %d/%d | %d |" % (name, hits, a.replicates, wrong))
        if hits < need * a.replicates:
            failures.append("%s: found in %d of %d histories (need %.0f%%)" % (name, hits, a.replicates, 100 * need))
    alarms = 0
    for r in range(1, a.noise + 1):
        _, changes = history(a.rb, "noise", 1000 + r)
        alarms += 1 if changes else 0
    same_alarms = 0
    for r in range(1, a.noise + 1):
        _, changes = history(a.rb, "noise", 5000 + r, "--same-seeds", "--commits", "7")
        same_alarms += 1 if changes else 0
    rows.append("| noise only, same seeds rerun at 7 commits: histories with any change | %d/%d = %.1f%% | - |"
                % (same_alarms, a.noise, 100 * same_alarms / a.noise))
    alarms_all = alarms + same_alarms
    rate = alarms / a.noise
    rows.append("| noise only: histories with any change (stated rate <= 5%%) | %d/%d = %.1f%% | - |" % (alarms, a.noise, 100 * rate))
    # Deterministic seeds: the full run (200) must be at or below the stated 5%; the short default run allows
    # its binomial noise (2 sd above 5%).
    limit = 0.05 if a.noise >= 200 else 0.05 + 2 * (0.05 * 0.95 / a.noise) ** 0.5
    if rate > limit:
        failures.append("noise-only histories: %.1f%% reported a change (limit %.1f%%)" % (100 * rate, 100 * limit))
    if same_alarms / a.noise > limit:
        failures.append("same-seed noise-only histories: %.1f%% reported a change (limit %.1f%%)"
                        % (100 * same_alarms / a.noise, 100 * limit))
    table = ("| scenario (30 commits x 10 seeds, 3 configs, 1 benchmark) | found at the planted commit | histories "
             "with a change in an unchanged series |\n| --- | --- | --- |\n" + "\n".join(rows) + "\n")
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
