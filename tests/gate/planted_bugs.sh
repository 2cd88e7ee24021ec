#!/usr/bin/env bash
# Planted-bug acceptance test of the recall gate: does the gate fail on real source mutations that slow
# or break learning, and pass on harmless ones? Slow (the default `smoke` battery once per mutation, ten
# mutations: an hour or more on 2 cores); ctest label `slow` (test gate.planted_bugs).
#
#   tests/gate/planted_bugs.sh [options] OUT.md
#     --battery NAME|FILE   battery to run (default smoke), as ci/gate's GATE_BATTERY
#     --baseline FILE       baseline to gate on (default ci/baselines/<battery name>.json of the copied tree)
#     --only NAME,...       only these mutations of tests/gate/mutations/MANIFEST
#     --aa N                no mutations: the unmutated tree N times with `run --seed-offset K`,
#                           K = 1000, 2000, ..., to count false alarms (A/A)
#     --replicates N|K-N    run only the first N (or the K-th to N-th) replicate values of each replicated
#                           mutation (default: all); e.g. --replicates 1 then --replicates 2-2 interleaves them
#     --keep DIR            work directory to keep and reuse (the build is then incremental); default a
#                           fresh mktemp directory under /tmp, removed at the end
#     --repo DIR            the tree to test (default: the repository this script lives in)
#     --build-jobs N        parallel compile jobs (default: Ninja's)
#   GATE_ARGS="..."         extra flags for `recallbench gate`/`report`, as in ci/gate (e.g. --fail-on-inconclusive)
#   GATE_STAGES=5           looks of the sequential rule, as in ci/gate
#
# What it does: copies the repository's tracked and untracked-but-not-ignored files (so no build/ or
# results) into WORK/src, configures it once (`cmake --preset default`) and builds `recallbench`
# unmutated; then for each mutation: applies tests/gate/mutations/NAME.patch, rebuilds incrementally,
# runs the recall gate as ci/gate does (`recallbench gate --battery B --baseline FILE --out WORK/results/NAME`:
# the battery, more paired seeds where the answer is open, the reports; trees without the gate command and
# --aa: `recallbench run` then `recallbench report ... --baseline FILE`), records the exit code and reverses the
# patch. A patch that does not apply or a build that fails is recorded, not fatal.
#
# OUT.md: one row per mutation, with its outcome:
#   caught       harmful and exit 1 (regression) or 2 (model, task or data stream changed; seeds not
#                independent; refused)
#   missed       harmful and exit 0 (pass) or 3 (inconclusive)
#   false alarm  neutral and exit 1 or 2
#   pass         neutral and exit 0 or 3
#   error        exit 4, or `run` failed;   patch failed / build failed: as said
# and, under the totals, the false-alarm rate of the neutral rows with its exact 95% interval: over the
# replicated numerical perturbations (the A/A of the paired sequential gate: each such run redraws the seeds'
# outcomes the way a neutral numerical commit does, paired with the baseline's same seeds) and over every
# neutral row. --aa is the A/A of the unpaired path instead (fresh seeds, nothing to pair).
#
# MANIFEST's optional fourth column lists replicate values (comma-separated): the mutation then runs once per
# value, as NAME@VALUE, with @R@ in its patch (and description) replaced by the value.
# and the per-config lines of the report's comparison that are not "no change". OUT.md is rewritten after
# every mutation, so an interrupted run leaves the rows so far.
#
# Exit: 0 every harmful mutation caught and no false alarm; 1 otherwise; 2 usage (bad option, unknown
# mutation, no baseline, --aa without `run --seed-offset`); 4 the unmutated tree failed to configure or build.
set -uo pipefail

me="planted-bugs"
die() { echo "$me: $1" >&2; exit "${2:-2}"; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }

battery=smoke baseline="" only="" keep="" aa=0 build_jobs="" out="" replicates=0
repo="$(cd "$(dirname "$0")/../.." && pwd)"
while [ $# -gt 0 ]; do
  case "$1" in
    --battery) battery="${2:?--battery needs a value}"; shift 2 ;;
    --baseline) baseline="${2:?--baseline needs a value}"; shift 2 ;;
    --only) only="${2:?--only needs a value}"; shift 2 ;;
    --keep) keep="${2:?--keep needs a value}"; shift 2 ;;
    --aa) aa="${2:?--aa needs a value}"; shift 2 ;;
    --replicates) replicates="${2:?--replicates needs a value}"; shift 2 ;;
    --repo) repo="$(cd "${2:?--repo needs a value}" && pwd)" || die "--repo: no directory $2"; shift 2 ;;
    --build-jobs) build_jobs="${2:?--build-jobs needs a value}"; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$out" ] || die "one OUT.md expected, got '$out' and '$1'"; out="$1"; shift ;;
  esac
