#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*.cpp) and runs each for FUZZ_RUNS inputs (default 1e6).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${FUZZ_RUNS:-1000000}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "${JOBS:-2}" --target $(ls fuzz/*.cpp | xargs -n1 basename | sed "s/\.cpp$//")
mkdir -p build/asan/fuzz/corpus
for src in fuzz/*.cpp; do
  name=$(basename "$src" .cpp)
  corpus=build/asan/fuzz/corpus/$name
  mkdir -p "$corpus"
  [ -d "fuzz/seeds/$name" ] && cp -n fuzz/seeds/$name/* "$corpus"/ 2>/dev/null || true
  echo "-- $name: $runs runs"
  log=build/asan/fuzz/$name.log
  if ! build/asan/bin/$name -runs="$runs" -max_len=512 -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix=build/asan/fuzz/ "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name found a failing input (saved under build/asan/fuzz/)"
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|Done)" "$log" || true
done
