#!/usr/bin/env bash
# Stops what start_local_slurm.sh started (listed in $SLURM_LOCAL_DIR/started), by PID, after cancelling
# the jobs of this local cluster. Each PID is checked against its command name and skipped when it is gone
# or a zombie; nothing else is touched (no pkill, no killall).
set -uo pipefail
dir="${SLURM_LOCAL_DIR:-/tmp/recallbench-slurm}"
export SLURM_CONF="$dir/slurm.conf"
[ -f "$dir/started" ] || { echo "stop_local_slurm: nothing recorded in $dir/started"; exit 0; }
alive() { [ -r "/proc/$1/stat" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
          ! awk '{exit !($3 == "Z")}' "/proc/$1/stat"; }
if grep -q '^slurmctld ' "$dir/started"; then
  jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
  [ -n "${jobs// }" ] && scancel $jobs 2>/dev/null
fi
# Stop in reverse order of start: slurmd, slurmctld, munged.
tac "$dir/started" | while read -r name pid; do
  [ -n "${pid:-}" ] || continue
  if alive "$pid" "$name"; then
    kill -TERM "$pid"
    for _ in $(seq 100); do alive "$pid" "$name" || break; sleep 0.1; done
    alive "$pid" "$name" && kill -KILL "$pid"
    echo "stopped $name (pid $pid)"
  fi
done
: >"$dir/started"