done
[ -n "$out" ] || die "no OUT.md given (see --help)"
[[ "$aa" =~ ^[0-9]+$ ]] || die "--aa: got '$aa', expected a count"
[[ "$replicates" =~ ^[0-9]+(-[0-9]+)?$ ]] || die "--replicates: got '$replicates', expected N or K-N"
rep_first=1 rep_last="${replicates#*-}"
[[ "$replicates" != *-* ]] || rep_first="${replicates%-*}"
[ "$rep_first" -ge 1 ] && { [ "$replicates" = 0 ] || [ "$rep_last" -ge "$rep_first" ]; } ||
  die "--replicates: got '$replicates', expected 1 <= K <= N"
[ -z "$build_jobs" ] || [[ "$build_jobs" =~ ^[1-9][0-9]*$ ]] || die "--build-jobs: got '$build_jobs', expected a count"
[ "$aa" -eq 0 ] || [ -z "$only" ] || die "--aa and --only exclude each other"
command -v python3 >/dev/null || die "python3 is needed (reads the report JSON)"
git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || die "$repo is not a git repository (the copy takes its tracked files)"
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out="$(abspath "$out")"
mkdir -p "$(dirname "$out")" || die "cannot create the folder of $out"

# --- the mutations (or the A/A rows) ----------------------------------------------------------------
mutations_dir="$repo/tests/gate/mutations"
names=() expects=() descs=() values_of=()
if [ "$aa" -gt 0 ]; then
  for ((i = 1; i <= aa; i++)); do
    values_of+=("") names+=("aa-$((i * 1000))") expects+=(neutral) descs+=("unmutated tree, every seed shifted by $((i * 1000)) (run --seed-offset)")
  done
