#!/usr/bin/env bash
# The front end (suite/main.cpp): `recallbench` is linked without LibTorch and runs the JSON commands itself;
# every other command reaches recallbench-torch with its arguments, exit code and output intact.
set -u
rb="$1"
src="$(cd "$(dirname "$0")/../.." && pwd)"
fail=0
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"

# Not linked against LibTorch (or anything that pulls it in): the reason it starts in milliseconds.
if ldd "$rb" | grep -qiE 'torch|c10'; then
  echo "FAIL: $rb links LibTorch:"; ldd "$rb" | grep -iE 'torch|c10'; fail=1
else
  echo "ok: $rb does not link LibTorch"
fi
if ! ldd "$(dirname "$rb")/recallbench-torch" | grep -q libtorch; then
  echo "FAIL: recallbench-torch beside it does not link LibTorch"; fail=1
fi
# A JSON command runs in this process: with LD_DEBUG, the dynamic loader names every library it opens.
if LD_DEBUG=libs "$rb" stats fisher 5 5 5 0 2>&1 | grep -q 'libtorch'; then
  echo "FAIL: stats fisher loaded LibTorch"; fail=1
else
  echo "ok: stats fisher runs without loading LibTorch"
fi
expect 0 "p = 0.100899" -- stats fisher 5 5 5 0
expect 2 "" -- stats fisher 5 5 5
expect 0 "Usage: recallbench report" -- report --help
expect 0 "smoke" -- baseline show "$src/ci/baselines/smoke.json"
# Commands that need LibTorch are handed over, as are the global flags, unknown names and plugins.
expect 0 "Subcommands" -- --help
expect 0 "diag+conv" -- list cells
expect 0 "libtorch_version" -- version
expect 2 "valid commands: .*stats" -- frobnicate
expect 2 "plugin /nonexistent.so: file not found" -- --plugin /nonexistent.so stats fisher 1 1 1 1
exit $fail
