#!/usr/bin/env bash
# Fleet scale (issue 14 item 4): 1,000 hosts x 200 profiles; host-aware
# merge, diff --by host and one /metrics render (text, protobuf), each with
# its ratio to loading the data (target: < 1 s each).
#   bench/fleet_scale.sh [BUILD_DIR] [HOSTS] [PROFILES]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/bench/fleet_scale
[ -x "$BIN" ] || { echo "fleet_scale: $BIN missing (run make)" >&2; exit 2; }
exec "$BIN" "${2:-1000}" "${3:-200}"
