# Shared by the command-line tests: `expect CODE PATTERN -- ARGS...` runs "$rb" ARGS, and records a failure
# (fail=1) unless it exits CODE and its output (stdout and stderr) contains PATTERN. Source it after
# setting rb (the recallbench binary) and fail=0.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$rb" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAIL: recallbench $* exited $rc, expected $code"; echo "$out"; fail=1
  elif ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: recallbench $*: output lacks '$pattern'"; echo "$out"; fail=1
  else
    echo "ok: recallbench $* -> $rc"
  fi
}
