#!/usr/bin/env python3
"""A leaderboard row's cost from its results (issue 44): per results directory of `run --battery B --cell C`
(a battery with a tuning stage), the runs and core-minutes of the tuning stage (DIR/tuning/runs) and of the
scoring runs (DIR/runs), the chosen rate, and the commits that trained them. A run's core time is its
`wall_seconds` (one LibTorch thread per worker), so the figure includes any contention the machine had.

  tests/bench/row_cost.py DIR...
"""
import glob
import json
import os
import sys


def stage(directory):
    seconds, runs, commits = 0.0, 0, set()
    for path in glob.glob(os.path.join(directory, "runs", "*.json")):
        doc = json.load(open(path))
        seconds += doc["result"]["wall_seconds"]
        runs += 1
        commits.add(doc["context"]["git_commit"][:7])
    return seconds, runs, commits


if len(sys.argv) < 2:
    sys.exit(__doc__)
print("| results | chosen lr | tuning runs | tuning core-min | scoring runs | scoring core-min | core-hours | commits |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for d in sys.argv[1:]:
    ts, tn, tc = stage(os.path.join(d, "tuning"))
    ss, sn, sc = stage(d)
    selection = os.path.join(d, "tuning", "selection.json")
    lr = ", ".join("%g" % c["lr"] for c in json.load(open(selection))["cells"]) if os.path.exists(selection) else "–"
    print("| %s | %s | %d | %.1f | %d | %.1f | %.2f | %s |" % (os.path.basename(os.path.normpath(d)), lr, tn, ts / 60, sn,
                                                           ss / 60, (ts + ss) / 3600, ", ".join(sorted(tc | sc))))
