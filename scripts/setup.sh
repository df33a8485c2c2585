#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh Debian bookworm machine, then the npm
# dependencies. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ clang libclang-rt-14-dev emscripten nlohmann-json3-dev libgtest-dev
      chromium chromium-headless-shell fonts-dejavu-core clang-format)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules
fi
