#!/usr/bin/env bash
# What osprof mount (the stack layer) costs per operation: one workload run
# on the lower directory directly, through libfuse's own passthrough_ll
# example (the anchor: a FUSE pass-through that profiles nothing) and
# through osprof mount, alternating in one run; best of ROUNDS each.
# passthrough_ll is compiled here from the source Debian's libfuse3-dev
# ships in /usr/share/doc/libfuse3-dev/examples (no binary is packaged).
# Target: osprof mount <= 1.2x passthrough_ll.
#   bench/stack_overhead.sh [BUILD_DIR] [ROUNDS]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
ROUNDS=${2:-3}
PLL_SRC=/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c
bench_need_built "$OSPROF"
[ -r "$PLL_SRC" ] || { echo "stack_overhead: $PLL_SRC missing (apt-get install libfuse3-dev)" >&2; exit 2; }
command -v fio >/dev/null || { echo "stack_overhead: fio missing" >&2; exit 2; }
DIR=$(mktemp -d /tmp/osprof-bench.XXXXXX)
PIDS=()
cleanup() {
	for m in "$DIR/pll" "$DIR/osp"; do
		mountpoint -q "$m" && { fusermount3 -u -z "$m" 2>/dev/null || umount -l "$m"; }
	done
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$DIR"
}
trap cleanup EXIT
mkdir -p "$DIR/lower" "$DIR/pll" "$DIR/osp"
cc -O2 -o "$DIR/passthrough_ll" "$PLL_SRC" $(pkg-config --cflags --libs fuse3)
wait_mounted() {
	for _ in $(seq 200); do mountpoint -q "$1" && return 0; sleep 0.05; done
	echo "stack_overhead: $1 not mounted" >&2
	exit 1
}
"$DIR/passthrough_ll" -f -o source="$DIR/lower" "$DIR/pll" 2>/dev/null &
PIDS+=($!)
"$OSPROF" mount -o "$DIR/p.osp" "$DIR/lower" "$DIR/osp" &
PIDS+=($!)
wait_mounted "$DIR/pll"
wait_mounted "$DIR/osp"
tar -C "$ROOT" -cf "$DIR/src.tar" lib include cli collect analysis render

# One round in directory $1: 4 KiB random reads and writes (fio, psync),
# then a source tree extracted, listed, read and removed. Wall ns.
workload() {
	local t0 t1
	t0=$(date +%s%N)
	fio --name=rw --directory="$1" --rw=randrw --bs=4k --size=8m --ioengine=psync \
		--fsync=64 --output=/dev/null
	mkdir "$1/t"
	tar -C "$1/t" -xf "$DIR/src.tar"
	find "$1/t" -type f -exec cat {} + >/dev/null
	ls -lR "$1/t" >/dev/null
	rm -rf "$1/t" "$1"/rw.*
	t1=$(date +%s%N)
	echo $((t1 - t0))
}
lower=() pll=() osp=()
for _ in $(seq "$ROUNDS"); do
	lower+=("$(workload "$DIR/lower")")
	pll+=("$(workload "$DIR/pll")")
	osp+=("$(workload "$DIR/osp")")
done
best() { printf '%s\n' "$@" | sort -n | head -n 1; }
l=$(best "${lower[@]}") p=$(best "${pll[@]}") o=$(best "${osp[@]}")
kill -TERM "${PIDS[1]}"
wait "${PIDS[1]}" 2>/dev/null || true
ops=$("$OSPROF" report --json "$DIR/p.osp" | python3 -c '
import json, sys
print(sum(p["count"] for p in map(json.loads, sys.stdin) if p.get("type") == "profile"))')
awk -v l="$l" -v p="$p" -v o="$o" -v r="$ROUNDS" -v ops="$ops" 'BEGIN {
	printf "fio 4 KiB randrw 8 MiB + tar x/cat/ls -lR/rm of the osprof sources, best of %d rounds\n", r
	printf "  %-28s %9.1f ms\n", "lower directly", l / 1e6
	printf "  %-28s %9.1f ms  x%.2f of lower\n", "passthrough_ll (anchor)", p / 1e6, p / l
	printf "  %-28s %9.1f ms  x%.2f of lower\n", "osprof mount (profiling)", o / 1e6, o / l
	printf "osprof mount / passthrough_ll: x%.3f (target <= 1.2: %s)\n", o / p, o / p <= 1.2 ? "met" : "NOT met"
	printf "operations profiled over all %d rounds: %d (%.2f us extra per op vs passthrough_ll)\n", r, ops, (o - p) * r / ops / 1e3
}'
