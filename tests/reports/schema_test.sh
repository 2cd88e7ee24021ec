#!/usr/bin/env bash
# The JSON documents recallbench writes validate against the schemas in reports/schema: the report (with
# and without a baseline), the baseline, and real run results; and a broken report is rejected (so the
# validation is live).
#   schema_test.sh RECALLBENCH SOURCE_DIR
set -u
shopt -s nullglob
rb="$1"
src="$2"
schemas="$src/reports/schema"
data="$src/tests/reports/data"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c 'import jsonschema' || { echo "FAIL: python3 jsonschema is missing (ci/bootstrap installs python3-jsonschema)"; exit 1; }
validate() { python3 "$src/tests/reports/validate_schema.py" "$schemas" "$@" || fail=1; }

"$rb" report "$data" --json "$tmp/plain.json" --html "$tmp/plain.html" --md "$tmp/plain.md" >/dev/null || { echo "FAIL: report"; fail=1; }
"$rb" baseline update fixture --results "$data" --out "$tmp/baseline.json" >/dev/null || { echo "FAIL: baseline update"; fail=1; }
"$rb" report "$data" --baseline "$tmp/baseline.json" --json "$tmp/gated.json" >/dev/null || { echo "FAIL: gated report"; fail=1; }
validate report.schema.json "$tmp/plain.json" "$tmp/gated.json"
# ci/baselines/bench-*.json are Google Benchmark files (the speed gate's baselines), not recall baselines.
# shellcheck disable=SC2046  # the file names have no spaces
validate baseline.schema.json "$tmp/baseline.json" $(ls "$src"/ci/baselines/*.json | grep -v '/bench-')
validate run.schema.json "$data"/runs/*.json

# A report without its verdict, and one with an unknown verdict, must be rejected.
python3 - "$tmp/gated.json" "$tmp/broken1.json" "$tmp/broken2.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
d1 = dict(doc); del d1["verdict"]; json.dump(d1, open(sys.argv[2], "w"))
d2 = dict(doc); d2["verdict"] = "fine"; json.dump(d2, open(sys.argv[3], "w"))
PY
for broken in broken1 broken2; do
  if python3 "$src/tests/reports/validate_schema.py" "$schemas" report.schema.json "$tmp/$broken.json" >/dev/null; then
    echo "FAIL: a broken report ($broken) validated"; fail=1
  else
    echo "ok: broken report $broken rejected"
  fi
done
exit $fail
