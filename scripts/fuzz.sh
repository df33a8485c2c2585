#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*.cpp, under ASan + UBSan) and runs each for FUZZ_RUNS inputs
# (default 1e6: `npm run fuzz`; `npm test` runs a bounded 50000), or for FUZZ_TIME seconds each
# when that is set. Each run starts from the committed seeds (fuzz/seeds/<fuzzer>, written by
# scripts/fuzz-seeds.mjs) and the corpus kept in build/asan/fuzz/corpus from earlier runs.
# Inputs may be as long as each target reads: fuzz_api up to the 1 MiB request cap (FUZZ_API_MAX_LEN
# overrides it), the others what their parsers take.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${FUZZ_RUNS:-1000000}"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "${JOBS:-2}" --target $(ls fuzz/*.cpp | xargs -n1 basename | sed "s/\.cpp$//")
mkdir -p build/asan/fuzz/corpus

# The longest input worth trying: the caps of what each target parses.
max_len() {
  case "$1" in
    fuzz_api) echo "${FUZZ_API_MAX_LEN:-1048576}" ;;  # the request cap (core/api.cpp)
    fuzz_expr | fuzz_answer) echo 9000 ;;             # 2000 characters of a formula, in UTF-8
    fuzz_sharding) echo 2048 ;;
    fuzz_nccl) echo 16384 ;;  # a few dozen lines of a log
    *) echo 512 ;;  # fuzz_units: answers up to 200 bytes; fuzz_calc: bytes that steer choices
  esac
}

for src in fuzz/*.cpp; do
  name=$(basename "$src" .cpp)
  corpus=build/asan/fuzz/corpus/$name
  mkdir -p "$corpus"
  [ -d "fuzz/seeds/$name" ] && cp -n fuzz/seeds/$name/* "$corpus"/ 2>/dev/null || true
  if [ -n "${FUZZ_TIME:-}" ]; then
    limit="-max_total_time=$FUZZ_TIME"
    echo "-- $name: $FUZZ_TIME s, inputs up to $(max_len "$name") bytes"
  else
    limit="-runs=$runs"
    echo "-- $name: $runs runs, inputs up to $(max_len "$name") bytes"
  fi
  log=build/asan/fuzz/$name.log
  if ! build/asan/bin/$name "$limit" -max_len="$(max_len "$name")" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build/asan/fuzz/ "$corpus" \
      >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name found a failing input (saved under build/asan/fuzz/)"
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done)" "$log" || true
done
