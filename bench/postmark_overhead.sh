#!/usr/bin/env bash
# Postmark with the default kernel layers (osprof run, no -l: syscall,fs,
# block,lock as root) against no profiling and against the timing floor of
# any system-call latency profiler (build/bench/osp_floor timed: a thread id
# and a clock read at sys_enter and sys_exit, nothing else), in one run with
# interleaved rounds whose order rotates (a fixed order let the second
# configuration of every round inherit the first one's writeback); prints
# median elapsed and system time of each and the overhead ratios (target:
# <= 2% elapsed).
#
# The configuration is seed 001's (section 5.2): Postmark's defaults with
# 20,000 files and 200,000 transactions "so that the working set is larger
# than OS caches and so that I/O requests will reach the disk". This machine
# has 24 GiB of RAM, so Postmark runs in a memory cgroup limited to
# PM_MEM (default 64M), on ext4 on a loop device with direct I/O onto a file
# in /var/tmp: the page cache is the cgroup's, and its misses and writeback
# reach the disk. PM_MODE=ram instead runs on a RAM-backed ext4 with no
# memory limit: no I/O at all, the system time is nearly all of the elapsed
# time, and the overhead is the probes' cost against Postmark's kernel work
# alone (reported as such; the paper's 2-4% concern the first mode).
# Needs root, postmark, mkfs.ext4, losetup and a memory cgroup.
# Usage: [PM_MODE=disk|ram] [PM_MEM=64M] [OSPROF_LAYERS=L,L]
#        bench/postmark_overhead.sh [FILES] [TRANSACTIONS] [ROUNDS]
set -u
source "$(dirname "$0")/lib.sh" ""
FILES=${1:-20000}
TRANS=${2:-200000}
ROUNDS=${3:-3}
MODE=${PM_MODE:-disk}
MEM=${PM_MEM:-64M}
die() { echo "$BENCH: $*" >&2; exit 1; }
bench_need_root
bench_need_built "$OSPROF" "$BUILD/bench/osp_floor"
command -v postmark >/dev/null || die "postmark not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
case $MODE in disk | ram) ;; *) die "PM_MODE must be disk or ram, not '$MODE'" ;; esac
TMP=$(mktemp -d /tmp/osprof-postmark.XXXXXX)
if [ "$MODE" = ram ]; then IMG=$(mktemp /dev/shm/osprof-pm.XXXXXX); else IMG=$(mktemp /var/tmp/osprof-pm.XXXXXX); fi
LOOP="" CG=""
cleanup() {
	mountpoint -q "$TMP/pm" && umount "$TMP/pm"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP" "$IMG"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A memory cgroup (v2 memory.max, else v1 memory.limit_in_bytes).
if [ "$MODE" = disk ]; then
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			echo +memory >/sys/fs/cgroup/cgroup.subtree_control || die "cannot enable the memory controller"
		CG=/sys/fs/cgroup/osprof-pm.$$
		mkdir "$CG" && echo "$MEM" >"$CG/memory.max" || die "cannot create memory cgroup $CG"
	elif [ -d /sys/fs/cgroup/memory ]; then
		CG=/sys/fs/cgroup/memory/osprof-pm.$$
		mkdir "$CG" && echo "$MEM" >"$CG/memory.limit_in_bytes" || die "cannot create memory cgroup $CG"
	else
		die "no memory cgroup (mount cgroup2 or the v1 memory controller)"
	fi
fi
mkdir -p "$TMP/pm"
truncate -s 4G "$IMG"
mkfs.ext4 -q -F "$IMG" || exit 1
if [ "$MODE" = disk ]; then
	LOOP=$(losetup --direct-io=on -f --show "$IMG") || exit 1
else
	LOOP=$(losetup -f --show "$IMG") || exit 1
fi
mount -t ext4 "$LOOP" "$TMP/pm" || exit 1
printf 'set location %s\nset number %s\nset transactions %s\nrun\nquit\n' "$TMP/pm" "$FILES" "$TRANS" >"$TMP/cfg"
# The workload: Postmark timed by /usr/bin/time, inside the cgroup if any
# (osprof itself stays outside it).
cat >"$TMP/pm.sh" <<SH
[ -n "$CG" ] && echo \$\$ >"$CG/cgroup.procs"
exec /usr/bin/time -f "%e %S" -o "$TMP/t" postmark "$TMP/cfg"
SH

# Prints "ELAPSED SYSTEM" seconds of one postmark run.
one() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	case $1 in
	osprof)
		# a loss does not end the bench: it is printed with the results
		"$OSPROF" run --allow-loss ${OSPROF_LAYERS:+-l "$OSPROF_LAYERS"} -o "$TMP/pm.osp" -- sh "$TMP/pm.sh" >/dev/null 2>"$TMP/err" ||
			die "osprof run failed: $(tail -1 "$TMP/err")"
		grep 'finished with losses' "$TMP/err" >>"$TMP/losses"
		;;
	floor) bench_floor timed sh "$TMP/pm.sh" >/dev/null || die "postmark under the floor failed" ;;
	*) sh "$TMP/pm.sh" >/dev/null ;;
	esac
	echo "$1 $(tail -1 "$TMP/t")" >&2
	tail -1 "$TMP/t"
}
configs="none floor osprof"
: >"$TMP/losses"
for c in $configs; do : >"$TMP/$c"; done
for r in $(seq "$ROUNDS"); do
	case $((r % 3)) in
	1) order="none floor osprof" ;;
	2) order="osprof none floor" ;;
	0) order="floor osprof none" ;;
	esac
	for c in $order; do one "$c" >>"$TMP/$c"; done
done
median() { sort -n -k"$2","$2" "$TMP/$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
if [ "$MODE" = disk ]; then where="ext4 on $LOOP (direct I/O to /var/tmp), memory cgroup of $MEM"; else where="ext4 on $LOOP in RAM, no memory limit"; fi
echo "postmark $FILES files, $TRANS transactions, median of $ROUNDS rounds; $where"
printf "%-8s %10s %10s\n" config "elapsed s" "system s"
for c in $configs; do printf "%-8s %10s %10s\n" "$c" "$(median $c 1)" "$(median $c 2)"; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
echo
echo "layers: $(awk '$1 == "meta" && $2 == "layers" { print $3 }' "$TMP/pm.osp")"
# Per-round ratios (rounds pair line by line): their median and spread.
spread() { # A B
	paste "$TMP/$1" "$TMP/$2" | awk '{ print ($1 / $3 - 1) * 100 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "median of rounds %+.1f%%, range %+.1f%% .. %+.1f%%", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
echo "elapsed overhead: $(ratio "$(median osprof 1)" "$(median none 1)")  (target <= +2%; $(spread osprof none))"
echo "system time overhead: $(ratio "$(median osprof 2)" "$(median none 2)")  (OSprof reported 4% of system time)"
echo "timing floor alone: elapsed $(ratio "$(median floor 1)" "$(median none 1)"), system time $(ratio "$(median floor 2)" "$(median none 2)")"
echo "osprof over the floor: elapsed $(ratio "$(median osprof 1)" "$(median floor 1)")"
echo "rounds with losses: $(wc -l <"$TMP/losses") of $ROUNDS"
sed 's/^/  /' "$TMP/losses"
exit 0
