#!/usr/bin/env bash
# Cost of the views on large profile sets, against `osprof merge` of the
# same file in the same run (read the set and write it back: the I/O every
# view also does, so the ratios show what each view adds). Best of ROUNDS
# wall-clock times.
#   bench/views_render.sh [BUILD_DIR] [PROFILES] [ROUNDS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
N=${2:-10000}
ROUNDS=${3:-5}
OSPROF=$BUILD/osprof
GEN=$BUILD/tests/progs/ospgen
for f in "$OSPROF" "$GEN"; do
	[ -x "$f" ] || { echo "views_render: $f missing (run make)" >&2; exit 2; }
done
DIR=$(mktemp -d /tmp/osprof-bench-views.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
"$GEN" -o "$DIR/set.osp" -n "$N" -s 10

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
base=$(best_ms "$OSPROF" merge -o "$DIR/copy.osp" "$DIR/set.osp")
svg=$(best_ms "$OSPROF" plot -o "$DIR/p.svg" --top 0 "$DIR/set.osp")
svg30=$(best_ms "$OSPROF" plot -o "$DIR/p30.svg" "$DIR/set.osp")
gp=$(best_ms "$OSPROF" plot -o "$DIR/p.gp" --top 0 "$DIR/set.osp")
html=$(best_ms "$OSPROF" html -o "$DIR/r.html" "$DIR/set.osp")
[ "$base" -gt 0 ] || base=1
printf '%d profiles (10 slices each), best of %d runs\n' "$N" "$ROUNDS"
printf '%-34s %8s %8s %10s\n' "command" "ms" "ratio" "bytes"
row() { printf '%-34s %8d %8.2f %10s\n' "$1" "$2" "$(echo "$2 / $base" | bc -l)" "$3"; }
row "merge -o (read + write, baseline)" "$base" "$(stat -c %s "$DIR/copy.osp")"
row "plot --top 0 (SVG, all panels)" "$svg" "$(stat -c %s "$DIR/p.svg")"
row "plot (SVG, 30 panels)" "$svg30" "$(stat -c %s "$DIR/p30.svg")"
row "plot --top 0 (gnuplot script)" "$gp" "$(stat -c %s "$DIR/p.gp")"
row "html" "$html" "$(stat -c %s "$DIR/r.html")"
