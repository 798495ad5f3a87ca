#!/usr/bin/env bash
# ns added per system call by the syscall layer, in one run, next to:
#   floor     empty BPF programs on sys_enter/sys_exit (build/bench/osp_floor)
#   timed     the timing floor: thread id and a clock read at both ends, the
#             start kept per thread (osp_floor timed): what any latency
#             measurement on these tracepoints does at the least
#   bpftrace  the equivalent hist() script (tracepoints, per-tid start map)
#   perf      perf trace -s
# on a read(fd, buf, 0) loop (build/bench/readloop). Rounds are interleaved
# and the best of ROUNDS is kept per configuration, which filters out noise
# from other load on the machine. Prints ratios against the targets
# (osprof <= 1.5x floor, <= 1/4 of bpftrace). Needs root.
# Usage: bench/syscall_overhead.sh [N_CALLS] [ROUNDS]
set -u
source "$(dirname "$0")/lib.sh" ""
N=${1:-2000000}
ROUNDS=${2:-5}
LOOP=$BUILD/bench/readloop
# The loop runs pinned to the last CPU in every configuration (less noise from
# migrations); the probes run on the loop's CPU.
PIN=""
command -v taskset >/dev/null && PIN="taskset -c $(($(nproc) - 1))"
[ "$(id -u)" -eq 0 ] || { echo "syscall_overhead: needs root" >&2; exit 1; }
for f in "$LOOP" "$BUILD/bench/osp_floor" "$OSPROF"; do
	[ -x "$f" ] || { echo "syscall_overhead: $f missing; run make" >&2; exit 1; }
done
bench_tmp

ns() { awk '/^ns_per_call/ { print $2 }'; }
run_none() { $PIN "$LOOP" "$1" | ns; }
run_osprof() { "$OSPROF" run -l syscall -o "$TMP/o.osp" -- $PIN "$LOOP" "$1" 2>/dev/null | ns; }
run_floor() { bench_floor "${2:-}" $PIN "$LOOP" "$1" | ns; }
run_timed() { run_floor "$1" timed; }
BT_SCRIPT='tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@start[tid]/ { @lat[args->id] = hist(nsecs - @start[tid]); delete(@start[tid]); }'
run_bpftrace() { $PIN bpftrace -q -e "$BT_SCRIPT" -c "$LOOP $1" 2>/dev/null | ns; }
# perf trace costs tens of us per call: 1/100 of the calls.
run_perf() { perf trace -s -o /dev/null -- $PIN "$LOOP" $(($1 / 100)) 2>/dev/null | ns; }

# bpftrace resolves tracepoints in tracefs, unmounted on a fresh boot.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
configs="none floor timed osprof"
command -v bpftrace >/dev/null && configs="$configs bpftrace"
command -v perf >/dev/null && configs="$configs perf"
declare -A best
for r in $(seq "$ROUNDS"); do
	for c in $configs; do
		[ "$c" = perf ] && [ "$r" -gt 2 ] && continue
		v=$("run_$c" "$N")
		[ -n "$v" ] || { echo "syscall_overhead: $c produced no result" >&2; continue; }
		if [ -z "${best[$c]:-}" ] || awk -v a="$v" -v b="${best[$c]}" 'BEGIN { exit !(a < b) }'; then
			best[$c]=$v
		fi
	done
done
base=${best[none]}
printf "%-10s %12s %14s\n" config "ns/call" "added ns/call"
for c in $configs; do
	[ -n "${best[$c]:-}" ] || continue
	printf "%-10s %12.1f %14.1f\n" "$c" "${best[$c]}" "$(awk -v a="${best[$c]}" -v b="$base" 'BEGIN { print a - b }')"
done
added() { awk -v a="${best[$1]}" -v b="$base" 'BEGIN { print a - b }'; }
ratio() { awk -v a="$(added "$1")" -v b="$(added "$2")" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo
echo "osprof / floor    added cost ratio: $(ratio osprof floor)  (target <= 1.5)"
echo "osprof / timing floor added cost ratio: $(ratio osprof timed)  (timing floor / floor: $(ratio timed floor))"
[ -n "${best[bpftrace]:-}" ] && echo "osprof / bpftrace added cost ratio: $(ratio osprof bpftrace)  (target <= 0.25)"
[ -n "${best[perf]:-}" ] && echo "osprof / perf trace added cost ratio: $(ratio osprof perf)"
exit 0
