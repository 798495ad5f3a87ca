#!/usr/bin/env bash
# Capture overhead on Postmark (seed 004, section 4.1): the workload's
# elapsed time without tracing and under `osprof trace record -- postmark`,
# alternated ROUNDS times (default 3; medians compared, so that the other
# load on the machine hits both alike), with the events dropped. One run;
# prints the ratio. Needs root and postmark.
# Usage: bench/trace_overhead.sh [BUILD_DIR] [ROUNDS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ROUNDS=${2:-3}
OSPROF=$BUILD/osprof
[ "$(id -u)" -eq 0 ] || { echo "trace_overhead: needs root" >&2; exit 1; }
command -v postmark >/dev/null || { echo "trace_overhead: postmark not installed" >&2; exit 1; }
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/osprof" >/dev/null
TMP=$(mktemp -d /tmp/osprof-bench-trace.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/pm"
sed "s|@DIR@|$TMP/pm|" "$ROOT/bench/trace_postmark.cfg.in" >"$TMP/pm.cfg"
# Times the workload itself (not osprof's start-up) in ns.
cat >"$TMP/timed.sh" <<'SH'
t0=$(date +%s%N); postmark "$1" >/dev/null; t1=$(date +%s%N); echo $((t1 - t0)) >"$2"
SH
plain=() traced=() drops=0 events=0
for i in $(seq "$ROUNDS"); do
	sync
	bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t"
	plain+=("$(cat "$TMP/t")")
	sync
	rm -rf "$TMP/trace"
	"$OSPROF" trace record -w "$TMP/trace" -- bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t" 2>"$TMP/rec.err"
	traced+=("$(cat "$TMP/t")")
	d=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/rec.err")
	e=$(sed -n 's/^osprof trace: \([0-9]*\) events in.*/\1/p' "$TMP/rec.err")
	drops=$((drops + d))
	events=$((events + e))
	printf "round %d: plain %.3f s, traced %.3f s (%d events, %d dropped)\n" "$i" \
		"$(echo "${plain[-1]} / 1e9" | bc -l)" "$(echo "${traced[-1]} / 1e9" | bc -l)" "$e" "$d"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
mp=$(median "${plain[@]}") mt=$(median "${traced[@]}")
awk -v p="$mp" -v t="$mt" -v d="$drops" -v e="$events" 'BEGIN {
	printf "\nmedian elapsed: plain %.3f s, traced %.3f s\n", p / 1e9, t / 1e9
	printf "overhead: %.2f%% (traced/plain = %.4f; target <= 5%%)\n", (t / p - 1) * 100, t / p
	printf "events recorded: %d, dropped: %d (target 0)\n", e, d
}'
