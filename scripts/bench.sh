#!/usr/bin/env bash
# Module size, and native vs wasm time per calculator call measured side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
node bench/run.mjs
