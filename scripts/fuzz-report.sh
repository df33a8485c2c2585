#!/usr/bin/env bash
# Lists what fuzz_calc finds in SECONDS (default 600): every
# calculator or problem with a NaN, inf or null result, or an error naming no input, once per
# place with the request that shows it; a sanitizer report (which stops a run) is recorded with its
# request and that calculator or problem is left out of the rest of the run. Written to
# build/asan/fuzz/report/{findings,crashes}.txt. Build first: scripts/fuzz.sh (or the asan preset's
# fuzz_calc target).
set -uo pipefail
cd "$(dirname "$0")/.."
total="${1:-600}"
out=build/asan/fuzz/report
mkdir -p "$out/corpus" "$out/artifacts"
SB_FUZZ_WRITE_SEEDS=$PWD/$out/corpus ASAN_OPTIONS=detect_leaks=0 build/asan/bin/fuzz_calc -runs=0 \
  >/dev/null 2>&1  # the seeds from the registry (fuzz/seeds.hpp)
: >"$out/findings.txt"
: >"$out/crashes.txt"
skip=""
end=$((SECONDS + total))
while [ $SECONDS -lt $end ]; do
  SB_FUZZ_REPORT=1 SB_FUZZ_SKIP="$skip" ASAN_OPTIONS=detect_leaks=0 \
    build/asan/bin/fuzz_calc -max_total_time=$((end - SECONDS)) -max_len=512 -timeout=10 \
    -artifact_prefix="$out/artifacts/" "$out/corpus" >"$out/run.log" 2>&1
  grep -A1 "^FINDING" "$out/run.log" >>"$out/findings.txt"
  grep -q "runtime error\|ERROR: " "$out/run.log" || break
  crash=$(ls -t "$out"/artifacts/* | head -1)
  request=$(SB_FUZZ_TRACE=1 SB_FUZZ_REPORT=1 build/asan/bin/fuzz_calc "$crash" 2>&1 |
    grep "^REQUEST" | tail -1)
  { grep -m1 "runtime error\|ERROR: " "$out/run.log"; echo "  $request"; } >>"$out/crashes.txt"
  who=$(echo "$request" | sed -E 's/.*"(name|id)":"([^"]*)".*/\2/')
  skip="${skip:+$skip,}$who"
done
echo "$(grep -c "^FINDING" "$out/findings.txt") findings in $(grep "^FINDING" "$out/findings.txt" |
  awk '{print $2}' | sort -u | wc -l) calculators and problems: $out/findings.txt"
echo "$(grep -c "^  REQUEST" "$out/crashes.txt") sanitizer reports (left out: ${skip:-none}): $out/crashes.txt"
