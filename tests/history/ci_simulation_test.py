#!/usr/bin/env python3
"""CI-like simulated histories (tests/history/simulate_ci.py) through `recallbench history import` and
`history changes --json`: under the null of docs/tracking.md (unchanged commits repeat every seed bit for bit,
neutral numerical commits redraw all or some seeds from the same distribution) a history reports any change
at most at alpha; planted changes are found at their epoch, with the power stated.

  ci_simulation_test.py RECALLBENCH [--null N] [--replicates R] [--out FILE.md]

Deterministic: history r of a row uses generator seed r. Fails when a null row's false-alarm rate is
significantly above alpha (its exact 95% interval lies above 0.05), or a planted row's power falls below the
floor written beside it.
"""
import argparse
import sys

from scipy_free_stats import clopper_pearson  # noqa: E402  (this folder)
from simulation_test import simulated_changes  # noqa: E402



def history(rb, seed, *extra):
    return simulated_changes(rb, "simulate_ci.py", "--seed", str(seed), *extra)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rb")
    ap.add_argument("--null", type=int, default=40)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--out")
    a = ap.parse_args()
    rows, failures = [], []
    nulls = [
        ("12 commits, 2 neutral commits redrawing every seed", ["--keep", "0"]),
        ("12 commits, 2 neutral commits, each seed kept with p 0.5-0.9", ["--keep", "0.5-0.9"]),
        ("30 commits, 6 neutral commits, each seed kept with p 0.5-0.9", ["--commits", "30", "--neutral", "6",
                                                                           "--keep", "0.5-0.9"]),
        ("12 commits, 2 neutral commits, 30 seeds redrawn", ["--seeds", "30", "--keep", "0"]),
    ]
    for name, extra in nulls:
        alarms = sum(1 for r in range(1, a.null + 1) if history(a.rb, r, *extra)[1])
        lo, hi = clopper_pearson(alarms, a.null)
        rows.append((name, "-", f"{alarms}/{a.null} = {100 * alarms / a.null:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)"))
        if lo > 0.05:
            failures.append(f"{name}: {alarms}/{a.null} histories with a change, significantly above alpha 0.05")

    # name, extra args, predicate(commits, changes) -> found at the planted epoch, power floor (share)
    def at(i, metric):
        return lambda cs, ch: any(x["config"] == "cfg0" and x["metric"] == metric and x["commit"] == cs[i - 1]
                                  and x["direction"] == "regression" for x in ch)

    def regressed(metric):
        return lambda cs, ch: any(x["config"] == "cfg0" and x["metric"] == metric and x["direction"] == "regression"
                                  for x in ch)

    def at_battery(i, metric):
        return lambda cs, ch: any(x["metric"] == metric and x["commit"] == cs[i - 1] and x["direction"] == "regression"
                                  for x in ch)

    def battery_regressed(metric):  # a change on every config: the battery's pooled test, or any config's own
        return lambda cs, ch: any(x["metric"] == metric and x["direction"] == "regression" for x in ch)

    planted = [
        ("time to lock-in x1.4 at commit 7, 10 seeds", ["--plant", "time"], at(7, "time"), 0.0),
        ("time to lock-in x1.4 at commit 7, 20 seeds", ["--plant", "time", "--seeds", "20"], at(7, "time"), 0.8),
        ("lock-in -30 points at commit 7, 10 seeds", ["--plant", "lockin"], at(7, "lock-in"), 0.0),
        ("lock-in -30 points at commit 7, 30 seeds", ["--plant", "lockin", "--seeds", "30"], at(7, "lock-in"), 0.3),
        ("creep: time x1.15 at commits 7-10 (x1.75), 10 seeds", ["--plant", "creep"], regressed("time"), 0.0),
        ("creep: time x1.15 at commits 7-10 (x1.75), 20 seeds", ["--plant", "creep", "--seeds", "20"],
         regressed("time"), 0.8),
        # Every config hit: the battery's pooled tests (the configs' pairs together) see what each config's alone
        # cannot; "elsewhere" does not count the battery's own changes.
        ("creep on every config: time x1.15 at commits 7-10, 10 seeds", ["--plant", "creep", "--hit", "all"],
         battery_regressed("time"), 0.7),
        ("time to lock-in x1.15 at commit 7 on every config, 10 seeds",
         ["--plant", "time", "--factor", "1.15", "--hit", "all"], at_battery(7, "time"), 0.7),
        ("lock-in -30 points at commit 7 on every config, 10 seeds", ["--plant", "lockin", "--hit", "all"],
         battery_regressed("lock-in"), 0.0),
    ]
    for name, extra, found, floor in planted:
        hits, wrong = 0, 0
        for r in range(1, a.replicates + 1):
            commits, changes = history(a.rb, r, *extra)
            hits += 1 if found(commits, changes) else 0
            wrong += 1 if any(x["config"] not in ("cfg0", "battery") for x in changes) else 0
        rows.append((name, f"{hits}/{a.replicates}", "-" if "--hit" in extra else str(wrong)))
        if hits < floor * a.replicates:
            failures.append(f"{name}: found in {hits}/{a.replicates}, expected at least {floor:.0%}")
    table = ["| CI-like history (seeds 0..N-1 rerun at every commit, 4 configs) | planted change found at its epoch "
             "| histories with a change elsewhere (null rows: any change) |", "| --- | --- | --- |"]
    table += [f"| {n} | {f} | {w} |" for n, f, w in rows]
    text = "\n".join(table) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
