#!/usr/bin/env python3
"""Stored files that contradict themselves are refused (exit 2, "contradicts"), not believed: a baseline whose
summary disagrees with its seeds, a baseline seed marked locked in whose best accuracy never reached the
threshold, and a leaderboard row edited so every seed is locked in. The unedited files are read.

  contradiction_test.py RECALLBENCH SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

rb, src = sys.argv[1], sys.argv[2]
failures = []


def run(args, expect, contains=""):
    p = subprocess.run([rb, *args], capture_output=True, text=True)
    if p.returncode != expect or contains not in p.stdout + p.stderr:
        failures.append("%s: exit %d (expected %d, '%s')\n%s" % (" ".join(args), p.returncode, expect, contains, p.stderr))


with tempfile.TemporaryDirectory() as tmp:
    base = json.load(open(os.path.join(src, "ci/baselines/smoke.json")))
    run(["baseline", "show", os.path.join(src, "ci/baselines/smoke.json")], 0)

    edited = json.loads(json.dumps(base))
    edited["configs"][0]["summary"]["locked_in"] -= 1
    path = os.path.join(tmp, "summary.json")
    json.dump(edited, open(path, "w"))
    run(["baseline", "show", path], 2, "contradicts itself")

    edited = json.loads(json.dumps(base))
    unlocked = next((c, s) for c in edited["configs"] for s in c["seeds"] if not s["locked_in"])
    cfg, seed = unlocked
    seed["locked_in"] = True
    seed["lock_in_step"] = 100
    cfg["summary"]["locked_in"] += 1
    path = os.path.join(tmp, "seed.json")
    json.dump(edited, open(path, "w"))
    run(["baseline", "show", path], 2, "never reached the threshold")

    board = json.load(open(os.path.join(src, "ci/leaderboard/leaderboard.json")))
    run(["leaderboard", "--file", os.path.join(src, "ci/leaderboard/leaderboard.json")], 0)
    row = board["rows"][-1]
    for c in row["configs"]:
        for s in c["seeds"]:
            if not s["locked_in"]:
                s["locked_in"] = True
                s["lock_in_step"] = 50
        c["summary"]["locked_in"] = len(c["seeds"])
    path = os.path.join(tmp, "board.json")
    json.dump(board, open(path, "w"))
    run(["leaderboard", "--file", path], 2, "never reached the threshold")

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
