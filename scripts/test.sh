#!/usr/bin/env bash
# Every test layer, in order: the house style (clang-format), GoogleTest (ctest), node tests of the
# wasm modules, the JS wrapper's types against real responses (tsc), a throwaway chapter added and
# removed (tests/newchapter), browser tests in headless Chromium, a bounded libFuzzer run of each
# parser, and the GoogleTest suite under ASan + UBSan (npm run test:asan runs that pass alone). Set
# SB_SKIP_ASAN=1 to leave it out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh

echo "== house style (clang-format)"
scripts/format.sh --check

echo "== GoogleTest"
ctest --test-dir build/native --output-on-failure -j 2

echo "== node tests of the wasm modules"
node --test tests/node/

echo "== wasm/scaling.d.ts against every response of the built modules (tsc --noEmit)"
node tests/types/check.mjs

echo "== a new chapter folder needs no edit elsewhere (tests/newchapter)"
tests/newchapter/run.sh

echo "== browser tests (headless Chromium)"
node tests/browser/run.mjs

echo "== fuzzers (bounded)"
FUZZ_RUNS="${FUZZ_RUNS:-50000}" scripts/fuzz.sh

if [ "${SB_SKIP_ASAN:-0}" != 1 ]; then
  echo "== GoogleTest under ASan + UBSan"
  scripts/asan.sh
fi
