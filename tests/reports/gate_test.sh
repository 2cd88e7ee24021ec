#!/usr/bin/env bash
# The regression gate end to end through the command line, on planted run documents:
# exit codes (0 no regression, 1 regression, 2 bad input, 3 inconclusive with --fail-on-inconclusive)
# and the messages that name what happened.
#   gate_test.sh RECALLBENCH SOURCE_DIR
set -u
rb="$1"
here="$2/tests/reports"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plant() { python3 "$here/plant.py" "$@" || { echo "FAIL: plant.py $*"; exit 1; }; }

# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"  # expect CODE PATTERN -- ARGS...

# A planted regression: 6/6 lock-ins in the baseline, 0/6 now; another config unchanged.
plant "$tmp/base" diag+conv:6:6 diag:3:6
plant "$tmp/regressed" diag+conv:0:6 diag:3:6
expect 0 "wrote $tmp/smoke.json: 2 configs, 12 runs" -- baseline update smoke --results "$tmp/base" --out "$tmp/smoke.json"
expect 0 "6/6" -- baseline show "$tmp/smoke.json"
expect 1 "regression   mqar/diag+conv/" -- compare --baseline "$tmp/smoke.json" --current "$tmp/regressed"
expect 1 "lock-in 6/6 → 0/6" -- compare --baseline "$tmp/smoke.json" --current "$tmp/regressed"
expect 1 "verdict: regression" -- report "$tmp/regressed" --baseline "$tmp/smoke.json" --html "$tmp/r.html" \
  --json "$tmp/r.json" --md "$tmp/r.md"
grep -q "## recallbench: regression" "$tmp/r.md" || { echo "FAIL: Markdown summary lacks the verdict"; fail=1; }
grep -q "Verdict: regression" "$tmp/r.html" || { echo "FAIL: HTML lacks the verdict"; fail=1; }
grep -q '"verdict": "regression"' "$tmp/r.json" || { echo "FAIL: JSON lacks the verdict"; fail=1; }
# Results of another battery against this baseline: refused (the shared keys would be compared and the rest
# dropped without a word) unless asked for.
cp -r "$tmp/regressed" "$tmp/other"
echo '{"kind": "recallbench.plan", "battery": {"name": "leaderboard"}, "runs": []}' >"$tmp/other/plan.json"
expect 2 "recorded from battery 'smoke', the current results are battery 'leaderboard'" -- \
  compare --baseline "$tmp/smoke.json" --current "$tmp/other"
expect 1 "regression   mqar/diag+conv/" -- compare --baseline "$tmp/smoke.json" --current "$tmp/other" --allow-other-battery

# The same configs, every seed still locking in, but at step 600 instead of 300 (10 seeds a side): the
# lock-in counts and recall cannot see it, the log-rank test on the time to lock-in does.
plant "$tmp/base10" diag+conv:10:10:1000
plant "$tmp/slow10" diag+conv:10:10:1000:0:4096:600
"$rb" baseline update smoke --results "$tmp/base10" --out "$tmp/b10.json" >/dev/null || { echo "FAIL: baseline update"; fail=1; }
expect 1 "paired sign test on time to lock-in" -- compare --baseline "$tmp/b10.json" --current "$tmp/slow10"
"$rb" baseline update smoke --results "$tmp/slow10" --out "$tmp/s10.json" >/dev/null || { echo "FAIL: baseline update"; fail=1; }
expect 0 "verdict: improvement" -- compare --baseline "$tmp/s10.json" --current "$tmp/base10"
# A changed model under the same key (state 4096 → 3072): exit 2, naming the sizes and the command that
# accepts the change; --allow-model-change compares anyway.
plant "$tmp/changed_model" diag+conv:6:6:400:0:3072 diag:3:6
expect 2 "state_size 4096 → 3072" -- compare --baseline "$tmp/smoke.json" --current "$tmp/changed_model"
expect 2 "recallbench baseline update" -- report "$tmp/changed_model" --baseline "$tmp/smoke.json" --json "$tmp/m.json"
expect 0 "compared anyway" -- compare --baseline "$tmp/smoke.json" --current "$tmp/changed_model" --allow-model-change

