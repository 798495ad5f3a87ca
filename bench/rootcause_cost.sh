#!/usr/bin/env bash
# Per-call cost of the two osprof rootcause backends on a hot function:
# tests/progs/rc_bench.c calls f0 = rc_hot (which calls leaf() once) in
# batches and prints the mean ns per f0 call of each batch. Under
# `osprof rootcause` with a --decision-time no run reaches (10^6), f0 and its call
# site stay instrumented: 2 timed calls per f0 call (f0 itself + leaf).
# Prints the median ns per f0 call uninstrumented, with trampolines and with
# uprobes (same run, same machine), the added cost per timed call and the
# ratio to the baseline. Needs root for the uprobe part.
set -u
source "$(dirname "$0")/lib.sh" "${1:-}"
P=$BUILD/tests/progs/rc_bench
bench_tmp

# median of the "batch I NS" lines after the first SKIP batches
median() { awk -v skip="$2" '$1 == "batch" && $2 >= skip { print $3 }' "$1" | sort -n |
	awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

"$P" 30 200000 >"$TMP/base"
base=$(median "$TMP/base" 5)
rdtsc=$(awk '$1 == "rdtsc" { print $2 }' "$TMP/base")

# Instrumentation starts after --start-ops f0 calls, i.e. within batch 0.
"$OSPROF" rootcause --func "$P:rc_hot" --backend trampoline --start-ops 1000 \
	--decision-time 1000000 --peak 2 -- "$P" 30 200000 >"$TMP/tramp" 2>"$TMP/tramp.err"
tramp=$(median "$TMP/tramp" 5)

upro=nan
if [ "$(id -u)" -eq 0 ]; then
	"$OSPROF" rootcause --func "$P:rc_hot" --backend uprobe --start-ops 1000 \
		--decision-time 1000000 --peak 2 -- "$P" 12 5000 >"$TMP/up" 2>"$TMP/up.err"
	upro=$(median "$TMP/up" 3)
fi

awk -v b="$base" -v t="$tramp" -v u="$upro" -v r="$rdtsc" 'BEGIN {
	printf "%-22s %12s %16s %10s\n", "backend", "ns/f0 call", "ns/timed call", "ratio"
	printf "%-22s %12.1f %16s %10s\n", "none", b, "-", "1.00"
	printf "%-22s %12.1f %16.1f %10.2f\n", "trampoline", t, (t - b) / 2, t / b
	if (u != "nan")
		printf "%-22s %12.1f %16.1f %10.2f\n", "uprobe", u, (u - b) / 2, u / b
	else
		printf "%-22s %12s %16s %10s\n", "uprobe (needs root)", "-", "-", "-"
	printf "one RDTSC here: %.1f ns (a trampoline reads it twice per timed call)\n", r
	if (r > 0)
		printf "trampoline cost per timed call = %.2f RDTSC reads (same run)\n", (t - b) / 2 / r
	if (u != "nan")
		printf "trampoline vs uprobe per timed call: %.0fx cheaper\n", (u - b) / (t - b)
}'
