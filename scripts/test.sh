#!/usr/bin/env bash
# Every test layer, in order: the house style (clang-format), GoogleTest (ctest), node tests of the
# wasm modules, the JS wrapper's types against real responses (tsc), a throwaway chapter added and
# removed (tests/newchapter), browser tests in headless Chromium, the GoogleTest suite under ASan +
# UBSan (npm run test:asan runs that pass alone), and a bounded libFuzzer run of each parser. Set
# SB_SKIP_ASAN=1 to leave it out. Each layer prints its wall time and the CPU time of its
# processes when it ends, and all of them once more at the end (on a failure too). The house style
# runs before the build: it takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/layers.sh

layer "setup" scripts/setup.sh
layer "house style (clang-format)" scripts/format.sh --check
layer "build (native, wasm, site)" scripts/build.sh
layer "GoogleTest" ctest --test-dir build/native --output-on-failure -j 2
# Two files at a time: the heap bound (most of the layer) is split in two files, one per lane.
layer "node tests of the wasm modules" node --test --test-concurrency=2 tests/node/
layer "wasm/scaling.d.ts against every response (tsc --noEmit)" node tests/types/check.mjs
layer "a new chapter folder needs no edit elsewhere" tests/newchapter/run.sh
# The browser tests serve the site the build layer wrote (the new-chapter layer builds its own into
# a scratch folder), instead of assembling it again.
layer "browser tests (headless Chromium)" env SB_SITE=build/site SB_SKIP_BUILD=1 node tests/browser/run.mjs
# The ASan layer builds the clang tree's libraries with its tests; the fuzz layer then compiles only
# the fuzzers' own files against them (without it, the fuzz layer builds those libraries itself).
if [ "${SB_SKIP_ASAN:-0}" != 1 ]; then
  layer "GoogleTest under ASan + UBSan" scripts/asan.sh
fi
# A fixed seed: a fresh clone then fuzzes what `FUZZ_SEED=1 FUZZ_CORPUS=fresh scripts/fuzz.sh` does
# here (longer runs of it reach past CI's 70 s), rather than new inputs each run; `npm run fuzz`
# draws new ones.
layer "fuzzers (70 s in all)" env FUZZ_TOTAL_TIME="${FUZZ_TOTAL_TIME:-70}" FUZZ_SEED="${FUZZ_SEED:-1}" scripts/fuzz.sh
