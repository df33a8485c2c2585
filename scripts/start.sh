#!/usr/bin/env bash
# Set up, build, and serve the companion on http://localhost:8080 (PORT overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec node web/serve.mjs
