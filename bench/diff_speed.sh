#!/usr/bin/env bash
# Time of `osprof diff` on two sets of 10,000 profiles, next to the time to
# load them (target: diff < 1 s).
#   bench/diff_speed.sh [BUILD_DIR] [N] [R]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/bench/diff_speed
[ -x "$BIN" ] || { echo "diff_speed: $BIN missing (run make)" >&2; exit 2; }
exec "$BIN" "${2:-10000}" "${3:-1}"
