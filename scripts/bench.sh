#!/usr/bin/env bash
# Each chapter module's size, and native vs wasm time per calculator call (each in its own chapter's
# module) measured side by side in one run; then the worst requests under the size cap, natively.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
node bench/run.mjs

echo "worst requests under the 1 MiB cap, native (target 100 ms); texts in build/bench/requests"
mkdir -p build/bench/requests
build/native/bin/sb_bench --requests build/bench/requests
