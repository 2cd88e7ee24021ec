#!/usr/bin/env python3
"""The planted-bug table of docs/gate-evidence.md, from a planted_bugs.sh work directory.

    tests/gate/evidence_table.py WORK [--manifest tests/gate/mutations/MANIFEST]

WORK is the --keep directory of tests/gate/planted_bugs.sh: WORK/results/<mutation>/report.json per mutation.
One Markdown row per mutation of the manifest that has a report, in the manifest's order: the verdict, and
per config the lock-in count over the paired seeds of the stopping look, the ratio of restricted mean steps
to lock-in, the pairs where the mutated run is worse (later, or lower recall where the baseline never locks
in), better or tied, the pairs where only one run locks in (lost / gained), and the looks used.
"""
import argparse
import json
import os
import sys


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
    with open(a.manifest) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, label = line.split("\t")[:2]
            path = os.path.join(a.work, "results", name, "report.json")
            if not os.path.exists(path):
                continue
            with open(path) as r:
                doc = json.load(r)
            comparison = doc.get("comparison") or {}
            configs = "; ".join(config_cell(c) for c in comparison.get("configs", []))
            rows.append(f"| `{name}` | {label} | {comparison.get('verdict', '?')} | {configs} |")
    if not rows:
        sys.exit(f"evidence_table: no report.json under {a.work}/results")
    print("| mutation | label | verdict | per config: lock-in baseline→current (paired seeds), time ratio, "
          "pairs worse↑ better↓ tied=, pairs where only one run locks in, looks: verdict |")
    print("|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
