#!/usr/bin/env python3
"""The planted-bug table of docs/gate-evidence.md, from a planted_bugs.sh work directory.

    tests/gate/evidence_table.py WORK [--manifest tests/gate/mutations/MANIFEST]

WORK is the --keep directory of tests/gate/planted_bugs.sh: WORK/results/<mutation>/report.json per mutation
(WORK/results/<mutation>@<value> per replicate). One Markdown row per mutation (and replicate) of the
manifest that has a report, in the manifest's order, then the false-alarm count of the replicated neutral
perturbations with its exact interval: the verdict, and
per config the lock-in count over the paired seeds of the stopping look, the ratio of restricted mean steps
to lock-in, the pairs where the mutated run is worse (later, or lower recall where the baseline never locks
in), better or tied, the pairs where only one run locks in (lost / gained), and the looks used.
"""
import argparse
import json
import os
import sys


# Verdicts that fail the gate (exit 1 or 2).
ALARMS = {"regression", "model changed", "task changed", "data stream changed", "seeds not independent"}


def config_cell(c):
    name = c["cell"]
    if c["verdict"] in ("model changed", "task changed", "data stream changed", "seeds not independent"):
        return f"{name}: {c['verdict']}"
    p = c.get("primary") or {}
    b, cur = c["baseline"], c["current"]
    looks = len(p.get("looks") or [])
    lost = p.get("lock_in_lost")
    lock = f", lost {lost} gained {p.get('lock_in_gained')}" if lost is not None else ""
    return (f"{name} {b['locked_in']}/{b['seeds']}→{cur['locked_in']}/{cur['seeds']} "
            f"×{c.get('time_to_lock_in_ratio', 1.0):.2f}, {p.get('worse', 0)}↑{p.get('better', 0)}↓"
            f"{p.get('tied', 0)}={lock} in {looks} look(s): {c['verdict']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("work")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--manifest", default=os.path.join(here, "mutations", "MANIFEST"))
    a = ap.parse_args()
    rows = []
    replicated = []  # (verdict is a false alarm) per neutral replicate: the paired gate's A/A
    with open(a.manifest) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            name, label = fields[:2]
            values = [v for v in fields[3].split(",") if v] if len(fields) > 3 else []
            for run in [f"{name}@{v}" for v in values] if values else [name]:
                path = os.path.join(a.work, "results", run, "report.json")
                if not os.path.exists(path):
                    continue
                with open(path) as r:
                    doc = json.load(r)
                comparison = doc.get("comparison") or {}
                verdict = comparison.get("verdict", "?")
                configs = "; ".join(config_cell(c) for c in comparison.get("configs", []))
                rows.append(f"| `{run}` | {label} | {verdict} | {configs} |")
                if values and label == "neutral":
                    replicated.append(verdict in ALARMS)
    if not rows:
        sys.exit(f"evidence_table: no report.json under {a.work}/results")
    print("| mutation | label | verdict | per config: lock-in baseline→current (paired seeds), time ratio, "
          "pairs worse↑ better↓ tied=, pairs where only one run locks in, looks: verdict |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    if replicated:
        sys.path.insert(0, os.path.join(here, "..", "history"))
        from scipy_free_stats import clopper_pearson
        k, n = sum(replicated), len(replicated)
        lo, hi = clopper_pearson(k, n)
        print(f"\nFalse alarms over the replicated neutral numerical perturbations: {k}/{n} runs, "
              f"95% exact interval {lo:.3f}–{hi:.3f}.")


if __name__ == "__main__":
    main()
