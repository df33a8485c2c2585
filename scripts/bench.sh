#!/usr/bin/env bash
# Each chapter module's size, and native vs wasm time per calculator call (each in its own chapter's
# module) measured side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
node bench/run.mjs
