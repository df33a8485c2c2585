#!/usr/bin/env bash
# Each chapter module's size, and native vs wasm time per calculator call (each in its own chapter's
# module) measured side by side in one run; the roofline module also with the plain C export that
# embind replaced (a bench-only build). Then the time to first number of each chapter page in
# headless Chromium over a throttled network, beside the page's bytes; then each page's longest
# main-thread task (loading, every number field at its ends, a model switch); then the worst requests
# under the size cap, natively.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
cmake --build --preset native -j "${JOBS:-2}" --target sb_bench sb_bench_planner >/dev/null
EMSDK_PYTHON=/usr/bin/python3 NODE_PATH=/usr/share/nodejs cmake --build --preset wasm -j "${JOBS:-2}" --target scaling_roofline_plain >/dev/null
node bench/run.mjs
echo
node bench/pages.mjs
echo
node bench/tasks.mjs

echo
echo "worst requests under the 1 MiB cap, native (target 100 ms); texts in build/bench/requests"
mkdir -p build/bench/requests
build/native/bin/sb_bench --requests build/bench/requests
