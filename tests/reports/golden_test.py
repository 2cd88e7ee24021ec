#!/usr/bin/env python3
"""Golden files of every document the report layer writes (STYLE: golden tests with volatile fields masked).

  golden_test.py RECALLBENCH SOURCE_DIR           compare with tests/reports/golden/ (ctest: reports.golden)
  RECALLBENCH_BLESS=1 ctest --test-dir build -R reports.golden
                                                  after an intended change: rewrite the golden files from this
                                                  build, then review `git diff tests/reports/golden` and commit it

Each case runs one recallbench command in a scratch directory, on the fixtures only (tests/reports/data: the
real runs, claims.json, bench-base.json, bench-current.json and history.json; tests/reports/plant.py for planted runs), with
relative paths, and keeps what it wrote (HTML, Markdown, JSON) plus its console (stdout, stderr, exit code) as
tests/reports/golden/<case>/<file>:
  report              `report` on the fixture runs alone (no baseline)
  report-gated        `report` against a baseline recorded from the same runs, a plan.json declaring a contrast,
                      --bench and --claims (verdict table, survival charts, power, kernels and claims sections)
  report-regression   `report` of planted runs against a planted baseline: a regression, a missing and a new config
  leaderboard         `leaderboard` of three stored planted cells at three task points and a new one beside them
  claims              `verify` of tests/reports/data/claims.json (every verdict kind) on the fixture runs
  speed-gate          `compare` of two Google Benchmark files: regression, improvement, inconclusive,
                      unreliable, missing, new, the ceiling shown but not gated
  speed-gate-reference  the same with --reference (times relative to the GEMM ceiling of the same file)
  speed-noise         `compare --aa`: the A/A noise calibration
  history             `history report --document` of tests/reports/data/history.json (a trend document: six
                      commits, three configs, two benchmarks, two claims, regressions, an improvement, ranges)
What varies between runs and machines is masked before comparing: every ISO timestamp (the "generated",
"created", "added" and "updated" fields, the claims page's date) becomes <timestamp>, the scratch directory
<tmp> and the source directory <src>; in JSON, numbers keep 10 significant digits (the last bits of a p-value
may differ between libm builds). The fixtures' own contexts (commit, host, CPU) are fixed, so they stay. HTML
is stored with a line break before each block tag and SVG element, so that a difference shows as a readable diff.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

BLESS_ENV = "RECALLBENCH_BLESS"
BLESS_COMMAND = BLESS_ENV + "=1 ctest --test-dir build -R reports.golden"

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")
BLOCK_TAG = re.compile(r"(?<!\n)(?=<(?:/?(?:section|table|thead|tbody|ul|dl|figure|svg|header|main)|tr|h1|h2|p|div"
                       r"|li|dt|style|script|g|line|polyline|circle|rect|path|text)[\s>/])")
JSON_NUMBER = re.compile(r'("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')

# Planted runs (tests/reports/plant.py CELL:K:N[:STEPS[:BUDGET[:STATE[:LOCK_STEP]]]]) and plan.json files.
PLANT = {
    "base": ["diag+conv:6:6", "diag:3:6", "rank1:5:6"],
    "cur": ["diag+conv:0:6", "diag:3:6", "rank1+conv:6:6"],
    "stored": ["diag+conv:10:10", "diag:1:10", "rank1+conv:9:10", "diag+conv:10:10:800", "diag:0:10:800",
               "rank1+conv:4:10:800:0:4096:500", "diag+conv:0:10:200", "diag:0:10:200", "rank1+conv:0:10:200"],
    "new": ["rank1:0:10"],
}
LEADERBOARD_PLAN = ('{"schema_version":1,"kind":"recallbench.plan","battery":{"schema_version":1,"name":"leaderboard",'
                    '"cells":"all","seeds":[0,1,2,3,4,5,6,7,8,9],"recipes":[{"name":"lb","steps":400}]},'
                    '"runs":[],"contrasts":[]}')
FIXTURE_PLAN = ('{"schema_version":1,"kind":"recallbench.plan","battery":{"schema_version":1,"name":"fixture",'
                '"cells":["diag","diag+conv"]},"runs":[],"contrasts":[{"name":"conv: diag+conv vs diag, mqar pairs:2",'
                '"knob":"conv","a":"mqar/diag+conv/filler:zero/length:16/pairs:2/power_a:0.01/vocab:32/bc6e01674065",'
                '"b":"mqar/diag/filler:zero/length:16/pairs:2/power_a:0.01/vocab:32/adf5bed35f3a"}]}')

# Commands that prepare a case's inputs (their output is not compared; they must exit 0).
SETUP = [
    ["baseline", "update", "fixture", "--results", "data", "--out", "baseline.json"],
    ["baseline", "update", "smoke", "--results", "base", "--out", "smoke.json"],
    ["leaderboard", "--file", "lb.json", "--add", "stored"],
]

# (case, recallbench arguments, files it writes)
CASES = [
    ("report", ["report", "data", "--json", "report.json", "--html", "report.html", "--md", "report.md"],
     ["report.json", "report.html", "report.md"]),
    ("report-gated", ["report", "battery", "--baseline", "baseline.json", "--bench", "data/bench-base.json",
                      "--claims", "data/claims.json", "--json", "report.json", "--html", "report.html", "--md",
                      "report.md"],
     ["report.json", "report.html", "report.md"]),
    ("report-regression", ["report", "cur", "--baseline", "smoke.json", "--json", "report.json", "--html",
                           "report.html", "--md", "report.md"],
     ["report.json", "report.html", "report.md"]),
    ("leaderboard", ["leaderboard", "--file", "lb.json", "--results", "new", "--html", "leaderboard.html", "--md",
                     "leaderboard.md", "--json", "standing.json"],
     ["leaderboard.html", "leaderboard.md", "standing.json"]),
    ("claims", ["verify", "--claims", "data/claims.json", "--results", "data", "--html", "claims.html", "--md",
                "claims.md", "--json", "verdicts.json"],
     ["claims.html", "claims.md", "verdicts.json"]),
    ("speed-gate", ["compare", "--baseline", "data/bench-base.json", "--current", "data/bench-current.json",
                    "--json", "speed.json", "--md", "speed.md"],
     ["speed.json", "speed.md"]),
    ("speed-gate-reference", ["compare", "--reference", "ceiling/gemm_fp32/N:512/process_time", "--baseline",
                              "data/bench-base.json", "--current", "data/bench-current.json", "--json", "speed.json",
                              "--md", "speed.md"],
     ["speed.json", "speed.md"]),
    ("speed-noise", ["compare", "--aa", "--baseline", "data/bench-base.json", "--current", "data/bench-current.json",
                     "--json", "noise.json", "--md", "noise.md"],
     ["noise.json", "noise.md"]),
    ("history", ["history", "report", "--document", "data/history.json", "--html", "history.html", "--md",
                 "history.md"],
     ["history.html", "history.md"]),
]


def round_numbers(text):
    """JSON numbers to 10 significant digits (integers and strings untouched)."""
    def one(m):
        if m.group(1) is not None:
            return m.group(1)
        number = m.group(2)
        if not any(c in number for c in ".eE"):
            return number
        return repr(float("%.10g" % float(number)))
    return JSON_NUMBER.sub(one, text)


def mask(name, text, tmp, src):
    text = text.replace(tmp, "<tmp>").replace(src, "<src>")
    text = TIMESTAMP.sub("<timestamp>", text)
    if name.endswith(".json"):
        text = round_numbers(text)
    if name.endswith(".html"):
        text = BLOCK_TAG.sub("\n", text)
    return text


def run(rb, args, cwd):
    return subprocess.run([rb] + args, cwd=cwd, capture_output=True, text=True, timeout=300)


def prepare(rb, src, tmp):
    here = os.path.join(src, "tests", "reports")
    shutil.copytree(os.path.join(here, "data"), os.path.join(tmp, "data"))
    shutil.copytree(os.path.join(here, "data", "runs"), os.path.join(tmp, "battery", "runs"))
    with open(os.path.join(tmp, "battery", "plan.json"), "w") as f:
        f.write(FIXTURE_PLAN)
    for out, cells in PLANT.items():
        subprocess.run([sys.executable, os.path.join(here, "plant.py"), os.path.join(tmp, out)] + cells, check=True)
    for out in ("stored", "new"):
        with open(os.path.join(tmp, out, "plan.json"), "w") as f:
            f.write(LEADERBOARD_PLAN)
    for args in SETUP:
        r = run(rb, args, tmp)
        if r.returncode != 0:
            sys.exit("golden: setup `recallbench %s` exited %d:\n%s%s" % (" ".join(args), r.returncode, r.stdout,
                                                                          r.stderr))


def produce(rb, src, tmp):
    """{case: {file: masked text}} for every case."""
    docs = {}
    for case, args, files in CASES:
        r = run(rb, args, tmp)
        console = "$ recallbench %s\n%s" % (" ".join(args), r.stdout)
        if r.stderr:
            console += "[stderr]\n" + r.stderr
        console += "[exit %d]\n" % r.returncode
        out = {"console.txt": mask("console.txt", console, tmp, src)}
        for name in files:
            path = os.path.join(tmp, name)
            if not os.path.exists(path):
                sys.exit("golden: case %s: recallbench %s wrote no %s (exit %d):\n%s%s" %
                         (case, " ".join(args), name, r.returncode, r.stdout, r.stderr))
            with open(path, encoding="utf-8") as f:
                out[name] = mask(name, f.read(), tmp, src)
            os.remove(path)  # the next case must write its own
        docs[case] = out
    return docs


def bless(golden, docs):
    if os.path.isdir(golden):
        shutil.rmtree(golden)
    for case, files in docs.items():
        os.makedirs(os.path.join(golden, case))
        for name, text in files.items():
            with open(os.path.join(golden, case, name), "w", encoding="utf-8") as f:
                f.write(text)
    print("blessed %d files in %d cases under %s: review `git diff tests/reports/golden` and commit it" %
          (sum(len(f) for f in docs.values()), len(docs), golden))


def compare(golden, docs, max_lines=80):
    failures = 0
    expected_paths = set()
    for case, files in docs.items():
        for name, text in files.items():
            rel = os.path.join(case, name)
            expected_paths.add(rel)
            path = os.path.join(golden, rel)
            if not os.path.exists(path):
                print("FAIL: %s: no golden file (a new case or file?)" % rel)
                failures += 1
                continue
            with open(path, encoding="utf-8") as f:
                want = f.read()
            if want == text:
                print("ok: %s" % rel)
                continue
            failures += 1
            diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), "golden/" + rel, "now/" + rel,
                                             lineterm="", n=2))
            print("FAIL: %s differs from its golden file (%d diff lines):" % (rel, len(diff)))
            for line in diff[:max_lines]:
                print("  " + (line if len(line) <= 400 else line[:400] + " …"))
            if len(diff) > max_lines:
                print("  … %d more diff lines" % (len(diff) - max_lines))
    for root, _, names in os.walk(golden):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), golden)
            if rel not in expected_paths:
                print("FAIL: %s: a golden file no case writes any more" % rel)
                failures += 1
    return failures


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rb, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    golden = os.path.join(src, "tests", "reports", "golden")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        prepare(rb, src, tmp)
        docs = produce(rb, src, tmp)
    if os.environ.get(BLESS_ENV):
        bless(golden, docs)
        return 0
    failures = compare(golden, docs)
    if failures:
        print("%d golden file(s) differ. If the change is intended, rewrite them with\n  %s\nthen review "
              "`git diff tests/reports/golden` and commit it with the change." % (failures, BLESS_COMMAND))
        return 1
    print("ok: every document matches its golden file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
