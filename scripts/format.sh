#!/usr/bin/env bash
# Applies the house style (.clang-format: Google's, 100 columns) to every C++ file in git, or with
# --check only reports the files that differ (npm test runs that).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}"
else
  clang-format -i "${files[@]}"
fi
