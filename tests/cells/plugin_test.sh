#!/usr/bin/env bash
# C++ plugin cells end to end: install recallbench (executable and cell API) into a prefix, build the
# out-of-tree example (examples/plugin_cell) against the *installed* package with find_package, load it
# with --plugin and RECALLBENCH_PLUGINS, pass check-cell, train a run through the worker processes; a
# missing or broken library, one that registers an existing name, and one that registers nothing: exit 2.
#   plugin_test.sh BUILD_DIR SOURCE_DIR          (label "plugin": ci/test-plugin; compiles one LibTorch unit)
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
rb="$tmp/prefix/bin/recallbench"
[ -x "$rb" ] || { echo "FAIL: no installed executable"; exit 1; }
[ -f "$tmp/prefix/include/recallbench/cells/cell.h" ] || { echo "FAIL: cell API headers not installed"; fail=1; }
if ls "$tmp/prefix/include/recallbench" | grep -qv -e '^cells$' -e '^core$'; then echo "FAIL: internals installed"; fail=1; fi
# shellcheck source=../expect.sh
source "$(dirname "$0")/../expect.sh"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$src/examples/plugin_cell" -B "$tmp/plugin" "${gen[@]}" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; echo "FAIL: configure the plugin"; exit 1; }
cmake --build "$tmp/plugin" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: build the plugin"; exit 1; }
so="$tmp/plugin/librb_ema_cell.so"
echo "ok: the example plugin builds against the installed package ($(du -k "$so" | cut -f1) KiB)"

expect 0 "ema " -- --plugin "$so" list cells
expect 0 "passes every check" -- --plugin "$so" check-cell ema
expect 0 "state        pass  state_size() 64; carried 64" -- --plugin "$so" check-cell ema   # run's default width
RECALLBENCH_PLUGINS="$so" expect 0 "1 trained" -- run --cell ema --task mqar --pairs 2 --length 16 --vocab 32 \
  --d-model 32 --steps 60 --batch 16 --eval-every 20 --eval-examples 64 --jobs 1 --out "$tmp/runs"
expect 2 "unknown cell 'ema'" -- check-cell ema
expect 2 "file not found" -- --plugin "$tmp/none.so" list cells
printf 'not ELF' >"$tmp/garbage.so"
expect 2 "does not load" -- --plugin "$tmp/garbage.so" list cells
cp "$so" "$tmp/copy.so"
expect 2 "registers a name that already exists: ema" -- --plugin "$so" --plugin "$tmp/copy.so" list cells
# A plugin cell that reads the future (its gate sees x_{t+1}; its step is causal, so only the check of every
# split point sees it): refused by check-cell and by run before anything trains, like a leaky script cell.
mkdir -p "$tmp/leaky_src"
cp "$src/examples/plugin_cell/CMakeLists.txt" "$tmp/leaky_src/"
sed -e 's/gate_->forward(x))/gate_->forward(x.roll(-1, 1)))/' -e 's/RB_REGISTER(rb::CellRegistry, ema,/RB_REGISTER(rb::CellRegistry, ema_leaky,/' \
  -e 's/CellEntry{"ema"/CellEntry{"ema_leaky"/' "$src/examples/plugin_cell/ema_cell.cpp" >"$tmp/leaky_src/ema_cell.cpp"
grep -q 'x.roll(-1, 1)' "$tmp/leaky_src/ema_cell.cpp" || { echo "FAIL: the leaky variant was not made"; fail=1; }
if cmake -S "$tmp/leaky_src" -B "$tmp/leaky" "${gen[@]}" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
     >"$tmp/leaky.log" 2>&1 && cmake --build "$tmp/leaky" >>"$tmp/leaky.log" 2>&1; then
  leaky="$tmp/leaky/librb_ema_cell.so"
  expect 1 "causal       FAIL" -- --plugin "$leaky" check-cell ema_leaky --length 24
  expect 2 "not causal" -- --plugin "$leaky" run --cell ema_leaky --task mqar --pairs 2 --length 16 --vocab 32 \
    --d-model 32 --steps 60 --batch 16 --eval-every 20 --eval-examples 64 --jobs 1 --out "$tmp/leaky_runs"
  [ -z "$(ls "$tmp/leaky_runs/runs" 2>/dev/null)" ] || { echo "FAIL: the leaky plugin cell was trained"; fail=1; }
else
  cat "$tmp/leaky.log"; echo "FAIL: build the leaky plugin"; fail=1
fi
# A library with no cell in it.
printf 'int rb_nothing = 1;\n' >"$tmp/empty.cpp"
c++ -shared -fPIC -o "$tmp/empty.so" "$tmp/empty.cpp" && expect 2 "registers no cell" -- --plugin "$tmp/empty.so" list cells
exit $fail
