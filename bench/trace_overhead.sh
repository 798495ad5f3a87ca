#!/usr/bin/env bash
# Capture overhead on Postmark (seed 004, section 4.1): the workload's
# elapsed time without tracing and under `osprof trace record -- postmark`,
# alternated ROUNDS times (default 5; medians compared, so that the other
# load on the machine hits both alike), with the events dropped. Elapsed time
# is what users see but is noisy on a shared machine (Postmark waits on the
# disk); the workload's CPU time (user + system, where the eBPF programs
# run) is printed too. Then the cost per recorded event, which noise hides
# less: system time of `dd bs=1` (two system calls per byte) with and
# without recording, and the Postmark overhead it predicts. One run; prints
# the ratios. Needs root and postmark.
# Usage: bench/trace_overhead.sh [BUILD_DIR] [ROUNDS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ROUNDS=${2:-5}
OSPROF=$BUILD/osprof
[ "$(id -u)" -eq 0 ] || { echo "trace_overhead: needs root" >&2; exit 1; }
command -v postmark >/dev/null || { echo "trace_overhead: postmark not installed" >&2; exit 1; }
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/osprof" >/dev/null
TMP=$(mktemp -d /tmp/osprof-bench-trace.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/pm"
sed "s|@DIR@|$TMP/pm|" "$ROOT/bench/trace_postmark.cfg.in" >"$TMP/pm.cfg"
# Times the workload itself (not osprof's start-up): "elapsed_s cpu_s".
cat >"$TMP/timed.sh" <<'SH'
/usr/bin/time -f "%e %U %S" -o "$2.raw" postmark "$1" >/dev/null
awk '{printf "%s %.2f\n", $1, $2 + $3}' "$2.raw" >"$2"
SH
plain=() traced=() pcpu=() tcpu=() drops=0 events=0
for i in $(seq "$ROUNDS"); do
	sync
	bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t"
	read -r e c <"$TMP/t"
	plain+=("$e") pcpu+=("$c")
	sync
	rm -rf "$TMP/trace"
	"$OSPROF" trace record -w "$TMP/trace" -- bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t" 2>"$TMP/rec.err"
	read -r e c <"$TMP/t"
	traced+=("$e") tcpu+=("$c")
	e=0 d=0
	d=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/rec.err")
	e=$(sed -n 's/^osprof trace: \([0-9]*\) events in.*/\1/p' "$TMP/rec.err")
	drops=$((drops + d))
	events=$((events + e))
	echo "round $i: plain ${plain[-1]} s (cpu ${pcpu[-1]} s), traced ${traced[-1]} s (cpu ${tcpu[-1]} s), $e events, $d dropped"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
mp=$(median "${plain[@]}") mt=$(median "${traced[@]}")
cp=$(median "${pcpu[@]}") ct=$(median "${tcpu[@]}")
awk -v p="$mp" -v t="$mt" -v cp="$cp" -v ct="$ct" -v d="$drops" -v e="$events" 'BEGIN {
	printf "\nmedian elapsed: plain %.2f s, traced %.2f s\n", p, t
	printf "elapsed overhead: %.2f%% (traced/plain = %.4f; target <= 5%%)\n", (t / p - 1) * 100, t / p
	printf "median CPU time: plain %.2f s, traced %.2f s: %.2f%% more\n", cp, ct, (ct / cp - 1) * 100
	printf "events recorded: %d, dropped: %d (target 0)\n", e, d
}'

# Per-event cost: dd's system time (where the eBPF programs run), plain and
# traced, medians of 3.
N=500000
cat >"$TMP/dd.sh" <<'SH'
/usr/bin/time -f "%S" -o "$2" dd if=/dev/zero of=/dev/null bs=1 count="$1" 2>/dev/null
SH
ps=() ts=()
for i in 1 2 3; do
	bash "$TMP/dd.sh" "$N" "$TMP/s"
	ps+=("$(cat "$TMP/s")")
	rm -rf "$TMP/trace"
	"$OSPROF" trace record -w "$TMP/trace" -- bash "$TMP/dd.sh" "$N" "$TMP/s" 2>"$TMP/rec.err"
	ts+=("$(cat "$TMP/s")")
	dd_drops=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/rec.err")
done
sp=$(median "${ps[@]}") st=$(median "${ts[@]}")
awk -v sp="$sp" -v st="$st" -v n="$N" -v d="$dd_drops" -v e="$events" -v r="$ROUNDS" -v p="$mp" 'BEGIN {
	per = (st - sp) / (2 * n) * 1e9
	printf "\nper event: dd bs=1 x %d: system time %.2f s plain, %.2f s traced: %.0f ns per recorded event (%s dropped)\n", n, sp, st, per, d
	printf "predicted Postmark overhead: %d events x %.0f ns / %.2f s = %.2f%%\n", e / r, per, p, e / r * per / 1e9 / p * 100
}'