# A baseline whose fields have the wrong type (found by ci/fuzz: a seed's status a number) is bad input,
# exit 2 naming the file, never an internal error.
python3 - "$tmp/smoke.json" "$tmp/badtype.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["configs"][0]["seeds"][0]["status"] = 739506437
json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "wrong type" -- compare --baseline "$tmp/badtype.json" --current "$tmp/base"
# Issue 28: fields of another type that only some readers reach, each with its key recomputed where the key
# covers it. A config's model that is not an object: exit 2 naming the field (compare erased from it). A run's
# recipe steps as text, a context's commit or date of another type: shown as unknown, never exit 4.
python3 - "$here/plant.py" "$tmp" <<'PY'
import glob, importlib.util, json, os, shutil, sys
spec = importlib.util.spec_from_file_location("plant", sys.argv[1])
plant = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plant)
tmp = sys.argv[2]
def rekey_run(d):  # the run's keys from its spec, as the trainer writes them
    s = {k: v for k, v in d["spec"].items() if k != "seed"}
    d["config_key"] = d["config_key"].rsplit("/", 1)[0] + "/" + plant.short_hash(s)
    d["key"] = d["config_key"] + "/seed:%d" % d["spec"]["seed"]
def edit_runs(name, edit):
    shutil.copytree(f"{tmp}/base", f"{tmp}/{name}")
    for f in glob.glob(f"{tmp}/{name}/runs/*.json"):
        d = json.load(open(f)); edit(d); json.dump(d, open(f, "w"))
edit_runs("ctx", lambda d: d["context"].update(git_commit=5, date=[1]))
edit_runs("steps_text", lambda d: (d["spec"]["train"].update(steps="400"), rekey_run(d)))
b = json.load(open(f"{tmp}/smoke.json"))
b["context"]["git_commit"] = 5
json.dump(b, open(f"{tmp}/commit5.json", "w"))
c = b["configs"][0]
c["model"] = [1]
c["key"] = c["key"].rsplit("/", 1)[0] + "/" + plant.short_hash(
    {"cell": {"name": c["cell"], "options": c["cell_options"]}, "model": c["model"],
     "task": {"name": c["task"], "options": c["task_options"]}, "train": c["train"]})
json.dump(b, open(f"{tmp}/model_array.json", "w"))
PY
expect 2 "configs\[0\]: field 'model' got array, expected an object" -- \
  compare --baseline "$tmp/model_array.json" --current "$tmp/base"
expect 0 "commit unknown" -- baseline show "$tmp/commit5.json"
expect 0 "(commit unknown)" -- baseline update smoke --results "$tmp/ctx" --out "$tmp/ctx.json"
expect 0 "verdict: no change" -- report "$tmp/ctx" --baseline "$tmp/smoke.json" --html "$tmp/ctx.html" \
  --json "$tmp/ctx.r.json" --md "$tmp/ctx.md"
expect 0 "verdict: no baseline" -- report "$tmp/steps_text" --html "$tmp/steps.html"

# An unchanged rerun passes.
expect 0 "verdict: no change" -- compare --baseline "$tmp/smoke.json" --current "$tmp/base"

# The same data with 3 seeds a side: inconclusive, with a seed count; exit 3 only when asked.
plant "$tmp/base3" diag+conv:3:3
plant "$tmp/cur3" diag+conv:0:3
"$rb" baseline update small --results "$tmp/base3" --out "$tmp/small.json" >/dev/null || { echo "FAIL: baseline update"; fail=1; }
expect 0 "seeds per side would detect" -- compare --baseline "$tmp/small.json" --current "$tmp/cur3"
expect 0 "verdict: inconclusive" -- compare --baseline "$tmp/small.json" --current "$tmp/cur3"
expect 3 "verdict: inconclusive" -- compare --baseline "$tmp/small.json" --current "$tmp/cur3" --fail-on-inconclusive

