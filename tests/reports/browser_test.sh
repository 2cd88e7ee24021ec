#!/usr/bin/env bash
# The HTML report in a real headless Chromium: loads without console messages (errors, failed loads,
# exceptions), runs its script, shows the results-by-cell table and at least one chart; screenshots for a laptop
# and a phone go to ARTIFACTS (CI uploads them). A planted page with a console error must be caught, so
# the check itself is live.
# With --history, the history trend page instead (a simulated 30-commit history with a lock-in drop at commit 17,
# through `recallbench history import` and `history report`): loads cleanly, shows the changes table, the
# charts and the change marker; screenshots ARTIFACTS/history-laptop.png and history-phone.png.
#   browser_test.sh RECALLBENCH SOURCE_DIR ARTIFACTS                        (label "browser"; ci/browser-test runs it)
#   browser_test.sh --history RECALLBENCH SOURCE_DIR ARTIFACTS      (likewise)
set -u
mode=report
if [ "${1:-}" = --history ]; then
  mode=history
  shift
fi
rb="$1"
src="$2"
artifacts="$3"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$artifacts"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "FAIL: chromium not found (ci/browser-test installs Debian's chromium)"; exit 1; }

chrome() {  # chrome LOG ARGS...: one headless run, console output on LOG
  local log=$1
  shift
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$(mktemp -d -p "$tmp")" \
    --enable-logging=stderr --v=0 "$@" 2>"$log"
}

check_page() {  # check_page NAME HTML: console clean, script ran, results by cell and a chart in the DOM
  local name=$1 html=$2
  chrome "$tmp/$name.log" --dump-dom "file://$html" >"$tmp/$name.dom" || { echo "FAIL: chromium on $name"; fail=1; return; }
  if grep -q ":CONSOLE" "$tmp/$name.log"; then
    echo "FAIL: $name: console messages:"; grep ":CONSOLE" "$tmp/$name.log"; fail=1
  fi
  grep -q 'data-report-ready="[0-9]' "$tmp/$name.dom" || { echo "FAIL: $name: the page script did not run"; fail=1; }
  grep -q 'id="by-cell-table"' "$tmp/$name.dom" || { echo "FAIL: $name: no results-by-cell table"; fail=1; }
  grep -q '<tbody><tr><td>1</td>' "$tmp/$name.dom" || { echo "FAIL: $name: the results-by-cell table has no rows"; fail=1; }
  local charts
  charts=$(grep -o '<svg class="chart' "$tmp/$name.dom" | wc -l)
  [ "$charts" -ge 1 ] || { echo "FAIL: $name: no chart"; fail=1; }
  echo "ok: $name loads in Chromium without console messages; results by cell and $charts charts"
}

screenshot() {  # screenshot HTML PNG WIDTH HEIGHT
  chrome "$tmp/shot.log" --window-size="$3,$4" --screenshot="$2" "file://$1" >/dev/null
  if [ -s "$2" ] && [ "$(head -c 4 "$2" | tail -c 3)" = "PNG" ]; then echo "ok: screenshot $2 (${3}x$4)"
  else echo "FAIL: no screenshot $2"; fail=1; fi
}

check_simple() {  # check_simple NAME HTML MARKER: console clean, script ran, MARKER in the DOM
  local name=$1 html=$2 marker=$3
  chrome "$tmp/$name.log" --dump-dom "file://$html" >"$tmp/$name.dom" || { echo "FAIL: chromium on $name"; fail=1; return; }
  if grep -q ":CONSOLE" "$tmp/$name.log"; then
    echo "FAIL: $name: console messages:"; grep ":CONSOLE" "$tmp/$name.log"; fail=1
  fi
  grep -q 'data-report-ready="[0-9]' "$tmp/$name.dom" || { echo "FAIL: $name: the page script did not run"; fail=1; }
  grep -q "$marker" "$tmp/$name.dom" || { echo "FAIL: $name: no '$marker' in the page"; fail=1; return; }
  echo "ok: $name loads in Chromium without console messages and shows '$marker'"
}
# The live check: a page with a console error and an exception must be caught.
printf '<!doctype html><p>x</p><script>console.error("planted"); missing();</script>' >"$tmp/bad.html"
chrome "$tmp/bad.log" --dump-dom "file://$tmp/bad.html" >/dev/null
if grep -q ':CONSOLE.*planted' "$tmp/bad.log" && grep -q ':CONSOLE.*missing is not defined' "$tmp/bad.log"; then
  echo "ok: a planted console error is detected"
else
  echo "FAIL: console errors are not detected; the log was:"; cat "$tmp/bad.log"; fail=1
fi

# The history trend page: 30 commits, 3 configs (a lock-in drop at commit 17), one benchmark.
if [ "$mode" = history ]; then
  # A real history: a simulated one (tests/history/simulate.py) through `history import` and `history report`.
  /usr/bin/python3 "$src/tests/history/simulate.py" lockin >"$tmp/history.jsonl"
  rm -f "$tmp/history.sqlite"
  "$rb" history import "$tmp/history.jsonl" --db "$tmp/history.sqlite" >/dev/null &&
    "$rb" history report --db "$tmp/history.sqlite" --html "$artifacts/history.html" --md "$artifacts/history.md" \
      >/dev/null || { echo "FAIL: recallbench history report"; exit 1; }
  check_simple history "$artifacts/history.html" 'id="changes"'
  charts=$(grep -o '<svg class="chart trend' "$tmp/history.dom" | wc -l)
  [ "$charts" -eq 10 ] || { echo "FAIL: history: $charts charts, expected 3 per config and 1 per benchmark (10)"; fail=1; }
  grep -q '<g class="cp" data-commit="' "$tmp/history.dom" || { echo "FAIL: history: no change marker"; fail=1; }
  grep -q '<tr class="v-reg">' "$tmp/history.dom" || { echo "FAIL: history: no regression in the changes table"; fail=1; }
  echo "ok: history page shows $charts charts and its change markers"
  screenshot "$artifacts/history.html" "$artifacts/history-laptop.png" 1280 2500
  screenshot "$artifacts/history.html" "$artifacts/history-phone.png" 390 4200
  exit $fail
fi

# Real results (tests/reports/data: two cells × two pair counts, 4 seeds each), gated on a baseline
# recorded from the same results: 4 seeds a side cannot reach significance, so the verdict is inconclusive.
data="$src/tests/reports/data"
"$rb" baseline update fixture --results "$data" --out "$tmp/baseline.json" >/dev/null || { echo "FAIL: baseline update"; fail=1; }
"$rb" report "$data" --baseline "$tmp/baseline.json" --html "$artifacts/report.html" >/dev/null
check_page real "$artifacts/report.html"
screenshot "$artifacts/report.html" "$artifacts/report-laptop.png" 1280 2400
screenshot "$artifacts/report.html" "$artifacts/report-phone.png" 390 2400

# A planted regression (6/6 → 0/6): the verdict banner and the regression come first.
python3 "$src/tests/reports/plant.py" "$tmp/base" diag+conv:6:6 diag:3:6 rank1:5:6
python3 "$src/tests/reports/plant.py" "$tmp/cur" diag+conv:0:6 diag:3:6 rank1:5:6
"$rb" baseline update smoke --results "$tmp/base" --out "$tmp/smoke.json" >/dev/null
"$rb" report "$tmp/cur" --baseline "$tmp/smoke.json" --html "$artifacts/report-regression.html" >/dev/null
[ $? = 1 ] || { echo "FAIL: the planted regression did not exit 1"; fail=1; }
check_page regression "$artifacts/report-regression.html"
grep -q "Verdict: regression" "$artifacts/report-regression.html" || { echo "FAIL: no regression verdict"; fail=1; }
screenshot "$artifacts/report-regression.html" "$artifacts/report-regression.png" 1280 1400
# The leaderboard page from the stored rows (ci/leaderboard/leaderboard.json) and the claims page from the
# stored claim results: both load cleanly, run the page script and show their tables.
if [ -f "$src/ci/leaderboard/leaderboard.json" ]; then
  "$rb" leaderboard --file "$src/ci/leaderboard/leaderboard.json" --html "$artifacts/leaderboard.html" >/dev/null ||
    { echo "FAIL: recallbench leaderboard"; fail=1; }
  check_simple leaderboard "$artifacts/leaderboard.html" 'id="overall"'
  screenshot "$artifacts/leaderboard.html" "$artifacts/leaderboard-laptop.png" 1280 3800  # 12 rows, 5 points, the rows table
  screenshot "$artifacts/leaderboard.html" "$artifacts/leaderboard-phone.png" 390 5600
fi
if [ -f "$src/ci/claims/seed-claims-results.json" ]; then
  "$rb" verify --claims "$src/ci/claims/seed-claims.json" --results "$src"/ci/claims/seed-claims*-results.json \
    --html "$artifacts/claims.html" >/dev/null
  check_simple claims "$artifacts/claims.html" 'id="claims"'
  screenshot "$artifacts/claims.html" "$artifacts/claims-laptop.png" 1280 1800
fi
exit $fail
