#!/usr/bin/env bash
# `recallbench leaderboard` and `recallbench verify` end to end on planted run documents: rows added by
# --add, new cells shown beside them by --results, every mismatch refused with exit 2 and the stored file
# left byte-identical; a claim and its reversed copy (gated) give reproduced / contradicted and exits 0 / 1.
#   leaderboard_cli.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
here="$2/tests/reports"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"

plan() {  # plan DIR NAME SEEDS: the runner's plan.json for a battery NAME with these seeds
  mkdir -p "$1"
  printf '{"schema_version":1,"kind":"recallbench.plan","battery":{"schema_version":1,"name":"%s","cells":"all","seeds":%s,"recipes":[{"name":"lb","steps":400}]},"runs":[],"contrasts":[]}' \
    "$2" "$3" >"$1/plan.json"
}
python3 "$here/plant.py" "$tmp/stored" diag+conv:10:10 diag:1:10 rank1+conv:9:10 || exit 1
plan "$tmp/stored" leaderboard "[0,1,2,3,4,5,6,7,8,9]"
lb="$tmp/lb.json"
expect 2 "file not found" -- leaderboard --file "$lb"
expect 0 "3 rows (diag, diag+conv, rank1+conv)" -- leaderboard --file "$lb" --add "$tmp/stored"
expect 0 "1=    diag+conv" -- leaderboard --file "$lb"
cp "$lb" "$tmp/lb.before"

# A new cell beside the stored rows (not written into the file), with the pages.
python3 "$here/plant.py" "$tmp/new" rank1:0:10 || exit 1
plan "$tmp/new" leaderboard "[0,1,2,3,4,5,6,7,8,9]"
expect 0 "0/10   (new)" -- leaderboard --file "$lb" --results "$tmp/new" \
  --html "$tmp/lb.html" --md "$tmp/lb.md" --json "$tmp/lb.standing.json"
grep -q '\*\*rank1\*\* (new)' "$tmp/lb.md" || { echo "FAIL: Markdown lacks the new row"; fail=1; }
grep -q 'class="new' "$tmp/lb.html" || { echo "FAIL: HTML does not highlight the new row"; fail=1; }
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['kind']=='recallbench.leaderboard.standing'" \
  "$tmp/lb.standing.json" || { echo "FAIL: standing JSON"; fail=1; }
cmp -s "$lb" "$tmp/lb.before" || { echo "FAIL: --results changed the stored file"; fail=1; }

# Mismatches: exit 2, the stored file untouched.
plan "$tmp/new" leaderboard "[0,1,2]"
expect 2 "differ in: seeds" -- leaderboard --file "$lb" --add "$tmp/new"
plan "$tmp/new" smoke "[0,1,2,3,4,5,6,7,8,9]"
expect 2 "battery 'smoke', but the leaderboard is battery 'leaderboard'" -- leaderboard --file "$lb" --add "$tmp/new"
rm "$tmp/new/plan.json"
expect 2 "no plan.json" -- leaderboard --file "$lb" --add "$tmp/new"
cmp -s "$lb" "$tmp/lb.before" || { echo "FAIL: a refused --add changed the stored file"; fail=1; }
sed 's/"schema_version": 1,/"schema_version": 2,/' "$lb" >"$tmp/v2.json"
expect 2 "expected 1" -- leaderboard --file "$tmp/v2.json"
printf '{"kind": "recallbench.leaderboard", ' >"$tmp/half.json"
expect 2 "malformed JSON" -- leaderboard --file "$tmp/half.json"
# Issue 28: a cell description of another type (from a sidecar, outside the config key) is not shown, never
# exit 4.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [c.update(cell_info={'description': 5}) for r in d['rows'] for c in r['configs']]; json.dump(d, open(sys.argv[2], 'w'))" \
  "$lb" "$tmp/desc5.json"
expect 0 "1=    diag+conv" -- leaderboard --file "$tmp/desc5.json" --md "$tmp/desc5.md" --html "$tmp/desc5.html"

# verify: a claim and its reversed copy, gated.
cat >"$tmp/claims.json" <<'JSON'
{"schema_version": 1, "kind": "recallbench.claims", "claims": [
 {"id": "conv", "claim": "the convolution helps", "gate": true,
  "a": {"cell": "diag+conv", "task": "mqar"}, "b": {"cell": "diag", "task": "mqar"},
  "statistic": "fisher", "direction": "greater", "effect": {"a": 0.9, "b": 0.1}},
 {"id": "later", "claim": "at length 1024 too", "needs": "length 1024",
  "a": {"cell": "diag+conv", "task": "mqar", "task_options": {"length": 1024}}, "b": {"cell": "diag", "task": "mqar"},
  "statistic": "fisher", "direction": "greater", "effect": {"a": 0.9, "b": 0.1}}]}
