#!/usr/bin/env bash
# Memory per op profile at every resolution (target at r = 1: <= 1 KiB).
#   bench/profile_memory.sh [BUILD_DIR] [PROFILES]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/bench/profile_memory
[ -x "$BIN" ] || { echo "profile_memory: $BIN missing (run make)" >&2; exit 2; }
exec "$BIN" "${2:-100000}"
