#!/usr/bin/env bash
# Builds the native targets (CLI, tests, bench), the wasm modules (one per chapter) and the site.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"

cmake --preset native >/dev/null
cmake --build --preset native -j "$jobs"

# Debian's emscripten needs its acorn from /usr/share/nodejs (its prebuilt cache is frozen).
export NODE_PATH=/usr/share/nodejs
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$jobs"

node web/build.mjs