JSON
expect 0 "reproduced    conv" -- verify --claims "$tmp/claims.json" --results "$tmp/stored" --md "$tmp/v.md" \
  --html "$tmp/v.html" --json "$tmp/v.json"
expect 0 "not run       later" -- verify --claims "$tmp/claims.json" --results "$tmp/stored"
sed -e 's/"direction": "greater", "effect": {"a": 0.9, "b": 0.1}}, *$/"direction": "less", "effect": {"a": 0.1, "b": 0.9}},/' \
  "$tmp/claims.json" >"$tmp/reversed.json"
expect 1 "contradicted  conv" -- verify --claims "$tmp/reversed.json" --results "$tmp/stored"
sed 's/"statistic": "fisher"/"statistic": "t-test"/' "$tmp/claims.json" >"$tmp/bad.json"
expect 2 "expected fisher, mann-whitney" -- verify --claims "$tmp/bad.json" --results "$tmp/stored"
# Issue 28: runs whose task options are null (the keys recomputed to match): exit 2 naming the field, never exit 4.
python3 - "$here/plant.py" "$tmp/stored" "$tmp/nullopts" <<'PY'
import glob, importlib.util, json, os, shutil, sys
spec = importlib.util.spec_from_file_location("plant", sys.argv[1])
plant = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plant)
shutil.copytree(sys.argv[2], sys.argv[3])
for f in glob.glob(sys.argv[3] + "/runs/*.json"):
    d = json.load(open(f))
    d["spec"]["task"]["options"] = None
    d["config_key"] = d["config_key"].rsplit("/", 1)[0] + "/" + plant.short_hash({k: v for k, v in d["spec"].items() if k != "seed"})
    d["key"] = d["config_key"] + "/seed:%d" % d["spec"]["seed"]
    json.dump(d, open(f, "w"))
PY
expect 2 "field 'spec.task.options' got null, expected an object" -- verify --claims "$tmp/claims.json" --results "$tmp/nullopts"
# The claims section of the report.
expect 0 "verdict: no baseline" -- report "$tmp/stored" --claims "$tmp/claims.json" --md "$tmp/r.md" --html "$tmp/r.html" \
  --json "$tmp/r.json"
grep -q "### Claims (recallbench verify)" "$tmp/r.md" || { echo "FAIL: the Markdown report lacks the claims"; fail=1; }
grep -q 'id="claims"' "$tmp/r.html" || { echo "FAIL: the HTML report lacks the claims"; fail=1; }
grep -q '"kind": "recallbench.verdicts"' "$tmp/r.json" || { echo "FAIL: the JSON report lacks the claims"; fail=1; }
# The gated smoke claim against the stored smoke baseline (what ci/gate checks on every commit).
expect 0 "reproduced    conv-dominates-rank1-smoke" -- verify --claims "$2/ci/claims/smoke-claims.json" \
  --results "$2/ci/baselines/smoke.json"

# `tune`: per cell the rate chosen on the tuning seeds (issue 44): diag locks in 4/4 at 1e-3, 1/4 at 3e-3 and
# 0/4 at 1e-2 on seeds 0-3; seeds 4-9 (planted beside them) are left out; a tuning seed with no run is refused.
python3 "$here/plant.py" "$tmp/tune" diag:10:10:400:0:4096:300:0.001 diag:1:10:400:0:4096:300:0.003 \
  diag:0:10:400:0:4096:300:0.01 || exit 1
expect 0 "chosen 0.001 (most lock-ins), at the edge of the grid: widen it; 18 run(s) of other seeds left out" -- \
  tune "$tmp/tune" --seeds 0-3 --json "$tmp/tune.json"
expect 0 "4/4" -- tune "$tmp/tune" --seeds 0-3
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['kind']=='recallbench.tuning' and d['cells'][0]['lr']==0.001" \
  "$tmp/tune.json" || { echo "FAIL: tuning JSON"; fail=1; }
expect 0 "at mqar length:64 pairs:8 vocab:256 alone:" -- tune "$tmp/tune" --seeds 0-3 --by-point
expect 2 "no run of a tuning seed" -- tune "$tmp/tune" --seeds 100-101
exit $fail
