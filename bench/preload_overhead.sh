#!/usr/bin/env bash
# Added cost per intercepted call of libosprof-preload.so on a loop of
# read(fd, buf, 0), against the same loop unprofiled in the same run.
# Runs alternate (baseline, pass-through, profiling) to share any drift of
# the machine; the best of ROUNDS is kept for each.
#   bench/preload_overhead.sh [BUILD_DIR] [CALLS] [ROUNDS]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
CALLS=${2:-5000000}
ROUNDS=${3:-5}
LOOP=$BUILD/bench/read_loop
LIB=$BUILD/libosprof-preload.so
bench_need_built "$LOOP" "$LIB"
bench_tmp

best() { sort -g | head -n 1; }
base=() pass=() prof=() mono=()
for _ in $(seq "$ROUNDS"); do
	base+=("$("$LOOP" "$CALLS")")
	pass+=("$(LD_PRELOAD=$LIB "$LOOP" "$CALLS")")
	prof+=("$(LD_PRELOAD=$LIB OSPROF_PRELOAD_DIR=$TMP "$LOOP" "$CALLS")")
	# Peer: the same interposer stamping with clock_gettime instead of rdtsc.
	mono+=("$(LD_PRELOAD=$LIB OSPROF_PRELOAD_DIR=$TMP OSPROF_TSC_MULT=0 "$LOOP" "$CALLS")")
	rm -f "$TMP"/*
done
b=$(printf '%s\n' "${base[@]}" | best)
p=$(printf '%s\n' "${pass[@]}" | best)
q=$(printf '%s\n' "${prof[@]}" | best)
m=$(printf '%s\n' "${mono[@]}" | best)
awk -v b="$b" -v p="$p" -v q="$q" -v m="$m" -v n="$CALLS" -v r="$ROUNDS" 'BEGIN {
	printf "read(fd, buf, 0) x %d calls, best of %d runs each (CPU time, fastest batch)\n", n, r
	printf "  %-34s %8.2f ns/call\n", "unprofiled (baseline)", b
	printf "  %-34s %8.2f ns/call  %+6.2f ns  x%.3f\n", "preloaded, not profiling", p, p - b, p / b
	printf "  %-34s %8.2f ns/call  %+6.2f ns  x%.3f\n", "profiling, rdtsc (default)", q, q - b, q / b
	printf "  %-34s %8.2f ns/call  %+6.2f ns  x%.3f\n", "profiling, clock_gettime (peer)", m, m - b, m / b
	printf "added per intercepted call: %.2f ns (target <= 25 ns: %s)\n", q - b, q - b <= 25 ? "met" : "NOT met"
}'
