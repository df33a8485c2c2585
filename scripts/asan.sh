#!/usr/bin/env bash
# The GoogleTest suite built with clang under AddressSanitizer and UndefinedBehaviorSanitizer.
# It runs as one sb_tests process per core, each a share of the tests (GoogleTest's sharding),
# not a process per test as ctest runs it: under ASan a process's start costs more than most
# tests (the whole suite: 155 s of CPU through ctest, 60 s in one process; bench/NOTES.md). The
# one-chapter programs still run through ctest. A failing share prints its log's end.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs" --target sb_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

shard() {
  local log=build/asan/sb_tests.shard$1.log
  if ! (cd build/asan && GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$1 ./bin/sb_tests) >"$log" 2>&1; then
    tail -n 80 "$log"
    echo "asan: share $1 of $jobs of sb_tests FAILED (whole log: $log)"
    return 1
  fi
  echo "asan: share $1 of $jobs: $(grep -E '^\[==========\] [0-9]+ tests' "$log" | tail -1 | sed 's/^\[=*\] //')"
}

failed=0
pids=()
for ((i = 0; i < jobs; i++)); do
  shard "$i" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
ctest --test-dir build/asan --output-on-failure -j "$jobs" -R '^chapter_alone_' || failed=1
exit $failed
