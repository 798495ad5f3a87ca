#!/usr/bin/env bash
# Time of `osprof diff` on two sets of 10,000 profiles, next to the time to
# load them (target: diff < 1 s).
#   bench/diff_speed.sh [BUILD_DIR] [N] [R]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
BIN=$BUILD/bench/diff_speed
bench_need_built "$BIN"
exec "$BIN" "${2:-10000}" "${3:-1}"
