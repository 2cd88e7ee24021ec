#!/usr/bin/env python3
"""`recallbench history` end to end: add (idempotent, conflicts, batteries, commits, dirty trees, two at
once), export/import round trip, bad databases (truncated, not SQLite, newer schema), and changes/report on
a simulated history.

  history_cli_test.py RECALLBENCH SOURCE_DIR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

RB, SRC = sys.argv[1], sys.argv[2]
PLANT = os.path.join(SRC, "tests/reports/plant.py")
SIMULATE = os.path.join(SRC, "tests/history/simulate.py")
failures = []


def run(*args, expect=0, stdin=None, contains=None):
    p = subprocess.run([RB, *args], capture_output=True, text=True, input=stdin)
    if p.returncode != expect or (contains and contains not in p.stdout + p.stderr):
        failures.append("%s: exit %d (expected %d)%s\n%s%s" % (" ".join(args), p.returncode, expect,
                        " without '%s'" % contains if contains else "", p.stdout, p.stderr))
    return p


def check(cond, what):
    if not cond:
        failures.append(what)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout.strip()


def plant(out, spec, battery="tiny"):
    subprocess.run([sys.executable, PLANT, out, spec], check=True, capture_output=True)
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump({"kind": "recallbench.plan", "battery": {"name": battery}}, f)


def export(db):
    return run("history", "export", "--db", db).stdout


tmp = tempfile.mkdtemp()
try:
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    for i in range(3):
        with open(os.path.join(repo, "f"), "w") as f:
            f.write(str(i))
        git(repo, "add", "f")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "change %d" % i)
    heads = git(repo, "rev-list", "--reverse", "HEAD").split()
    db = os.path.join(tmp, "h", "history.sqlite")
    a, b, c, other = (os.path.join(tmp, n) for n in ("a", "b", "c", "other"))
    plant(a, "diag:7:10")
    plant(b, "diag:9:10")
    plant(c, "diag:3:10")
    plant(other, "diag:7:10", battery="another")

    run("history", "add", a, "--commit", heads[0], "--repo", repo, "--db", db, contains="10 outcomes")
    first = export(db)
    run("history", "add", a, "--commit", heads[0], "--repo", repo, "--db", db, contains="10 already there")
    check(export(db) == first, "adding the same store twice changed the database")
    # Writes that fail are reported as failures (issue 46): a full standard output, an existing folder as
    # --out (nothing left beside it), and --out itself written whole.
    with open("/dev/full", "w") as full:
        r = subprocess.run([RB, "history", "export", "--db", db], stdout=full, capture_output=False,
                           stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "standard output failed" in r.stderr, "export to a full stdout exits 2: %r" % r.stderr)
    folder = os.path.join(tmp, "a-folder")
    os.mkdir(folder)
    run("history", "export", "--db", db, "--out", folder, expect=2, contains="not a regular file")
    check(os.listdir(folder) == [] and not any(n.startswith(".a-folder") for n in os.listdir(tmp)),
          "a refused export leaves no temporary file")
    out_file = os.path.join(tmp, "export.jsonl")
    run("history", "export", "--db", db, "--out", out_file)
    with open(out_file) as f:
        check(f.read() == first, "export --out writes what export prints")
    run("history", "add", c, "--commit", heads[0], "--repo", repo, "--db", db, expect=2, contains="conflicting")
    check(export(db) == first, "a conflicting add changed the database")
    run("history", "add", other, "--commit", heads[1], "--repo", repo, "--db", db, expect=2, contains="battery")
    run("history", "add", b, "--commit", "0123abcd", "--repo", repo, "--db", db, expect=2, contains="unknown commit")
    # A commit that is a git option is refused, and git never sees it as one (issue 46).
    planted_file = os.path.join(tmp, "written-by-git")
    run("history", "add", b, "--commit=--output=" + planted_file, "--repo", repo, "--db", db, expect=2,
        contains="is not a commit")
    check(not os.path.exists(planted_file) and not os.path.exists(planted_file + "^{commit}"),
          "a commit given as --output=PATH makes git write no file")
    run("history", "add", b, "--repo", repo, "--db", db, expect=2, contains="unknown commit 'planted'")
    run("history", "log", "--db", os.path.join(tmp, "missing.sqlite"), expect=2, contains="does not exist")
    # A folder given as the database, by --db or by RECALLBENCH_HISTORY, is named as one (not "disk I/O error").
    run("history", "log", "--db", tmp, expect=2, contains="is a folder, expected an SQLite file")
    p = subprocess.run([RB, "history", "log"], capture_output=True, text=True,
                       env=dict(os.environ, RECALLBENCH_HISTORY=tmp))
    check(p.returncode == 2 and "is a folder" in p.stderr, "RECALLBENCH_HISTORY=a folder: exit %d, %s" %
          (p.returncode, p.stderr))
    check(export(db) == first, "refused adds changed the database")

    # Two writers at once: SQLite's lock serialises them; both land.
    procs = [subprocess.Popen([RB, "history", "add", d, "--commit", h, "--repo", repo, "--db", db],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for d, h in ((b, heads[1]), (c, heads[2]))]
    for p in procs:
        out, err = p.communicate()
        check(p.returncode == 0, "concurrent add failed: %s" % err.decode())
    dump = export(db)
    for h in heads:
        check(h in dump, "commit %s missing after concurrent adds" % h[:7])
    log = run("history", "log", "--db", db).stdout
    check("7/10" in log and "9/10" in log and "3/10" in log, "history log lacks the counts:\n" + log)

    # Round trip through JSON Lines.
    db2 = os.path.join(tmp, "copy.sqlite")
    run("history", "import", "-", "--db", db2, stdin=dump)
    check(export(db2) == dump, "export -> import -> export is not the identity")

    # Bad databases: nothing is lost, exit 2, a clear message.
    broken = os.path.join(tmp, "broken.sqlite")
    with open(db, "rb") as f:
        data = f.read()
    with open(broken, "wb") as f:
        f.write(data[: len(data) // 2])
    run("history", "log", "--db", broken, expect=2, contains="not a valid SQLite database")
    run("history", "add", a, "--commit", heads[0], "--repo", repo, "--db", broken, expect=2)
    with open(broken, "wb") as f:
        f.write(b"this is not a database at all" * 100)
    run("history", "changes", "--db", broken, expect=2, contains="not a valid SQLite database")
    foreign = os.path.join(tmp, "foreign.sqlite")
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    run("history", "log", "--db", foreign, expect=2, contains="not a recallbench history")
    newer = os.path.join(tmp, "newer.sqlite")
    shutil.copy(db, newer)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    before = open(newer, "rb").read()
    run("history", "add", a, "--commit", heads[0], "--repo", repo, "--db", newer, expect=2, contains="newer")
    check(open(newer, "rb").read() == before, "a newer database was modified")
    run("history", "import", "-", "--db", db2, expect=2, stdin='{"recallbench_history": 7}\n', contains="newer")
    run("history", "import", "-", "--db", db2, expect=2, stdin='{"commit": "abc1", "date": "2026-01-01", "config": "k", "seed": 1}\n',
        contains="locked_in")
    run("history", "import", "-", "--db", db2, expect=2, stdin='not json\n', contains="line 1")
    # Issue 46: one rule for a valid outcome. Each of these lines is refused (exit 2, naming the line) and
    # changes nothing.
    good = {"commit": "abc1", "date": "2026-01-01", "config": "k", "seed": 1, "locked_in": False,
            "lock_in_step": None, "budget": 100, "recall": 0.5}
    for change, says in [({"seed": -1}, "seed -1 is negative"), ({"state_size": -5}, "state_size -5 is negative"),
                         ({"recall": 1e308}, "recall"), ({"recall": -2.5}, "recall"),
                         ({"best_recall": 1.5}, "best"), ({"best_recall": "high"}, "best_recall"),
                         ({"status": "fine"}, "status"), ({"status": 3}, "status"),
                         ({"date": "2026-13-01"}, "ISO 8601"), ({"date": "2026-02-29"}, "ISO 8601"),
                         ({"date": "yesterday"}, "ISO 8601"), ({"budget": 9e18}, "budget"),
                         ({"budget": 9000000000000000000}, "budget"), ({"budget": 0}, "budget"),
                         ({"commit": "xyz1"}, "hexadecimal"), ({"commit": "--output=/tmp/x"}, "hexadecimal"),
                         ({"commit": "ab"}, "hexadecimal"), ({"parent": "g" * 40}, "hexadecimal"),
                         ({"locked_in": True}, "lock_in_step"), ({"lock_in_step": 5}, "lock_in_step"),
                         ({"locked_in": True, "lock_in_step": 101}, "lock_in_step"),
                         ({"locked_in": True, "lock_in_step": -1}, "lock_in_step")]:
        line = dict(good, **change)
        run("history", "import", "-", "--db", db2, expect=2, stdin=json.dumps(line) + "\n", contains=says)
    check(export(db2) == dump, "refused imports changed the database")
    # ABCD and abcd are one commit (git's hashes are case-free).
    dbc = os.path.join(tmp, "case.sqlite")
    run("history", "import", "-", "--db", dbc, stdin=json.dumps(dict(good, commit="ABCD1234")) + "\n" +
        json.dumps(dict(good, commit="abcd1234", seed=2)) + "\n")
    lines = [json.loads(l) for l in export(dbc).splitlines()]
    check(sorted({l["commit"] for l in lines if "commit" in l}) == ["abcd1234"], "ABCD/abcd:\n" + export(dbc))
    # Whatever export writes, import reads back to the same export: adversarial but valid outcomes (the
    # extremes of every range, a lock-in at the budget, unicode and quotes in a key, a zoned leap-day date).
    edge = [dict(good, commit="FFFF" * 10, parent=None, date="2024-02-29T23:59:59+05:30", config='mqar/"ü"/k\\',
                 seed=2 ** 31 - 1, locked_in=True, lock_in_step=10000000, budget=10000000, recall=1.0,
                 best_recall=None, state_size=0, status="ok"),
            dict(good, commit="0" * 64, parent="ffff" * 10, date="2024-03-01", seed=0, budget=1, recall=0.0,
                 best_recall=0.0, status="diverged", state_size=2 ** 40),
            dict(good, commit="0" * 64, parent="ffff" * 10, seed=7, locked_in=True, lock_in_step=0, recall=0.25,
                 best_recall=1.0),
            dict(good, commit="0" * 64, parent="ffff" * 10, seed=8, recall=0.25, best_recall=1.0, status="error")]
    dbr1, dbr2 = os.path.join(tmp, "rt1.sqlite"), os.path.join(tmp, "rt2.sqlite")
    run("history", "import", "-", "--db", dbr1, stdin="".join(json.dumps(l) + "\n" for l in edge))
    first = export(dbr1)
    run("history", "import", "-", "--db", dbr2, stdin=first)
    check(export(dbr2) == first and first.count('"seed"') == 4, "export -> import -> export differs:\n" + first)
    # `history accept`: stored with its reason, exported and imported back; refused without a reason, for an
    # unknown or ambiguous commit, for a config without runs there, for another reason; a version-1 database
    # (before acceptances) is read as it is and migrated by the first write.
    rows = [dict(good, commit=c, parent=par, date=d, seed=k) for c, par, d in
            [("aaaa1111", None, "2026-01-01"), ("aaaa2222", "aaaa1111", "2026-01-02")] for k in range(3)]
    rows_text = "".join(json.dumps(r) + "\n" for r in rows)
    dba, dba2, v1 = (os.path.join(tmp, n) for n in ("accept.sqlite", "accept2.sqlite", "v1.sqlite"))
    run("history", "import", "-", "--db", dba, stdin=rows_text)
    run("history", "accept", "aaaa2", "--db", dba, expect=2, contains="--reason")
    run("history", "accept", "aaaa2", "--reason", "  ", "--db", dba, expect=2, contains="--reason is empty")
    run("history", "accept", "aaaa", "--reason", "x", "--db", dba, expect=2, contains="prefix of 2")
    run("history", "accept", "bbbb", "--reason", "x", "--db", dba, expect=2, contains="no commit")
    run("history", "accept", "aaaa2", "--reason", "x", "--config", "nothere", "--db", dba, expect=2, contains="has no runs")
    run("history", "accept", "AAAA2222", "--reason", "traded for speed", "--db", dba, contains="accepted at aaaa2222")
    run("history", "accept", "aaaa2222", "--reason", "traded for speed", "--db", dba, contains="already accepted")
    run("history", "accept", "aaaa2222", "--reason", "other", "--db", dba, expect=2, contains="another reason")
    first = export(dba)
    accepted = [json.loads(l) for l in first.splitlines() if '"accepted"' in l]
    check([(a["commit"], a["accepted"], a["reason"]) for a in accepted] == [("aaaa2222", "k", "traded for speed")],
          "the acceptance is not exported as stored:\n" + first)
    run("history", "import", "-", "--db", dba2, stdin=first)
    check(export(dba2) == first, "accept: export -> import -> export differs")
    run("history", "import", "-", "--db", v1, stdin=rows_text)
    con = sqlite3.connect(v1)
    con.execute("DROP TABLE accepted")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    run("history", "log", "--db", v1, contains="aaaa222")
    check('"accepted"' not in export(v1), "a version-1 database exported an acceptance")
    run("history", "accept", "aaaa2222", "--reason", "r", "--db", v1, contains="accepted at aaaa2222")
    con = sqlite3.connect(v1)
    check(con.execute("PRAGMA user_version").fetchone()[0] == 3, "accept did not migrate a version-1 database (to 3)")
    con.close()
    run("history", "log", "--db", db, "--metric", "speedy", expect=2, contains="unknown metric")
    # Issue 28: an imported config document whose task is not a string labels the config without it.
    db4 = os.path.join(tmp, "label.sqlite")
    head = '{"commit": "abc1", "date": "2026-01-01", "config": "k", '
    run("history", "import", "-", "--db", db4, stdin=head + '"seed": 1, "locked_in": false, "lock_in_step": null, '
        '"budget": 100, "recall": 0.5}\n' + head + '"config_document": {"cell": "diag", "task": 5}}\n')
    run("history", "log", "--db", db4, contains="diag")

    # A benchmark file (recallbench bench --out): kernels relative to the GEMM ceiling of the same run, the
    # ceilings themselves left out; a reference the file lacks is exit 2.
    bench = os.path.join(SRC, "ci/baselines/bench-smoke.json")
    dbb = os.path.join(tmp, "bench.sqlite")
    run("history", "add", bench, "--commit", heads[0], "--repo", repo, "--db", dbb, contains="4 benchmarks")
    speed = run("history", "log", "--metric", "speed", "--db", dbb).stdout
    check("ceiling/" not in speed and "gla_fused" in speed, "history log --metric speed:\n" + speed)
    run("history", "add", bench, "--commit", heads[1], "--repo", repo, "--db", dbb, "--reference", "nosuch",
        expect=2, contains="no benchmark named nosuch")
    # Issue 28: a benchmark row whose field has another type is bad input naming the file, never exit 4.
    badbench = os.path.join(tmp, "badbench.json")
    with open(badbench, "w") as f:
        json.dump({"context": {}, "benchmarks": [{"name": "x", "run_type": 5, "real_time": 1.0}]}, f)
    run("history", "add", badbench, "--commit", heads[1], "--repo", repo, "--db", dbb, expect=2,
        contains=badbench + ": a field has the wrong type")

    # The history as the gate's baseline: two commits at 9/10, then a current store at 3/10 (a regression)
    # and one at 9/10 (none).
    dbg = os.path.join(tmp, "gate.sqlite")
    run("history", "add", b, "--commit", heads[0], "--repo", repo, "--db", dbg)
    run("history", "add", b, "--commit", heads[1], "--repo", repo, "--db", dbg)
    run("compare", "--baseline-history", dbg, "--current", c, expect=1, contains="1 epoch over 2 commits")
    run("compare", "--baseline-history", dbg, "--current", b, expect=0)
    run("report", c, "--baseline-history", dbg, "--md", os.path.join(tmp, "r.md"), expect=1)
    run("compare", "--baseline-history", os.path.join(tmp, "none.sqlite"), "--current", c, expect=2)
    run("compare", "--baseline-history", dbg, "--baseline", "x.json", "--current", c, expect=2, contains="expected one")
    # Issue 28: runs whose context records a commit of another type are compared (the commit is unknown).
    ctx = os.path.join(tmp, "ctx")
    shutil.copytree(c, ctx)
    for name in os.listdir(os.path.join(ctx, "runs")):
        path = os.path.join(ctx, "runs", name)
        d = json.load(open(path))
        d["context"]["git_commit"] = 5
        json.dump(d, open(path, "w"))
    run("report", ctx, "--baseline-history", dbg, "--md", os.path.join(tmp, "ctx.md"), expect=1)

    # A store missing planned runs is compared, and says so.
    partial = os.path.join(tmp, "partial")
    shutil.copytree(c, partial)
    with open(os.path.join(partial, "plan.json"), "w") as f:
        json.dump({"kind": "recallbench.plan", "battery": {"name": "tiny"},
                   "runs": [{"key": "mqar/diag/never-run/seed:99"}]}, f)
    run("compare", "--baseline-history", dbg, "--current", partial, expect=1, contains="have no result")
    # Issue 46: a store missing planned runs is inconclusive at best (on stdout, in the report; exit 3 when asked),
    # even when the runs present match the baseline; a baseline is not recorded from it without --allow-partial.
    partial_b = os.path.join(tmp, "partial_b")
    shutil.copytree(b, partial_b)
    with open(os.path.join(partial_b, "plan.json"), "w") as f:
        json.dump({"kind": "recallbench.plan", "battery": {"name": "tiny"},
                   "runs": [{"key": "mqar/diag/never-run/seed:99"}, {"key": "mqar/diag/never-run/seed:98"}]}, f)
    p = run("compare", "--baseline-history", dbg, "--current", partial_b, expect=0,
            contains="2 planned run(s) have no result")
    check(p.stdout.startswith("verdict: inconclusive"), "partial store's verdict:\n" + p.stdout)
    run("compare", "--baseline-history", dbg, "--current", partial_b, "--fail-on-inconclusive", expect=3)
    pmd = os.path.join(tmp, "partial.md")
    run("report", partial_b, "--baseline-history", dbg, "--md", pmd, expect=0)
    check("Planned but not run" in open(pmd).read(), "report.md does not list the planned runs without result")
    pbase = os.path.join(tmp, "partial_base.json")
    run("baseline", "update", "tiny", "--results", partial_b, "--out", pbase, expect=2, contains="--allow-partial")
    check(not os.path.exists(pbase), "a refused baseline update wrote a file")
    p = run("baseline", "update", "tiny", "--results", partial_b, "--out", pbase, "--allow-partial",
            contains="recorded without 2 planned run(s)")
    # Issue 47: a first baseline says so (no "0 dropped since the previous baseline"), and "git add" is only
    # suggested for a file inside a git checkout (tmp is not one).
    check("a new baseline (there was none)" in p.stdout and "git add" not in p.stdout,
          "baseline update --out outside a checkout:\n" + p.stdout)
    p = run("baseline", "update", "tiny", "--results", partial_b, "--out", pbase, "--allow-partial")
    check("0 new, 0 dropped since the previous baseline" in p.stdout, "a baseline replaced:\n" + p.stdout)
    in_repo = os.path.join(repo, "tiny.json")
    run("baseline", "update", "tiny", "--results", partial_b, "--out", in_repo, "--allow-partial",
        contains="git add " + in_repo)
    run("baseline", "show", pbase, contains="mqar")

    # Issue 47: configs that differ only in their recipe (a learning rate) are labelled by what differs.
    dbl = os.path.join(tmp, "lr.sqlite")
    lines = []
    for key, lr in (("k1", 0.001), ("k3", 0.003)):
        for seed in range(3):
            lines.append(dict(good, config=key, seed=seed))
        doc = {"cell": "diag", "task": "mqar", "task_options": {"pairs": 4}, "train": {"lr": lr, "steps": 100}}
        lines.append({"commit": "abc1", "date": "2026-01-01", "config": key, "config_document": doc})
    run("history", "import", "-", "--db", dbl, stdin="".join(json.dumps(l) + "\n" for l in lines))
    log = run("history", "log", "--db", dbl).stdout
    check("lr 0.001" in log and "lr 0.003" in log, "configs differing in lr share a label:\n" + log)

    # Changes on a simulated lock-in drop at commit 17 of 30.
    sim = subprocess.run([sys.executable, SIMULATE, "lockin"], check=True, capture_output=True, text=True).stdout
    db3 = os.path.join(tmp, "sim.sqlite")
    run("history", "import", "-", "--db", db3, stdin=sim)
    commits = [json.loads(l)["commit"] for l in sim.splitlines() if '"subject"' in l]
    changes = json.loads(run("history", "changes", "--json", "--db", db3).stdout)
    hit = [x for x in changes if x["config"] == "cfg0" and x["metric"] == "lock-in"]
    check(len(hit) == 1 and hit[0]["commit"] == commits[16], "lock-in drop not found at commit 17: %s" % hit)
    check(all(x["config"] == "cfg0" for x in changes), "a change reported in an unchanged config: %s" % changes)
    html, md, js = (os.path.join(tmp, "trend." + e) for e in ("html", "md", "json"))
    run("history", "report", "--db", db3, "--html", html, "--md", md, "--json", js)
    doc = json.load(open(js))
    check(doc["kind"] == "recallbench.history_report" and len(doc["commits"]) == 30, "trend document")
    check(commits[16][:7] in open(html).read(), "the trend page does not name the change's commit")
    # Issue 47: without an output named, `history report` writes every form into history-report/ here.
    here = os.path.join(tmp, "here")
    os.mkdir(here)
    p = subprocess.run([RB, "history", "report", "--db", db3], capture_output=True, text=True, cwd=here)
    check(p.returncode == 0 and all(os.path.isfile(os.path.join(here, "history-report", "history." + e))
                                    for e in ("html", "md", "json")), "history report default outputs: " + p.stderr)
    # Issue 47: one change is one entry: no drift of a config spans a step of the same config (in any metric).
    # Both histories had one (a lock-in step with a time drift over it; a lock-in and a time step with a recall
    # drift over them) before drifts were dropped across a config's metrics.
    for scenario, extra in (("lockin", ["--commits", "8", "--at", "5", "--seeds", "20", "--seed", "2", "--same-seeds"]),
                            ("lockin", ["--commits", "12", "--at", "7", "--seeds", "20", "--seed", "1"])):
        sim8 = subprocess.run([sys.executable, SIMULATE, scenario, *extra], check=True,
                              capture_output=True, text=True).stdout
        db8 = os.path.join(tmp, "%s-%s.sqlite" % (scenario, extra[1]))
        run("history", "import", "-", "--db", db8, stdin=sim8)
        order = [json.loads(l)["commit"] for l in sim8.splitlines() if '"subject"' in l]
        found = json.loads(run("history", "changes", "--json", "--db", db8).stdout)
        check(any(x["kind"] == "step" for x in found), "%s %s: the planted step is not found: %s" % (scenario, extra, found))
        for d in (x for x in found if x["kind"] == "drift"):
            lo, hi = (order.index(d.get(f, d["commit"])) for f in ("first_commit", "last_commit"))
            steps = [x for x in found if x["kind"] == "step" and x["config"] == d["config"]
                     and lo <= order.index(x["commit"]) <= hi]
            check(not steps, "%s %s: a drift over commits %d-%d repeats a step: %s" % (scenario, extra, lo + 1, hi + 1, found))
finally:
    shutil.rmtree(tmp)

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
