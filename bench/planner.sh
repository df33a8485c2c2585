#!/usr/bin/env bash
# The planner's whole search for a full v5p pod (LLaMA 3-70B, 4M tokens): instructions under
# callgrind (counted inside sb::training::plan only) and native time per configuration.
# Targets: at most 3e7 instructions per search, at most 40 ns per configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset native >/dev/null 2>&1
cmake --build --preset native -j2 --target sb_bench_planner >/dev/null
bin=build/native/bin/sb_bench_planner
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
  --toggle-collect='sb::training::plan(*' "$bin" --once >"$out/once.json" 2>"$out/cg.log"
instr=$(awk '/^summary:/ {print $2}' "$out/cg.out")
echo "callgrind: $(cat "$out/once.json")"
echo "instructions per search: $instr (target <= 3e7)"
echo "native: $("$bin")"
