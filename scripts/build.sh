#!/usr/bin/env bash
# Builds the native targets (CLI, tests, bench), the wasm modules (one per chapter) and the site.
# --native: the `scaling` CLI alone (build/native/bin/scaling), nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"

cmake --preset native >/dev/null
if [ "${1:-}" = "--native" ]; then
  cmake --build --preset native -j "$jobs" --target scaling
  exit 0
fi
cmake --build --preset native -j "$jobs"

# Debian's emscripten needs its acorn from /usr/share/nodejs (its prebuilt cache is frozen).
export NODE_PATH=/usr/share/nodejs
# em++ is a shell script that runs `python3 em++.py`: where python3 is a pyenv shim (as on the CI
# machines) each call pays about a second before the compiler starts. Debian's own python3 is
# what its emscripten was packaged for.
[ -x /usr/bin/python3 ] && export EMSDK_PYTHON="${EMSDK_PYTHON:-/usr/bin/python3}"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$jobs"

node web/build.mjs
