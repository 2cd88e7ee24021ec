#!/usr/bin/env bash
# The command line end to end: exit codes and messages (DESIGN.md: 0 ok, 2 bad input/usage).
set -u
rb="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"  # expect CODE PATTERN -- ARGS...

expect 0 "Subcommands" -- --help
expect 0 "cells" -- list cells
expect 0 "mqar" -- list tasks
expect 0 "linear_attn_ref" -- list kernels
expect 0 "first" -- list batteries
expect 0 "libtorch_version" -- version
expect 2 "valid commands: .*list" -- frobnicate
expect 2 "valid cell names: .*diag+conv" -- run --cell nope --task mqar --out "$tmp"
expect 2 "valid task names: .*mqar" -- run --cell diag --task nope --out "$tmp"
expect 2 "need 4·pairs ≤ length" -- run --cell diag --task mqar --pairs 40 --length 64 --out "$tmp"
expect 2 "bad seed list" -- run --cell diag --task mqar --seeds 3-1 --out "$tmp"
expect 2 "unknown option 'colour'" -- run --cell diag --task mqar --task-opt colour=red --out "$tmp"
expect 2 "valid battery names" -- run --battery nope --out "$tmp"
expect 0 "p = 0.0197666" -- stats fisher 7 3 1 9
expect 2 "got -1, expected a whole number" -- stats fisher -1 2 3 4
[ -z "$(ls -A "$tmp")" ] || { echo "FAIL: a rejected command wrote into $tmp"; fail=1; }
exit $fail