# Configs missing on either side are listed.
plant "$tmp/changed" diag+conv:6:6 rank1:6:6
expect 0 "missing      mqar/diag/" -- compare --baseline "$tmp/smoke.json" --current "$tmp/changed"
expect 0 "new          mqar/rank1/" -- compare --baseline "$tmp/smoke.json" --current "$tmp/changed"

# Different recipe or state budget: refused, exit 2.
plant "$tmp/recipe" diag+conv:6:6:2000 diag:3:6:2000
expect 2 "refusing to compare across different training recipes" -- compare --baseline "$tmp/smoke.json" --current "$tmp/recipe"
plant "$tmp/budget" diag+conv:6:6:400:2048 diag:3:6:400:2048
expect 2 "refusing to compare across different state budgets" -- compare --baseline "$tmp/smoke.json" --current "$tmp/budget"

# Malformed or wrong-version baselines: a clear message, exit 2, nothing written.
printf '{"kind": "recallbench.baseline", "schema_version": 1, "configs": [' >"$tmp/malformed.json"
expect 2 "malformed JSON in $tmp/malformed.json" -- compare --baseline "$tmp/malformed.json" --current "$tmp/base"
sed 's/"schema_version": 1/"schema_version": 7/' "$tmp/smoke.json" >"$tmp/v7.json"
expect 2 "got schema_version 7, expected 1" -- compare --baseline "$tmp/v7.json" --current "$tmp/base"
expect 2 "baseline update" -- report "$tmp/base" --baseline "$tmp/v7.json" --html "$tmp/never.html"
[ ! -e "$tmp/never.html" ] || { echo "FAIL: a rejected report wrote its HTML"; fail=1; }
expect 2 "results not found" -- compare --baseline "$tmp/smoke.json" --current "$tmp/nope"
mkdir -p "$tmp/empty"
expect 2 "no run results in" -- report "$tmp/empty"
expect 2 "expected letters, digits" -- baseline update "../evil" --results "$tmp/base"

# Issue 47: an A/B of a training option. The same cells at lr 0.003 (A) and lr 0.001 (B): refused as
# different recipes without --across-recipes; with it each config is paired with its other-recipe partner,
# the differing field is printed, and the paired test decides (lock-in 10/10 -> 2/10 is a regression).
plant "$tmp/lr_a" diag+conv:10:10:400:0:4096:300:0.003 diag:5:10:400:0:4096:300:0.003
plant "$tmp/lr_b" diag+conv:2:10:400:0:4096:300:0.001 diag:5:10:400:0:4096:300:0.001
expect 0 "wrote" -- baseline update smoke --results "$tmp/lr_a" --out "$tmp/lr_a.json"
expect 0 "wrote" -- baseline update smoke --results "$tmp/lr_b" --out "$tmp/lr_b.json"
expect 2 "refusing to compare across different training recipes" -- compare --baseline "$tmp/lr_a.json" --current "$tmp/lr_b"
expect 1 "across recipes: mqar/diag+conv/.*lr 0.003 -> 0.001" -- \
  compare --baseline "$tmp/lr_a.json" --current "$tmp/lr_b" --across-recipes
expect 1 "regression   mqar/diag+conv/" -- compare --baseline "$tmp/lr_a.json" --current "$tmp/lr_b" --across-recipes \
  --json "$tmp/lr.json"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["comparison"]["recipe_pairs"]; assert len(p) == 2 and p[0]["differences"] == [{"field": "lr", "baseline": 0.003, "current": 0.001}], p' \
  "$tmp/lr.json" || { echo "FAIL: the report JSON lacks the recipe pairs"; fail=1; }
python3 "$here/validate_schema.py" "$here/../../reports/schema" report.schema.json "$tmp/lr.json" ||
  { echo "FAIL: the report JSON with recipe pairs does not validate"; fail=1; }
expect 0 "no change" -- compare --baseline "$tmp/lr_b.json" --current "$tmp/lr_b" --across-recipes  # same keys: as before
plant "$tmp/lr_c" diag+conv:10:10:800:0:4096:300:0.001
expect 2 "step budget of 400 in the baseline and 800" -- \
  compare --baseline "$tmp/lr_a.json" --current "$tmp/lr_c" --across-recipes
exit $fail
