#!/usr/bin/env bash
# Memory per op profile at every resolution (target at r = 1: <= 1 KiB).
#   bench/profile_memory.sh [BUILD_DIR] [PROFILES]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
BIN=$BUILD/bench/profile_memory
bench_need_built "$BIN"
exec "$BIN" "${2:-100000}"
