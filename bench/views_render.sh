#!/usr/bin/env bash
# Cost of the views on large profile sets, against `osprof merge` of the
# same file in the same run (read the set and write it back: the I/O every
# view also does, so the ratios show what each view adds). Best of ROUNDS
# wall-clock times.
#   bench/views_render.sh [BUILD_DIR] [PROFILES] [ROUNDS]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
N=${2:-10000}
ROUNDS=${3:-5}
GEN=$BUILD/tests/progs/ospgen
bench_need_built "$OSPROF" "$GEN"
bench_tmp bench-views
"$GEN" -o "$TMP/set.osp" -n "$N" -s 10

# best_ms CMD...: the fastest of ROUNDS runs, in milliseconds.
best_ms() {
	local best=
	for _ in $(seq "$ROUNDS"); do
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		local ms=$(((t1 - t0) / 1000000))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	echo "$best"
}
base=$(best_ms "$OSPROF" merge -o "$TMP/copy.osp" "$TMP/set.osp")
svg=$(best_ms "$OSPROF" plot -o "$TMP/p.svg" --top 0 "$TMP/set.osp")
svg30=$(best_ms "$OSPROF" plot -o "$TMP/p30.svg" "$TMP/set.osp")
gp=$(best_ms "$OSPROF" plot -o "$TMP/p.gp" --top 0 "$TMP/set.osp")
html=$(best_ms "$OSPROF" html -o "$TMP/r.html" "$TMP/set.osp")
[ "$base" -gt 0 ] || base=1
printf '%d profiles (10 slices each), best of %d runs\n' "$N" "$ROUNDS"
printf '%-34s %8s %8s %10s\n' "command" "ms" "ratio" "bytes"
row() { printf '%-34s %8d %8.2f %10s\n' "$1" "$2" "$(echo "$2 / $base" | bc -l)" "$3"; }
row "merge -o (read + write, baseline)" "$base" "$(stat -c %s "$TMP/copy.osp")"
row "plot --top 0 (SVG, all panels)" "$svg" "$(stat -c %s "$TMP/p.svg")"
row "plot (SVG, 30 panels)" "$svg30" "$(stat -c %s "$TMP/p30.svg")"
row "plot --top 0 (gnuplot script)" "$gp" "$(stat -c %s "$TMP/p.gp")"
row "html" "$html" "$(stat -c %s "$TMP/r.html")"