else
  [ -f "$mutations_dir/MANIFEST" ] || die "no $mutations_dir/MANIFEST"
  declare -A wanted=()
  if [ -n "$only" ]; then IFS=, read -r -a only_list <<<"$only"; for n in "${only_list[@]}"; do wanted[$n]=1; done; fi
  declare -A known=()
  while IFS=$'\t' read -r name expect desc values; do
    [ -z "$name" ] || [[ "$name" == \#* ]] && continue
    [[ "$expect" == harmful || "$expect" == neutral ]] ||
      die "MANIFEST: $name: expected effect '$expect', expected harmful or neutral"
    [ -f "$mutations_dir/$name.patch" ] || die "MANIFEST: $name: no $mutations_dir/$name.patch"
    if [ -n "$values" ]; then
      grep -q '@R@' "$mutations_dir/$name.patch" || die "MANIFEST: $name: replicate values given, but its patch has no @R@"
    else
      ! grep -q '@R@' "$mutations_dir/$name.patch" || die "MANIFEST: $name: its patch has @R@, but no replicate values"
    fi
    known[$name]=1
    if [ -n "$only" ] && [ -z "${wanted[$name]:-}" ]; then continue; fi
    if [ -z "$values" ]; then
      names+=("$name") expects+=("$expect") descs+=("$desc") values_of+=("")
      continue
    fi
    IFS=, read -r -a vals <<<"$values"
    [ "$replicates" = 0 ] || vals=("${vals[@]:$((rep_first - 1)):$((rep_last - rep_first + 1))}")
    for v in "${vals[@]}"; do
      [[ "$v" =~ ^[A-Za-z0-9.+-]+$ ]] || die "MANIFEST: $name: replicate value '$v' (expected a number or a word)"
      names+=("$name@$v") expects+=("$expect") descs+=("${desc//@R@/$v} (replicate @R@ = $v)") values_of+=("$v")
    done
  done <"$mutations_dir/MANIFEST"
  for n in "${!wanted[@]}"; do
    [ -n "${known[$n]:-}" ] || die "--only: no mutation '$n' in MANIFEST (have: $(printf '%s\n' "${!known[@]}" | sort | tr '\n' ' '))"
  done
fi
total=${#names[@]}
[ "$total" -gt 0 ] || die "nothing to run"

# --- the work directory and the copy -----------------------------------------------------------------
t_start=$(date +%s)
elapsed() { local s=$(($(date +%s) - t_start)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
log() { echo "$me: [$(elapsed)] $*" >&2; }
if [ -n "$keep" ]; then
  work="$(abspath "$keep")"
  mkdir -p "$work" || die "--keep: cannot create $work"
else
  work="$(mktemp -d /tmp/planted-bugs.XXXXXX)" || die "mktemp failed" 4
fi
src="$work/src"
applied=""  # the patch currently applied to $src (reversed on exit)
# git apply works outside a repository; the ceiling keeps it from finding one above the work directory
# (when --keep points into a checkout) and touching that repository's index.
gapply() { (cd "$src" && GIT_CEILING_DIRECTORIES="$work" git apply "$@"); }
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  if [ -n "$applied" ]; then gapply -R "$applied" 2>/dev/null || echo "$me: could not reverse $applied in $src" >&2; fi
  if [ -z "$keep" ] && [ -n "${work:-}" ] && [ -d "$work" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Copy the tree: tracked and untracked-not-ignored files, taken as they are in the working tree; files the
# tree no longer has are removed. Only files whose content differs are rewritten, so a kept build stays incremental (and a file left mutated by an
# interrupted run is restored with a new time stamp, which Ninja rebuilds).
log "copying $repo into $src"
stage="$work/stage"
rm -rf "$stage"
mkdir -p "$stage" "$src" || die "cannot write $work" 4
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
  tar -xf - -C "$stage" || die "copying $repo failed" 4
python3 - "$stage" "$src" <<'PY' || die "copying $repo failed" 4
import filecmp, os, shutil, sys
stage, src = sys.argv[1], sys.argv[2]
for root, _, files in os.walk(stage):
    for f in files:
        a = os.path.join(root, f)
        b = os.path.join(src, os.path.relpath(a, stage))
        if os.path.isfile(b) and not os.path.islink(b) and filecmp.cmp(a, b, shallow=False):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        if os.path.lexists(b):
            os.remove(b)
        shutil.copy(a, b)  # content and mode, a fresh time stamp
# Files the tree no longer has (moved or deleted since a kept copy was made) go too: a stale source file
# that a glob picks up would still be built. The build folder is the copy's own.
for root, dirs, files in os.walk(src):
    if root == src and "build" in dirs:
        dirs.remove("build")
    for f in files:
        b = os.path.join(root, f)
        if not os.path.lexists(os.path.join(stage, os.path.relpath(b, src))):
            os.remove(b)
PY
rm -rf "$stage"

# The battery and baseline, resolved like ci/gate's (which runs from the repository root): a file given
# relative to the caller's directory wins, else relative to the copied tree, else a preset name.
battery_arg="$battery" battery_name="$battery"
if [[ "$battery" == */* || "$battery" == *.json ]]; then
  if [ -f "$battery" ]; then battery_arg="$(abspath "$battery")"
  elif [ -f "$src/$battery" ]; then battery_arg="$src/$battery"
  else die "--battery: no file $battery"; fi
  battery_name="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("name",""))' "$battery_arg" 2>/dev/null)"
  [ -n "$battery_name" ] || die "--battery: $battery has no \"name\""
fi
if [ -n "$baseline" ]; then
  if [ -f "$baseline" ]; then baseline="$(abspath "$baseline")"
  elif [ -f "$src/$baseline" ]; then baseline="$src/$baseline"
  else die "--baseline: no file $baseline"; fi
else
  baseline="$src/ci/baselines/$battery_name.json"
  [ -f "$baseline" ] || die "no stored baseline ci/baselines/$battery_name.json in $repo (give --baseline FILE)"
fi

# --- configure and build unmutated ----------------------------------------------------------------------
logs="$work/logs"
mkdir -p "$logs" "$work/results"
jobs_flag=()
[ -z "$build_jobs" ] || jobs_flag=(-j "$build_jobs")
build() { cmake --build "$src/build" --target recallbench "${jobs_flag[@]}"; }
if [ ! -f "$src/build/CMakeCache.txt" ]; then
  log "configuring (cmake --preset default)"
  (cd "$src" && cmake --preset default) >"$logs/configure.log" 2>&1 ||
    die "configuring the copy failed; see $logs/configure.log" 4
fi
log "building recallbench unmutated (the first build of a fresh copy takes minutes)"
build >"$logs/build-unmutated.log" 2>&1 || die "building the unmutated copy failed; see $logs/build-unmutated.log" 4
bin="$src/build/recallbench"
if [ "$aa" -gt 0 ] && ! "$bin" run --help 2>&1 | grep -q -- '--seed-offset'; then
  die "--aa needs \`recallbench run --seed-offset OFFSET\`, which this tree's run command does not have yet"
fi

has_gate=0
"$bin" gate --help >/dev/null 2>&1 && has_gate=1

# --- the table ---------------------------------------------------------------------------------------
commit="$(git -C "$repo" rev-parse --short HEAD)"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then commit="$commit (with uncommitted changes)"; fi
baseline_commit="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("context",{}).get("git_commit","") or "?")' "$baseline" 2>/dev/null || echo "?")"
baseline_shown="${baseline#"$src"/}"
r_exit=() r_verdict=() r_outcome=() r_details=() r_times=()

write_out() {  # $1: rows done so far
  python3 - "$out" "$1" "$total" <<'PY'
import os, sys
out, done, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = os.environ
def field(name):
    return env.get(name, "").split("\x1f")[:done]
names, expects, descs = field("PB_NAMES"), field("PB_EXPECTS"), field("PB_DESCS")
exits, verdicts, outcomes, details, times = (field(n) for n in ("PB_EXIT", "PB_VERDICT", "PB_OUTCOME", "PB_DETAILS", "PB_TIMES"))
def cell(s):
    return s.replace("|", "\\|").replace("\n", "<br>")
lines = [f"## {env['PB_TITLE']}", ""]
if done < total:
    lines += [f"*Partial: {done} of {total} rows (still running, or interrupted).*", ""]
lines += ["| mutation | expected | exit | verdict | outcome | details |", "|---|---|---|---|---|---|"]
for i in range(done):
    lines.append(f"| `{names[i]}` | {expects[i]} | {exits[i]} | {cell(verdicts[i])} | **{outcomes[i]}** | {cell(details[i]) or '–'} |")
count = lambda o, e=None: sum(1 for i in range(done) if outcomes[i] == o and (e is None or expects[i] == e))
harmful = sum(1 for e in expects[:done] if e == "harmful")
neutral = done - harmful
ok = all((expects[i] == "harmful" and outcomes[i] == "caught") or (expects[i] == "neutral" and outcomes[i] == "pass")
         for i in range(done))
lines += ["", f"**Totals:** harmful {count('caught')}/{harmful} caught, {count('missed')} missed; "
              f"neutral {count('pass')}/{neutral} passed, {count('false alarm')} false alarm(s); "
              f"{count('patch failed')} patch failed, {count('build failed')} build failed, {count('error')} error(s). "
              f"**{'ACCEPTED' if ok and done == total else 'NOT ACCEPTED' if not ok else 'so far accepted'}**", ""]
# The A/A of the paired sequential gate: the neutral rows run as replicates (numerical perturbations, each at
# several values), and every neutral row; each with its exact (Clopper-Pearson) 95% interval.
sys.path.insert(0, os.path.join(env["PB_REPO"], "tests", "history"))
from scipy_free_stats import clopper_pearson
for what, rows in (("neutral numerical perturbations (replicated)", [i for i in range(done) if expects[i] == "neutral" and "@" in names[i]]),
                   ("every neutral row", [i for i in range(done) if expects[i] == "neutral"])):
    decided = [i for i in rows if outcomes[i] in ("pass", "false alarm")]
    if decided:
        k, n = sum(outcomes[i] == "false alarm" for i in decided), len(decided)
        lo, hi = clopper_pearson(k, n)
        bases = len({names[i].split("@")[0] for i in decided})
        lines.append(f"**False alarms, {what}:** {k}/{n} runs ({bases} perturbation(s)), rate {k / n:.3f}, "
                     f"95% exact interval {lo:.3f}–{hi:.3f}.")
lines.append("")
lines += [f"- commit: `{env['PB_COMMIT']}` ({env['PB_REPO']})",
          f"- battery: `{env['PB_BATTERY']}`; baseline: `{env['PB_BASELINE']}` (recorded at commit `{env['PB_BASELINE_COMMIT']}`)",
          f"- gate flags: `{env.get('GATE_ARGS') or '(none)'}`; work directory: `{env['PB_WORK']}`",
          f"- wall time: {env['PB_WALL']} in all", "", "| mutation | build | run | report | total |", "|---|---|---|---|---|"]
for i in range(done):
    b, r, p = (int(x) for x in times[i].split(","))
    fmt = lambda s: f"{s // 60}m{s % 60:02d}s"
    lines.append(f"| `{names[i]}` | {fmt(b)} | {fmt(r)} | {fmt(p)} | {fmt(b + r + p)} |")
lines += ["", "Descriptions (tests/gate/mutations/MANIFEST):", ""]
lines += [f"- `{names[i]}`: {descs[i]}" for i in range(done)]
tmp = out + ".tmp"
with open(tmp, "w") as f:
    f.write("\n".join(lines) + "\n")
os.replace(tmp, out)
PY
}

# The verdict and the configs of a report JSON that are not "no change", as two lines: the verdict, then
# the configs separated by \x1e (fields: reports/gate_text.cpp comparison_to_json).
summarise_report() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("comparison") or {}
print(c.get("verdict") or r.get("verdict") or "?")
items = []
for x in c.get("configs", []):
    if x.get("verdict") == "no change":
        continue
    b, k = x.get("baseline") or {}, x.get("current") or {}
    s = (f"`{x.get('key')}`: {x.get('verdict')}, locked in {b.get('locked_in')}/{b.get('seeds')} -> "
         f"{k.get('locked_in')}/{k.get('seeds')}")
    items.append(s + f"; {x.get('reason', '')}")
for what in ("missing_in_current", "missing_in_baseline"):
    if c.get(what):
        items.append(f"{len(c[what])} config(s) {what.replace('_', ' ')}")
print("\x1e".join(i.replace("\n", " ") for i in items))
PY
}

rc_all=0
for ((i = 0; i < total; i++)); do
  name="${names[$i]}" expect="${expects[$i]}"
  log "[$((i + 1))/$total] $name ($expect)"
  res="$work/results/$name"
  rm -rf "$res"  # finished runs are never retrained: a kept directory must not feed old results to the gate
  exit_code="–" verdict="" details="" outcome="" tb=0 tr=0 tp=0
  t0=$(date +%s)
  if [ "$aa" -eq 0 ]; then
    patch="$mutations_dir/${name%@*}.patch"
    if [ -n "${values_of[$i]}" ]; then  # a replicate: the patch with its value in place of @R@
      sed "s/@R@/${values_of[$i]}/g" "$patch" >"$work/replicate.patch" || die "cannot write $work/replicate.patch" 4
      patch="$work/replicate.patch"
    fi
    if ! gapply --check "$patch" >"$logs/$name.patch.log" 2>&1; then
      outcome="patch failed" verdict="patch does not apply"
      details="$(head -c 300 "$logs/$name.patch.log")"
    elif ! gapply "$patch" >>"$logs/$name.patch.log" 2>&1; then
      outcome="patch failed" verdict="patch does not apply"
      details="$(head -c 300 "$logs/$name.patch.log")"
    else
      applied="$patch"
      log "[$((i + 1))/$total] $name: building"
      if ! build >"$logs/$name.build.log" 2>&1; then
        outcome="build failed" verdict="build failed"
        details="$(grep -m 3 -E 'error' "$logs/$name.build.log" | cut -c1-300)"
      fi
    fi
  fi
  tb=$(($(date +%s) - t0))
  if [ -z "$outcome" ]; then
    run_args=(run --battery "$battery_arg" --out "$res")
    [ "$aa" -eq 0 ] || run_args+=(--seed-offset "$(((i + 1) * 1000))")
    # As ci/gate does: `recallbench gate` runs the battery and, where the answer is open, more paired seeds,
    # then writes the reports (a seed-shift A/A pairs nothing, so it keeps run + report).
    gate_mode=0
    if [ "$aa" -eq 0 ] && [ "$has_gate" -eq 1 ]; then
      gate_mode=1
      # shellcheck disable=SC2206  # GATE_ARGS is a list of flags, as in ci/gate
      run_args=(gate --battery "$battery_arg" --baseline "$baseline" --out "$res" --stages "${GATE_STAGES:-5}"
                --html "$res/report.html" --json "$res/report.json" --md "$res/summary.md" ${GATE_ARGS:-})
    fi
    log "[$((i + 1))/$total] $name: recallbench ${run_args[*]}"
    t1=$(date +%s)
    run_rc=0
    (cd "$src" && "$bin" "${run_args[@]}") >"$logs/$name.run.log" 2>&1 || run_rc=$?
    tr=$(($(date +%s) - t1))
    if [ "$gate_mode" -eq 1 ] && [ "$run_rc" -ne 4 ] && [ "$run_rc" -ne 130 ]; then
      cp "$logs/$name.run.log" "$logs/$name.report.log"
      gate_rc=$run_rc
      run_rc=0
    fi
    if [ "$run_rc" -ne 0 ]; then
      exit_code="$run_rc" outcome="error" verdict="run failed"
      details="$(grep -m 2 'error' "$logs/$name.run.log" | cut -c1-300)"
    else
      t2=$(date +%s)
      rep_rc=0
      if [ "$gate_mode" -eq 1 ]; then
        rep_rc=$gate_rc
      else
        # shellcheck disable=SC2086  # GATE_ARGS is a list of flags, as in ci/gate
        (cd "$src" && "$bin" report "$res" --baseline "$baseline" --html "$res/report.html" --json "$res/report.json" \
          --md "$res/summary.md" ${GATE_ARGS:-}) >"$logs/$name.report.log" 2>&1 || rep_rc=$?
      fi
      tp=$(($(date +%s) - t2))
      exit_code="$rep_rc"
      if [ -f "$res/report.json" ]; then  # fresh: $res was emptied above; exit 2 "model changed" writes one too
        { read -r verdict; IFS= read -r details; } < <(summarise_report "$res/report.json" 2>>"$logs/$name.report.log")
        details="${details//$'\x1e'/$'\n'}"
        if [ -z "$details" ] && [ "$rep_rc" -ne 0 ]; then
          details="$(grep -m 2 -E 'error|refusing' "$logs/$name.report.log" | sed 's/^recallbench: //' | cut -c1-400)"
        fi
      else
        if [ "$rep_rc" -eq 2 ]; then verdict="refused (bad input or model changed)"
        elif [ "$rep_rc" -eq 4 ]; then verdict="internal error"
        else verdict="no report JSON"; fi
        details="$(grep -m 2 -E 'error|refusing' "$logs/$name.report.log" | sed 's/^recallbench: //' | cut -c1-400)"
      fi
      case "$expect:$rep_rc" in
        harmful:1|harmful:2) outcome="caught" ;;
        harmful:0|harmful:3) outcome="missed" ;;
        neutral:1|neutral:2) outcome="false alarm" ;;
        neutral:0|neutral:3) outcome="pass" ;;
        *) outcome="error" ;;
      esac
    fi
  fi
  if [ -n "$applied" ]; then
    gapply -R "$applied" || die "could not reverse $applied in $src; the copy is left mutated" 4
    applied=""
  fi
  case "$expect:$outcome" in harmful:caught|neutral:pass) ;; *) rc_all=1 ;; esac
  r_exit+=("$exit_code") r_verdict+=("$verdict") r_outcome+=("$outcome") r_details+=("$details")
  r_times+=("$tb,$tr,$tp")
  log "[$((i + 1))/$total] $name: exit $exit_code, $verdict -> $outcome ($(($(date +%s) - t0))s)"
  join() { local IFS=$'\x1f'; echo "$*"; }
  PB_NAMES="$(join "${names[@]}")" PB_EXPECTS="$(join "${expects[@]}")" PB_DESCS="$(join "${descs[@]}")" \
  PB_EXIT="$(join "${r_exit[@]}")" PB_VERDICT="$(join "${r_verdict[@]}")" PB_OUTCOME="$(join "${r_outcome[@]}")" \
  PB_DETAILS="$(join "${r_details[@]}")" PB_TIMES="$(join "${r_times[@]}")" PB_COMMIT="$commit" PB_REPO="$repo" \
  PB_BATTERY="$battery" PB_BASELINE="$baseline_shown" PB_BASELINE_COMMIT="$baseline_commit" PB_WORK="$work$([ -n "$keep" ] || echo ' (removed)')" \
  PB_WALL="$(elapsed)" PB_TITLE="$([ "$aa" -gt 0 ] && echo "A/A false alarms of the recall gate ($aa unmutated reruns)" ||
    echo "Planted-bug acceptance of the recall gate")" write_out "$((i + 1))" || log "writing $out failed"
done

log "done: $out ($([ "$rc_all" -eq 0 ] && echo accepted || echo 'NOT accepted'))"
exit "$rc_all"
