#!/usr/bin/env bash
# Fleet scale (issue 14 item 4): 1,000 hosts x 200 profiles; host-aware
# merge, diff --by host and one /metrics render (text, protobuf), each with
# its ratio to loading the data (target: < 1 s each). The C program does the
# work: build it with make.
#   bench/fleet_scale.sh [BUILD_DIR] [HOSTS] [PROFILES]
set -eu
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
if ! [ -x "$build/bench/fleet_scale" ]; then
	echo "fleet_scale: $build/bench/fleet_scale missing (run make)" >&2
	exit 2
fi
exec "$build/bench/fleet_scale" "${2:-1000}" "${3:-200}"
