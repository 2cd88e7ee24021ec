#!/usr/bin/env bash
# The allocator benchmark (issue 31; docs/speed.md): the same run key trained under each allocator setting,
# interleaved, with CPU time (user + system), minor page faults and wall time per run, as ratios against
# glibc's defaults in the same invocation; and a check that every setting gives the same result and curve.
#   tests/bench/allocator.sh BUILD_DIR [REPS] [CONFIG]
#   CONFIG: smoke (d 32, MQAR 4 pairs, L 32, batch 32, 300 steps; default) | large (d 64, L 256, batch 64,
#           rank1+decay+conv, 100 steps)
# Not a test (it times things): run it by hand on an idle machine.
set -euo pipefail
build=$(cd "${1:?usage: allocator.sh BUILD_DIR [REPS] [smoke|large]}" && pwd)
reps=${2:-2}
config=${3:-smoke}
case "$config" in
  smoke) args=(--cell diag+conv --task mqar --pairs 4 --length 32 --vocab 64 --d-model 32 --batch 32 --steps 300
               --eval-examples 256) ;;
  large) args=(--cell rank1+decay+conv --task mqar --pairs 16 --length 256 --vocab 256 --d-model 64 --batch 64
               --steps 100 --eval-examples 256) ;;
  *) echo "allocator.sh: unknown config '$config' (smoke, large)" >&2; exit 2 ;;
esac
# GNU time (Debian's `time`, not the shell keyword) reports faults; jemalloc and tcmalloc are optional
# (libjemalloc2, libtcmalloc-minimal4: a setting whose library is missing is skipped).
[ -x /usr/bin/time ] || { echo "allocator.sh: needs GNU time: apt-get install time" >&2; exit 2; }
lib=/usr/lib/x86_64-linux-gnu
modes=("glibc-defaults" "tuned" "jemalloc" "tcmalloc")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env_of() {
  case "$1" in
    glibc-defaults) echo "RECALLBENCH_KEEP_MALLOC=1" ;;
    tuned) echo "RECALLBENCH_UNUSED=1" ;;
    jemalloc) [ -e $lib/libjemalloc.so.2 ] && echo "LD_PRELOAD=$lib/libjemalloc.so.2" ;;
    tcmalloc) [ -e $lib/libtcmalloc_minimal.so.4 ] && echo "LD_PRELOAD=$lib/libtcmalloc_minimal.so.4" ;;
  esac
}
printf '%-16s %4s %8s %8s %8s %10s %8s\n' mode rep user_s sys_s cpu_s minflt wall_s
for rep in $(seq 1 "$reps"); do
  for mode in "${modes[@]}"; do
    e=$(env_of "$mode") || { echo "$mode: library not installed, skipped" >&2; continue; }
    out="$tmp/$mode-$rep"
    env "$e" /usr/bin/time -o "$tmp/time" -f "%U %S %R %e" \
      "$build/recallbench" run "${args[@]}" --threshold 1 --seeds 0 --jobs 1 --out "$out" >/dev/null 2>&1
    read -r u s f w < "$tmp/time"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    printf '%-16s %4s %8s %8s %8s %10s %8s\n' "$mode" "$rep" "$u" "$s" "$cpu" "$f" "$w"
    echo "$mode $cpu $f" >> "$tmp/summary"
  done
done
/usr/bin/python3 - "$tmp" "${modes[@]}" <<'PY'
import glob, json, sys, statistics
tmp, modes = sys.argv[1], sys.argv[2:]
cpu = {}
for line in open(f"{tmp}/summary"):
    m, c, f = line.split()
    cpu.setdefault(m, []).append(float(c))
ref = statistics.median(cpu["glibc-defaults"])
print("\nmedian CPU time as a ratio to glibc's defaults (same invocation):")
for m in modes:
    if m in cpu: print(f"  {m:16s} {statistics.median(cpu[m]):7.2f} s   x{statistics.median(cpu[m]) / ref:.2f}")
def outcome(path):
    d = json.load(open(glob.glob(f"{path}/runs/**/*.json", recursive=True)[0]))
    r = {k: v for k, v in d["result"].items() if k not in ("wall_seconds", "steps_per_second")}
    return json.dumps([r, d["curve"]], sort_keys=True)
outs = {p.split("/")[-1]: outcome(p) for p in glob.glob(f"{tmp}/*-*") if "/summary" not in p}
same = len(set(outs.values())) == 1
print(f"results and curves identical across {len(outs)} runs: {'yes' if same else 'NO'}")
sys.exit(0 if same else 1)
PY
