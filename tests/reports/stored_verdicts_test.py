#!/usr/bin/env python3
"""The stored claims verdicts are what `verify` gives on the stored runs: ci/claims/verdicts.json (and the
table in docs/claims.md made from the same command) must match, claim by claim, the verdict of
`recallbench verify` on ci/claims/seed-claims.json with every stored result file (ci/claims/*-results.json). A
change to a verdict rule that moves a stored verdict fails here until verdicts.json and docs/claims.md are
remade (the command is in docs/claims.md).

  stored_verdicts_test.py RECALLBENCH SOURCE_DIR
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

rb, src = sys.argv[1], sys.argv[2]
claims = os.path.join(src, "ci/claims/seed-claims.json")
results = sorted(glob.glob(os.path.join(src, "ci/claims/*-results.json")))
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "verdicts.json")
    p = subprocess.run([rb, "verify", "--claims", claims, "--results", *results, "--json", out], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: verify exited %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    now = {v["id"]: v["verdict"] for v in json.load(open(out))["verdicts"]}
stored = {v["id"]: v["verdict"] for v in json.load(open(os.path.join(src, "ci/claims/verdicts.json")))["verdicts"]}
docs = open(os.path.join(src, "docs/claims.md")).read()
failures = []
for cid in sorted(set(now) | set(stored)):
    if now.get(cid) != stored.get(cid):
        failures.append("%s: verify gives %r, ci/claims/verdicts.json says %r" % (cid, now.get(cid), stored.get(cid)))
    elif "| `%s` | **%s** |" % (cid, now[cid]) not in docs:
        failures.append("%s: docs/claims.md's table lacks the row with verdict %r" % (cid, now[cid]))
if failures:
    sys.exit("FAIL:\n  " + "\n  ".join(failures))
print("ok: %d stored verdicts match verify on the stored runs" % len(now))
