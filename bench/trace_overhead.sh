#!/usr/bin/env bash
# Capture overhead of `osprof trace record` on Postmark (seed 004, section
# 4.1): the workload's elapsed time without tracing and under
# `osprof trace record -- postmark`, alternated ROUNDS times (medians
# compared, so that other load on the machine hits both alike).
#
# Default configuration (seed 004's): 500 files between 512 bytes and 1 MB
# in 100 subdirectories (Postmark's defaults otherwise: 512-byte blocks
# through stdio); seed 004 ran 100,000 transactions, scaled here to 20,000
# (TRACE_BENCH_TRANSACTIONS) so that a run takes ~22 s, not ~2 minutes
# (~3.6 million recorded system calls per run); on a fresh ext4 on a loop
# device with --direct-io=on backed by a file in /var/tmp, Postmark in a
# memory cgroup limited to TRACE_BENCH_MEM (default 128M; cgroup v2
# memory.max or v1 memory.limit_in_bytes). Seed 004 ran Postmark on a 1 GB
# machine: its ~250 MB working set did not stay in the page cache and the
# I/O reached the disk. Here the limit does that: Postmark is I/O-bound.
#
# TRACE_BENCH_CONFIG=cpu runs the earlier CPU-bound configuration instead
# (bench/trace_postmark.cfg.in: 1000 files of 512 B-64 KB, 10,000
# transactions, unbuffered 4 KB I/O, on /tmp, no memory limit), where the
# system calls are cheap and the per-event cost shows.
#
# Printed: elapsed overhead (target <= 5%), the CPU time of the workload
# and of the recorder, ns per recorded event from Postmark's own CPU time,
# events and drops (target 0), and then the per-event cost measured on
# `dd bs=1` (two system calls per byte), which noise hides less.
# Needs root, postmark, mkfs.ext4, losetup and /usr/bin/time.
# Usage: [TRACE_BENCH_CONFIG=seed004|cpu] [TRACE_BENCH_MEM=128M]
#        [TRACE_BENCH_TRANSACTIONS=N] bench/trace_overhead.sh [BUILD_DIR] [ROUNDS]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
ROUNDS=${2:-5}
CONFIG=${TRACE_BENCH_CONFIG:-seed004}
MEM=${TRACE_BENCH_MEM:-128M}
TRANS=${TRACE_BENCH_TRANSACTIONS:-20000}
die() {
	echo "trace_overhead: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root"
command -v postmark >/dev/null || die "postmark not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
case $CONFIG in seed004 | cpu) ;; *) die "TRACE_BENCH_CONFIG=$CONFIG: expected seed004 or cpu" ;; esac
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/osprof" >/dev/null

