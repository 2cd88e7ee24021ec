#!/usr/bin/env python3
"""Adversarial inputs across every reader and command (issue 46): each case is a hostile but small input and the
exit codes it may get. No case may crash, hang, exit 4 (internal) or be accepted when it is bad; valid extremes
must be accepted. `adversarial_test.py RECALLBENCH SRC [--table FILE.md]` writes the table of what each got.

The cases are built from the stored files (ci/baselines/smoke.json, ci/claims/smoke-claims.json,
ci/leaderboard/leaderboard.json, ci/baselines/bench-smoke.json, tests/reports/data/runs) by one edit each, so
that every other field stays valid and the edit is what is judged."""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

RB, SRC = sys.argv[1], sys.argv[2]
TABLE = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else None
tmp = tempfile.mkdtemp()
rows, failures = [], []


def load(rel):
    with open(os.path.join(SRC, rel)) as f:
        return json.load(f)


def write(name, content):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))
    return path


def case(reader, what, args, codes=(2,), says=None, stdin=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run([RB, *args], capture_output=True, text=True, input=stdin, timeout=60)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, out = "timeout", ""
    took = time.monotonic() - t0
    first = next((l for l in out.splitlines() if "error" in l or "verdict" in l), out.splitlines()[0] if out else "")
    ok = rc in codes and (says is None or says in out)
    rows.append((reader, what, rc, "ok" if ok else "FAIL", first[:140].replace("|", "\\|"), took))
    if not ok:
        failures.append(f"{reader}: {what}: exit {rc} (expected {codes}{', with ' + repr(says) if says else ''})\n{out[-2000:]}")


def edited(doc, edit):
    d = copy.deepcopy(doc)
    edit(d)
    return d


# --- run documents, read by `report DIR` (and `run`'s store) ---
run_files = sorted(os.listdir(os.path.join(SRC, "tests/reports/data/runs")))
run_doc = load("tests/reports/data/runs/" + run_files[0])


def run_case(what, edit=None, text=None, codes=(2,), says=None):
    d = os.path.join(tmp, "store_" + str(len(rows)))
    os.makedirs(os.path.join(d, "runs"))
    body = text if text is not None else json.dumps(edited(run_doc, edit))
    with open(os.path.join(d, "runs", run_files[0]), "w") as f:
        f.write(body)
    case("run document", what, ["report", d], codes, says)


def res(**kw):
    return lambda d: d["result"].update(kw)


run_case("valid (control)", lambda d: None, codes=(0,))
run_case("truncated", text=json.dumps(run_doc)[:300], says="malformed")
run_case("empty file", text="")
run_case("an array", text="[]")
run_case("NaN literal", text=json.dumps(run_doc).replace('"final_accuracy": ', '"final_accuracy": NaN, "x": ', 1))
run_case("100000 nested arrays", text="[" * 100000 + "]" * 100000)
run_case("kind is another", lambda d: d.update(kind="recallbench.baseline"))
run_case("schema_version 0", lambda d: d.update(schema_version=0))
run_case("schema_version 2^64-1", lambda d: d.update(schema_version=2 ** 64 - 1))
run_case("schema_version as a string", lambda d: d.update(schema_version="1"))
run_case("final_accuracy 1.5", res(final_accuracy=1.5), says="[0, 1]")
run_case("final_accuracy -0.1", res(final_accuracy=-0.1), says="[0, 1]")
run_case("final_accuracy 1e999", text=json.dumps(run_doc).replace('"final_accuracy": ', '"final_accuracy": 1e999, "x": ', 1))
run_case("best_accuracy 2", res(best_accuracy=2.0), says="[0, 1]")
run_case("locked_in without lock_in_step", res(locked_in=True, lock_in_step=None), says="contradict")
run_case("lock_in_step without locked_in", res(locked_in=False, lock_in_step=50), says="contradict")
run_case("lock-in after the steps taken", res(locked_in=True, lock_in_step=10 ** 6), says="after the")
run_case("steps negative", res(steps=-5))
run_case("steps beyond the budget", res(steps=10 ** 9, locked_in=False, lock_in_step=None), says="beyond the step budget")
run_case("lock-in at accuracy 0", res(locked_in=True, lock_in_step=0, steps=10, best_accuracy=0.0, final_accuracy=0.0),
         says="never reached the threshold")
run_case("status unknown", res(status="fine"))
run_case("status a number", res(status=3))
run_case("result missing", lambda d: d.pop("result"))
run_case("result a string", lambda d: d.update(result="ok"))
run_case("curve not an array", lambda d: d.update(curve={"a": 1}))
run_case("key of another run", lambda d: d.update(key="mqar/other/seed:0"))
run_case("spec seed -1", lambda d: d["spec"].update(seed=-1))
run_case("spec seed 2^64", lambda d: d["spec"].update(seed=2 ** 64))
run_case("duplicate key in result", text=json.dumps(run_doc).replace('"result": {', '"result": {"steps": 1, ', 1))

# --- baselines, read by compare / baseline show / report ---
smoke = load("ci/baselines/smoke.json")
SMOKE = os.path.join(SRC, "ci/baselines/smoke.json")


def base_case(what, edit=None, text=None, codes=(2,), says=None, command="compare"):
    path = write(f"base_{len(rows)}.json", text if text is not None else edited(smoke, edit))
    args = ["compare", "--baseline", path, "--current", SMOKE] if command == "compare" else ["baseline", "show", path]
    case("baseline", what, args, codes, says)


def seed0(**kw):
    return lambda d: d["configs"][0]["seeds"][0].update(kw)


base_case("valid (control)", lambda d: None, codes=(0,), says="no change")
base_case("kind missing", lambda d: d.pop("kind"))
base_case("schema_version 2", lambda d: d.update(schema_version=2))
base_case("schema_version 2^32+1", lambda d: d.update(schema_version=2 ** 32 + 1))
base_case("schema_version -1", lambda d: d.update(schema_version=-1))
base_case("configs not an array", lambda d: d.update(configs={}))
base_case("configs empty", lambda d: d.update(configs=[]))
base_case("seeds not an array", lambda d: d["configs"][0].update(seeds=5))
base_case("a config twice", lambda d: d["configs"].append(d["configs"][0]), says="appears twice")
base_case("seed -1", seed0(seed=-1), says="negative")
base_case("a seed twice", lambda d: d["configs"][0]["seeds"].append(d["configs"][0]["seeds"][0]))
base_case("state_size -5", lambda d: d["configs"][0].update(state_size=-5), says="negative")
base_case("lock-in after the steps taken", seed0(lock_in_step=600, steps=450), says="after the")
base_case("lock-in at accuracy 0", seed0(best_accuracy=0.0, final_accuracy=0.0), says="never reached")
base_case("steps beyond the budget", seed0(steps=5000, locked_in=False, lock_in_step=None), says="beyond the step budget")
base_case("final_accuracy 1.5", seed0(final_accuracy=1.5), says="outside [0, 1]", command="show")
base_case("recall 1e308", seed0(final_accuracy=1e308), says="outside [0, 1]", command="show")
base_case("train.steps a string", lambda d: d["configs"][0]["train"].update(steps="1000"))
base_case("train.threshold 2", lambda d: d["configs"][0]["train"].update(threshold=2))
base_case("summary contradicts its seeds", lambda d: d["configs"][0]["summary"].update(locked_in=3), says="contradicts itself")
base_case("key a number", lambda d: d["configs"][0].update(key=5))
base_case("120000 extra keys", text=json.dumps(smoke)[:-1] + "".join(f', "k{i}": {i}' for i in range(120000)) + "}",
          codes=(0,), says="no change")
base_case("duplicate top-level key", text='{"kind": "recallbench.baseline", ' + json.dumps(smoke)[1:], says="twice")
os.makedirs(os.path.join(tmp, "folder.json"))
case("baseline", "a folder", ["compare", "--baseline", os.path.join(tmp, "folder.json"), "--current", SMOKE])
case("baseline", "missing file", ["compare", "--baseline", os.path.join(tmp, "nope.json"), "--current", SMOKE])
case("baseline", "/dev/null", ["compare", "--baseline", "/dev/null", "--current", SMOKE])
case("baseline", "/dev/zero (endless)", ["baseline", "show", "/dev/zero"])
case("baseline update", "a name with a slash", ["baseline", "update", "../x", "--results", SMOKE, "--out",
                                                 os.path.join(tmp, "bu.json")], says="letters, digits")

# --- batteries, read by plan ---
battery = {"schema_version": 1, "name": "adv", "cells": ["diag"], "seeds": "0-1",
           "tasks": [{"name": "mqar", "options": {"pairs": 4, "length": 32, "vocab": 64}}],
           "recipes": [{"name": "default", "steps": 100}]}


def bat_case(what, edit=None, text=None, codes=(2,), says=None):
    path = write(f"battery_{len(rows)}.json", text if text is not None else edited(battery, edit))
    case("battery", what, ["plan", "--battery", path], codes, says)


def opt(**kw):
    return lambda d: d["tasks"][0]["options"].update(kw)


bat_case("valid (control)", lambda d: None, codes=(0,))
bat_case("not JSON", text="{name: adv}")
bat_case("schema_version 99", lambda d: d.update(schema_version=99))
bat_case("name empty", lambda d: d.update(name=""))
bat_case("name of 100000 letters", lambda d: d.update(name="x" * 100000), says="at most 100")
bat_case("name with a slash", lambda d: d.update(name="../etc"))
bat_case("unknown cell", lambda d: d.update(cells=["nope"]))
bat_case("seeds 3-1", lambda d: d.update(seeds="3-1"))
bat_case("seeds 0-99999999", lambda d: d.update(seeds="0-99999999"))
bat_case("seeds -1", lambda d: d.update(seeds="-1"))
bat_case("unknown task", lambda d: d["tasks"][0].update(name="nope"))
bat_case("pairs 0", opt(pairs=0))
bat_case("pairs 2^62", opt(pairs=2 ** 62))
bat_case("pairs -1e9", opt(pairs=-1000000000))
bat_case("pairs 4.5", opt(pairs=4.5))
bat_case("pairs \"4\" (a string: read as the CLI reads key=value, the same run as 4)", opt(pairs="4"), codes=(0,))
bat_case("length 70000", opt(length=70000), says="plausible range")
bat_case("vocab 1", opt(vocab=1))
bat_case("4 pairs need more length", opt(pairs=40, length=64))
bat_case("unknown option", opt(colour="red"), says="unknown option")
bat_case("grid empty", lambda d: d["tasks"][0].update(grid={"pairs": []}))
bat_case("grid of 7e8 runs", lambda d: d.update(seeds="0-99999", tasks=[{"name": "mqar", "options": {"vocab": 64},
         "grid": {"pairs": list(range(1, 200)), "length": [1024, 2048, 4096]}}]), says="one plan may hold")
bat_case("recipe steps 0", lambda d: d["recipes"][0].update(steps=0))
bat_case("recipe steps 1e8", lambda d: d["recipes"][0].update(steps=100000000))
bat_case("recipe lr -1", lambda d: d["recipes"][0].update(lr=-1))
bat_case("recipe batch 2^40", lambda d: d["recipes"][0].update(batch=2 ** 40))
bat_case("unknown recipe field", lambda d: d["recipes"][0].update(stepz=10))
bat_case("duplicate key", text='{"name": "a", ' + json.dumps(battery)[1:], says="twice")
bat_case("cells all (valid)", lambda d: d.update(cells="all"), codes=(0,))

# --- history import lines ---
good = {"commit": "abc1", "date": "2026-01-01", "config": "k", "seed": 1, "locked_in": False,
        "lock_in_step": None, "budget": 100, "recall": 0.5}
hdb = os.path.join(tmp, "h.sqlite")


def hist_case(what, change=None, text=None, codes=(2,), says=None):
    line = text if text is not None else json.dumps(dict(good, **change)) + "\n"
    case("history import", what, ["history", "import", "-", "--db", hdb], codes, says, stdin=line)


hist_case("valid (control)", {}, codes=(0,))
for what, change in [("seed -1", {"seed": -1}), ("state_size -5", {"state_size": -5}), ("recall 1e308", {"recall": 1e308}),
                     ("recall -2.5", {"recall": -2.5}), ("status unknown", {"status": "fine"}),
                     ("date 2026-13-01", {"date": "2026-13-01"}), ("date 2026-02-29", {"date": "2026-02-29"}),
                     ("budget 9e18", {"budget": 9e18}), ("budget 0", {"budget": 0}),
                     ("commit not hex", {"commit": "xyz1"}), ("commit an option", {"commit": "--output=/tmp/x"}),
                     ("lock-in past the budget", {"locked_in": True, "lock_in_step": 101}),
                     ("locked in, diverged", {"locked_in": True, "lock_in_step": 50, "status": "diverged"})]:
    hist_case(what, change)
hist_case("header from a newer format", text='{"recallbench_history": 99}\n', says="newer")
hist_case("not JSON", text="not json\n", says="line 1")

# --- claims, read by verify ---
claims = load("ci/claims/smoke-claims.json")


def claim_case(what, edit=None, text=None, codes=(2,), says=None):
    path = write(f"claims_{len(rows)}.json", text if text is not None else edited(claims, edit))
    case("claims", what, ["verify", "--claims", path, "--results", SMOKE], codes, says)


def claim0(**kw):
    return lambda d: d["claims"][0].update(kw)


claim_case("valid (control)", lambda d: None, codes=(0, 1, 3))
claim_case("kind wrong", lambda d: d.update(kind="recallbench.baseline"))
claim_case("claims not an array", lambda d: d.update(claims={}))
claim_case("unknown statistic", claim0(statistic="chi2"))
claim_case("unknown direction", claim0(direction="sideways"))
claim_case("effect 1.5", claim0(effect={"a": 1.5, "b": 0.1}))
claim_case("id twice", lambda d: d["claims"].append(d["claims"][0]))
claim_case("a without cell", lambda d: d["claims"][0]["a"].pop("cell"))

# --- the stored leaderboard ---
board = load("ci/leaderboard/leaderboard.json")


def board_case(what, edit=None, text=None, codes=(2,), says=None):
    path = write(f"board_{len(rows)}.json", text if text is not None else edited(board, edit))
    case("leaderboard", what, ["leaderboard", "--file", path], codes, says)


board_case("valid (control)", lambda d: None, codes=(0,))
board_case("rows not an array", lambda d: d.update(rows=5))
board_case("a row twice", lambda d: d["rows"].append(d["rows"][0]))
board_case("schema_version 2^64-1", lambda d: d.update(schema_version=2 ** 64 - 1))
board_case("a seed locked in after its steps", lambda d: d["rows"][0]["configs"][0]["seeds"][0].update(
    locked_in=True, lock_in_step=10 ** 7, steps=5))

# --- Google Benchmark JSON, read by the speed gate ---
bench = load("ci/baselines/bench-smoke.json")
BENCH = os.path.join(SRC, "ci/baselines/bench-smoke.json")


def bench_case(what, edit=None, text=None, codes=(2,), says=None):
    path = write(f"bench_{len(rows)}.json", text if text is not None else edited(bench, edit))
    case("benchmark JSON", what, ["compare", "--baseline", BENCH, "--current", path], codes, says)


bench_case("valid (control)", lambda d: None, codes=(0, 3))
bench_case("benchmarks not an array", lambda d: d.update(benchmarks={}))
bench_case("real_time a string", lambda d: d["benchmarks"][0].update(real_time="fast"))
bench_case("real_time negative", lambda d: d["benchmarks"][0].update(real_time=-1.0))
bench_case("name missing", lambda d: [d["benchmarks"][0].pop(k, None) for k in ("name", "run_name")])
bench_case("cpu_time infinite", text=json.dumps(bench).replace('"cpu_time": ', '"cpu_time": 1e999, "x": ', 1))

# --- command-line values ---
for what, args, says in [
    ("--seeds 3-1", ["run", "--cell", "diag", "--task", "mqar", "--seeds", "3-1", "--out", tmp], "bad seed list"),
    ("--steps 1e3", ["run", "--cell", "diag", "--task", "mqar", "--steps", "1e3", "--out", tmp], "decimal digits"),
    ("--lr nan", ["run", "--cell", "diag", "--task", "mqar", "--lr", "nan", "--out", tmp], "decimal number"),
    ("--jobs 0b11", ["run", "--cell", "diag", "--task", "mqar", "--jobs", "0b11", "--out", tmp], "decimal digits"),
    ("--out a device", ["run", "--cell", "diag", "--task", "mqar", "--out", "/dev/null"], "not a directory"),
    ("--task-opt pairs twice", ["run", "--cell", "diag", "--task", "mqar", "--pairs", "8", "--task-opt", "pairs=4",
                                "--out", tmp], "given twice"),
    ("sample copy huge string_length", ["sample", "--task", "copy", "--task-opt", "string_length=4611686018427387904"], None),
    ("sample --n 0", ["sample", "--task", "mqar", "--n", "0"], None),
    ("stats fisher negative", ["stats", "fisher", "-1", "2", "3", "4"], None),
    ("stats binom-ci k > n", ["stats", "binom-ci", "5", "3"], None),
    ("history --db a folder", ["history", "log", "--db", tmp], "is a folder"),
    ("merge into its own runs/", ["merge", SMOKE], None),
    ("unknown command", ["frobnicate"], None),
]:
    case("command line", what, args, (2,), says)

shutil.rmtree(tmp, ignore_errors=True)
if TABLE:
    with open(TABLE, "w") as f:
        f.write(f"{len(rows)} adversarial inputs ({sum(r[3] == 'ok' for r in rows)} as expected)\n\n")
        f.write("| reader | input | exit | as expected | first line of the answer | s |\n|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.2f} |\n")
print(f"{len(rows)} adversarial inputs, {len(failures)} not as expected")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
