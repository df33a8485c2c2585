#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*.cpp, under ASan + UBSan) and runs each, two at a time (JOBS),
# for FUZZ_RUNS inputs (default 1e6: `npm run fuzz`), or FUZZ_TIME seconds each, or both (whichever
# ends first); FUZZ_TOTAL_TIME=T instead gives all targets together T seconds of wall time, shared
# out by the number of targets and lanes (`npm test` runs 70 s). Each run starts from the seeds
# each target writes from the registry (fuzz/seeds.hpp: every chapter's calculators and problems),
# the committed seeds (fuzz/seeds/<fuzzer>, written by scripts/fuzz-seeds.mjs) and the corpus kept
# in build/asan/fuzz/corpus from earlier runs. Inputs may be as long as each target reads: fuzz_api
# up to the 1 MiB request cap (FUZZ_API_MAX_LEN overrides it), the others what their parsers take.
# FUZZ_SEED fixes libFuzzer's random seed (npm test sets it, so that a CI run draws what a run here
# with the same seed and no kept corpus draws: FUZZ_CORPUS=fresh leaves the kept corpus out).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-2}"
targets=$(ls fuzz/*.cpp | xargs -n1 basename | sed "s/\.cpp$//")
n=$(echo "$targets" | wc -w)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs" --target $targets
mkdir -p build/asan/fuzz/corpus

runs="${FUZZ_RUNS:-}"
time_each="${FUZZ_TIME:-}"
if [ -n "${FUZZ_TOTAL_TIME:-}" ]; then
  lanes=$((jobs < n ? jobs : n))
  time_each=$((FUZZ_TOTAL_TIME * lanes / n))
fi
[ -n "$runs$time_each" ] || runs=1000000

# The longest input worth trying: the caps of what each target parses.
max_len() {
  case "$1" in
    fuzz_api) echo "${FUZZ_API_MAX_LEN:-1048576}" ;;  # the request cap without a long text
    fuzz_expr | fuzz_answer) echo 9000 ;;             # 2000 characters of a formula, in UTF-8
    fuzz_sharding) echo 2048 ;;
    fuzz_nccl) echo 16384 ;;  # a few dozen lines of a log
    fuzz_hlo) echo 16384 ;;   # a computation of a few dozen instructions
    *) echo 512 ;;  # fuzz_units: answers up to 200 bytes; fuzz_calc: bytes that steer choices
  esac
}

# One target: its registry seeds, then the run; prints what it did, and its log's end on failure.
fuzz_one() {
  local name=$1 bin=build/asan/bin/$1 corpus=build/asan/fuzz/corpus/$1
  local seeds=build/asan/fuzz/seeds/$1 log=build/asan/fuzz/$1.log
  mkdir -p "$corpus"
  rm -rf "$seeds" && mkdir -p "$seeds"
  SB_FUZZ_WRITE_SEEDS=$PWD/$seeds ASAN_OPTIONS=detect_leaks=0 "$bin" -runs=0 >/dev/null 2>&1
  local n_seeds
  n_seeds=$(ls "$seeds" | wc -l)
  local dirs=("$seeds")
  [ "${FUZZ_CORPUS:-kept}" = fresh ] || dirs=("$corpus" "$seeds")
  [ -d "fuzz/seeds/$name" ] && dirs+=("fuzz/seeds/$name")
  local limit=()
  [ -n "$runs" ] && limit+=("-runs=$runs")
  [ -n "$time_each" ] && limit+=("-max_total_time=$time_each")
  [ -n "${FUZZ_SEED:-}" ] && limit+=("-seed=$FUZZ_SEED")
  local t0=$SECONDS
  # ASan's defaults hold 256 MB of freed memory in quarantine and record 30 frames per allocation:
  # with them a fuzz_calc run (thousands of small allocations) spent a third of its time in page
  # faults, cache misses on cold blocks and stack unwinding. A use after free still shows within
  # 4 MB of later allocations, and a report still names the 5 innermost frames of the allocation
  # (rerun the saved input for the whole stack). -entropic=0: the entropic schedule's bookkeeping
  # was a fifth of each run, and in runs of seconds the plain schedule reaches as much coverage
  # per run (bench/NOTES.md, "Eighth pass: CI time").
  if ! ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=4:malloc_context_size=5}" \
      "$bin" "${limit[@]}" -max_len="$(max_len "$name")" -timeout=10 -rss_limit_mb=2048 -entropic=0 \
      -print_final_stats=1 -artifact_prefix=build/asan/fuzz/ "${dirs[@]}" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $name found a failing input (saved under build/asan/fuzz/)"
    return 1
  fi
  local units
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  local secs=$((SECONDS - t0 > 0 ? SECONDS - t0 : 1))
  echo "-- $name: ${units:-?} runs in $((SECONDS - t0)) s ($(( ${units:-0} / secs )) runs/s)," \
    "$n_seeds registry seeds, inputs up to $(max_len "$name") bytes," \
    "peak RSS $(sed -n 's/^stat::peak_rss_mb: *//p' "$log") MB"
}

echo "fuzz: $n targets, ${runs:+$runs runs}${runs:+${time_each:+ or }}${time_each:+$time_each s} each, $jobs at a time"
failed=0
running=0
for name in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
