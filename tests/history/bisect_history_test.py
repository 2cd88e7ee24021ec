#!/usr/bin/env python3
"""`recallbench bisect` on a history that already holds every commit's runs: it reads each look from the
history instead of building and training, and names the first bad commit. A throwaway repository of 7
commits; the history (JSON Lines, `history import`) has seeds 0-39 of a tiny battery's configs at every
commit, and from commit 5 on every seed locks in twice as late (a halved learning rate, seen per seed). Also:
the runs of one probe missing from the history would make it build; a history of another battery is not
used (checked through bisect's plan of which looks it may read: --no-reuse and a foreign battery both need a
build, which fails fast here because the throwaway commits have no source).

  bisect_history_test.py RECALLBENCH
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

RB = os.path.abspath(sys.argv[1])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout.strip()


def bisect(tmp, repo, db, *extra):
    work = os.path.join(tmp, "work-%d" % len(os.listdir(tmp)))
    return subprocess.run([RB, "bisect", "--good", "HEAD~6", "--bad", "HEAD", "--battery", os.path.join(tmp, "tiny.json"),
                           "--repo", repo, "--work", work, "--db", db, "--no-record", *extra],
                          capture_output=True, text=True, cwd=tmp), work


def history(commits, keys, battery, bad_from, seeds=40, skip=None):
    rng = random.Random(5)
    own = {(k, s): math.exp(rng.gauss(0, 0.15)) for k in keys for s in range(seeds)}
    lines = [json.dumps({"recallbench_history": 1, "battery": battery})]
    parent = None
    for i, c in enumerate(commits):
        lines.append(json.dumps({"commit": c, "parent": parent, "date": "2026-01-01T%02d:00:00Z" % i,
                                 "subject": "commit %d" % i}))
        parent = c
        for k in keys:
            if skip == (i, k):
                continue
            for s in range(seeds):
                step = int(100 * own[(k, s)] * (2.0 if i >= bad_from else 1.0) * math.exp(rng.gauss(0, 0.02)))
                lines.append(json.dumps({"commit": c, "config": k, "seed": s, "locked_in": True, "lock_in_step": step,
                                         "budget": 1000, "recall": 0.995}))
    return "\n".join(lines) + "\n"


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "tiny.json"), "w") as f:
        json.dump({"schema_version": 1, "name": "tiny-bisect", "description": "bisect history test",
                   "cells": ["diag+conv", "diag"], "model": {"d_model": 16, "layers": 1, "mlp": False},
                   "threshold": 0.9, "seeds": "0-9",
                   "tasks": [{"name": "mqar", "options": {"pairs": 2, "length": 12, "vocab": 16}}],
                   "recipes": [{"name": "r", "steps": 1000, "batch": 8, "lr": 3e-3, "eval_every": 20,
                                "eval_examples": 32}]}, f)
    plan = json.loads(subprocess.run([RB, "plan", "--battery", os.path.join(tmp, "tiny.json"), "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    keys = sorted({r["key"].rsplit("/seed:", 1)[0] for r in plan["runs"]})
    check(len(keys) == 2, "the tiny battery plans 2 configs: %s" % keys)
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    commits = []
    for i in range(7):
        with open(os.path.join(repo, "f"), "w") as f:
            f.write("%d\n" % i)
        git(repo, "add", "f")
        git(repo, "commit", "-q", "-m", "commit %d" % i)
        commits.append(git(repo, "rev-parse", "HEAD"))

    def db_of(name, text):
        db = os.path.join(tmp, name + ".sqlite")
        p = subprocess.run([RB, "history", "import", "-", "--db", db], input=text, capture_output=True, text=True)
        check(p.returncode == 0, "history import %s: exit %d\n%s%s" % (name, p.returncode, p.stdout, p.stderr))
        return db

    # Every look in the history: no build, no training; the first bad commit is commit 5.
    db = db_of("full", history(commits, keys, "tiny-bisect", bad_from=5))
    p, work = bisect(tmp, repo, db)
    out = p.stdout + p.stderr
    print(out)
    check(p.returncode == 0, "bisect on a full history: exit %d\n%s" % (p.returncode, out))
    check("first bad commit " + commits[5] in out, "bisect names commit 5 (%s)\n%s" % (commits[5][:7], out))
    check("from the history (not retrained)" in out, "bisect says the looks come from the history\n" + out)
    outcome = json.load(open(os.path.join(work, "bisect.json"))) if os.path.exists(os.path.join(work, "bisect.json")) else {}
    check(outcome.get("builds") == 0 and outcome.get("battery_runs") == 0 and outcome.get("looks_from_history", 0) >= 3,
          "nothing built or trained, the looks read from the history: %s" % outcome)
    check(outcome.get("commit") == commits[5], "bisect.json names commit 5: %s" % outcome.get("commit"))

    # The bad commit at the other side of the range: commit 2.
    db2 = db_of("early", history(commits, keys, "tiny-bisect", bad_from=2))
    p, _ = bisect(tmp, repo, db2)
    check(p.returncode == 0 and "first bad commit " + commits[2] in p.stdout,
          "bisect names commit 2 on the second history: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

    # A history of another battery is not read: the probes must be built (and these commits have no source).
    db3 = db_of("other", history(commits, keys, "another-battery", bad_from=5))
    p, work = bisect(tmp, repo, db3)
    check(p.returncode != 0 and "does not build" in p.stdout + p.stderr,
          "a history of another battery is not reused: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    # --no-reuse trains even what the history holds.
    p, _ = bisect(tmp, repo, db, "--no-reuse")
    check(p.returncode != 0 and "does not build" in p.stdout + p.stderr,
          "--no-reuse builds: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