TMP=$(mktemp -d /tmp/osprof-bench-trace.XXXXXX)
IMG="" LOOP="" CG=""
cleanup() {
	# Interrupted mid-run: end the workload we started (it holds the mount).
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		for _ in $(seq 50); do
			pids=$(cat "$CG/cgroup.procs" 2>/dev/null)
			[ -z "$pids" ] && break
			kill $pids 2>/dev/null
			sleep 0.1
		done
	fi
	if [ -n "$LOOP" ]; then
		mountpoint -q "$TMP/pm" && umount "$TMP/pm"
		losetup -d "$LOOP"
	fi
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG"
	[ -n "$IMG" ] && rm -f "$IMG"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$TMP/pm"

if [ "$CONFIG" = cpu ]; then
	sed "s|@DIR@|$TMP/pm|" "$ROOT/bench/trace_postmark.cfg.in" >"$TMP/pm.cfg"
	desc="CPU-bound: 1000 files of 512 B-64 KB, 10,000 transactions, 10 subdirectories, unbuffered 4 KB I/O, on $(df --output=fstype "$TMP" | tail -1) ($TMP), no memory limit"
else
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 missing"
	IMG=$(mktemp /var/tmp/osprof-trace-bench.XXXXXX)
	truncate -s 4G "$IMG"
	mkfs.ext4 -q -F "$IMG" || die "mkfs.ext4 failed"
	LOOP=$(losetup -f --show --direct-io=on "$IMG") || die "losetup failed"
	mount -t ext4 "$LOOP" "$TMP/pm" || die "cannot mount $LOOP"
	# The workload joins the cgroup itself (below); osprof stays outside.
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		grep -qw memory /sys/fs/cgroup/cgroup.controllers || die "cgroup v2 without the memory controller"
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			echo +memory >/sys/fs/cgroup/cgroup.subtree_control || die "cannot enable the memory controller"
		CG=/sys/fs/cgroup/osprof-trace-bench.$$
		mkdir "$CG"
		echo "$MEM" >"$CG/memory.max"
		echo 0 >"$CG/memory.swap.max" 2>/dev/null || true
		cgv=v2
	else
		[ -d /sys/fs/cgroup/memory ] || die "no memory cgroup (v1 /sys/fs/cgroup/memory or v2)"
		CG=/sys/fs/cgroup/memory/osprof-trace-bench.$$
		mkdir "$CG"
		echo "$MEM" >"$CG/memory.limit_in_bytes"
		cgv=v1
	fi
	cat >"$TMP/pm.cfg" <<EOF
set location $TMP/pm
set number 500
set size 512 1048576
set transactions $TRANS
set subdirectories 100
set report terse
run
quit
EOF
	desc="seed 004: 500 files of 512 B-1 MB, $TRANS transactions, 100 subdirectories, 512-byte stdio I/O, on ext4 on $LOOP (direct I/O to $IMG), memory cgroup $cgv limited to $MEM"
fi

# Runs postmark in the cgroup and times it alone: "elapsed_s cpu_s".
cat >"$TMP/timed.sh" <<'SH'
[ -n "$3" ] && echo $$ >"$3/cgroup.procs"
/usr/bin/time -f "%e %U %S" -o "$2.raw" postmark "$1" >/dev/null
awk '{printf "%s %.2f\n", $1, $2 + $3}' "$2.raw" >"$2"
SH
echo "config: $desc"
# The recorder's fixed cost (loading the programs, BTF) apart from events.
fixed=()
for i in 1 2 3; do
	rm -rf "$TMP/trace"
	/usr/bin/time -f "%U %S" -o "$TMP/rt" "$OSPROF" trace record -w "$TMP/trace" -- true 2>/dev/null
	fixed+=("$(awk '{printf "%.2f", $1 + $2}' "$TMP/rt")")
done
plain_run() {
	sync
	bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t" "$CG"
	read -r pe pc <"$TMP/t"
}
traced_run() {
	sync
	rm -rf "$TMP/trace"
	# The recorder's own CPU time: its total (children included) less the workload's.
	/usr/bin/time -f "%U %S" -o "$TMP/rt" "$OSPROF" trace record -w "$TMP/trace" -- \
		bash "$TMP/timed.sh" "$TMP/pm.cfg" "$TMP/t" "$CG" 2>"$TMP/rec.err" ||
		die "trace record failed: $(tail -1 "$TMP/rec.err")"
	read -r te tc <"$TMP/t"
	rc=$(awk -v c="$tc" '{printf "%.2f", $1 + $2 - c}' "$TMP/rt")
	d=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/rec.err")
	ev=$(sed -n 's/^osprof trace: \([0-9]*\) events in.*/\1/p' "$TMP/rec.err")
}
plain=() traced=() pcpu=() tcpu=() rcpu=() er=() cr=() drops=0 events=0
for i in $(seq "$ROUNDS"); do
	# ABBA order: a drift in the machine's load hits both sides alike.
	if [ $((i % 2)) -eq 1 ]; then
		plain_run
		traced_run
	else
		traced_run
		plain_run
	fi
	plain+=("$pe") pcpu+=("$pc") traced+=("$te") tcpu+=("$tc") rcpu+=("$rc")
	er+=("$(awk -v p="$pe" -v t="$te" 'BEGIN {printf "%.4f", t / p}')")
	cr+=("$(awk -v p="$pc" -v t="$tc" 'BEGIN {printf "%.4f", t / p}')")
	drops=$((drops + d))
	events=$((events + ev))
	echo "round $i: plain $pe s (cpu $pc s), traced $te s (cpu $tc s, recorder $rc s), $ev events, $d dropped"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
mp=$(median "${plain[@]}") mt=$(median "${traced[@]}")
cp=$(median "${pcpu[@]}") ct=$(median "${tcpu[@]}") crec=$(median "${rcpu[@]}")
mer=$(median "${er[@]}") mcr=$(median "${cr[@]}") mfix=$(median "${fixed[@]}")
awk -v p="$mp" -v t="$mt" -v cp="$cp" -v ct="$ct" -v crec="$crec" -v d="$drops" -v e="$events" -v r="$ROUNDS" \
	-v er="$mer" -v cr="$mcr" -v fix="$mfix" 'BEGIN {
	n = e / r
	printf "\nmedian elapsed: plain %.2f s, traced %.2f s\n", p, t
	printf "elapsed overhead: %+.2f%% (median traced/plain of the rounds = %.4f; target <= 5%%)\n", (er - 1) * 100, er
	printf "median CPU time of Postmark: plain %.2f s, traced %.2f s; CPU time overhead %+.2f%% (median ratio %.4f)\n", cp, ct, (cr - 1) * 100, cr
	printf "recorder (osprof trace record) CPU time: %.2f s, of which %.2f s fixed (loading; measured with -- true)\n", crec, fix
	printf "events per run: %d; dropped: %d in %d runs (target 0)\n", n, d, r
	if (n > 0)
		printf "ns per event: %.0f in Postmark (CPU time, median ratio), %.0f in the recorder\n", (cr - 1) * cp / n * 1e9, (crec - fix) / n * 1e9
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
