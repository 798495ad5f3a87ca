#!/usr/bin/env bash
# Captures the real-workload part of the labelled corpus
# (tests/data/corpus/real): whole profile sets of ordinary programs under
# `osprof run -l syscall` (plus the programs' own app/user layers where they
# have them), on ext4 and xfs file systems on zram RAM disks (loop devices
# onto a temp dir where the kernel has no zram).
# Called by scripts/capture-corpus.sh (which captures the app-level part);
# runnable alone:
#   scripts/capture-real-corpus.sh [OUTDIR] [REPEATS]
# Labels (OUTDIR/labels), by construction:
#   A B * same              unchanged repeat: no profile of the set may differ
#   A B OP differs          controlled change: OP must be flagged (and ranked
#                           in the top 3)
# Needs root (eBPF, zram or loop devices), BTF, postmark, tar, find, grep, dd,
# mkfs.ext4, mkfs.xfs, and make (build/osprof, build/osprof-demo,
# build/tests/progs/corpus_workload).
set -eu
. "$(dirname "$0")/capture-lib.sh"
OUT=${1:-$ROOT/tests/data/corpus/real}
REPEATS=${2:-3}
PROG=$B/tests/progs/corpus_workload
capture_need postmark tar find grep dd mkfs.ext4 mkfs.xfs losetup taskset
loop_start
RA=
cleanup() {
	[ -n "${RA_DEFAULT:-}" ] && [ -n "${RA:-}" ] && echo "$RA_DEFAULT" >"$RA" 2>/dev/null
	loop_cleanup
}
trap cleanup EXIT
trap "exit 1" INT TERM

# RAM disks where the kernel has zram (repeatable device times), else loop
# devices with direct I/O onto the disk under TMPDIR.
if mkramdisk ext4; then
	DEVKIND="zram (RAM)"
	EXT4_DEV=$LAST_DEV
	mkramdisk xfs
else
	DEVKIND="loop, direct I/O to $TMPD"
	mkloop ext4
	EXT4_DEV=$LAST_DEV
	mkloop xfs
fi
XFS_DEV=$LAST_DEV
E=$TMPD/mnt-ext4
X=$TMPD/mnt-xfs
RA=/sys/block/$(basename "$EXT4_DEV")/queue/read_ahead_kb
RA_DEFAULT=$(cat "$RA")
echo "capture-real-corpus: ext4 on $EXT4_DEV, xfs on $XFS_DEV: $DEVKIND (read-ahead default ${RA_DEFAULT} KiB)"

# One CPU for ext4's journal thread and for the single-process workloads:
# an fsync waits for two wakeups between its caller and jbd2, and cost 37 us
# with both on one CPU against 70 us across CPUs (an idle vCPU is slow to
# wake), a 2x change between "unchanged" runs that the scheduler decided.
# The workloads that need two CPUs (seek2, hog) and their bases run free.
CPU=$(($(nproc) - 1))
JBD2=$(pgrep -x "jbd2/$(basename "$EXT4_DEV")-8" || true)
[ -n "$JBD2" ] && taskset -pc "$CPU" "$JBD2" >/dev/null
PIN="taskset -c $CPU"

# Fixtures: a 32 MiB file on each fs, a tar of /usr/include, postmark config.
for d in "$E" "$X"; do dd if=/dev/urandom of="$d/big" bs=1M count=32 status=none; done
sync
tar cf "$E/src.tar" -C /usr/include linux
cp "$E/src.tar" "$X/src.tar"
capture_postmark_cfg "$E/pm"
mkdir -p "$E/pm"

drop() { dd if="$1" iflag=nocache count=0 status=none; } # drops the file's pages only

# run NAME CMD...: one profiled run into $OUT/NAME.osp (app-level sets of
# corpus_workload are merged in when the command writes $TMPD/app.osp);
# pinned to $CPU unless FREE=1.
run() {
	local name=$1 pin=$PIN
	shift
	[ "${FREE:-}" = 1 ] && pin=
	rm -f "$TMPD/app.osp"
	$pin "$OSPROF" run -l syscall -o "$TMPD/k.osp" -- "$@" >/dev/null 2>"$TMPD/err" ||
		{ tail -5 "$TMPD/err" >&2; exit 1; }
	if [ -s "$TMPD/app.osp" ]; then
		"$OSPROF" merge --combine-hosts -o "$OUT/$name.osp" "$TMPD/app.osp" "$TMPD/k.osp"
	else
		cp "$TMPD/k.osp" "$OUT/$name.osp"
	fi
}

# variant NAME: runs the workload of variant NAME once (setup not profiled).
variant() {
	case $1 in
	postmark) rm -rf "$E/pm" && mkdir -p "$E/pm" && run "$2" postmark "$TMPD/pm.cfg" ;;
	tar) rm -rf "$E/x" && mkdir -p "$E/x" && run "$2" tar xf "$E/src.tar" -C "$E/x" ;;
	find) run "$2" find /usr/include -name '*.h' -newer /etc/hostname ;;
	grep) run "$2" sh -c 'grep -rl zzqqxx_nomatch /usr/include; exit 0' ;; # grep exits 1: no match
	dd) run "$2" dd if="$E/big" of=/dev/null bs=4k status=none ;;
	demo) run "$2" "$B/osprof-demo" "$E" ;;
	warm) dd if="$E/big" of=/dev/null bs=1M status=none && run "$2" dd if="$E/big" of=/dev/null bs=4k status=none ;;
	cold) drop "$E/big" && run "$2" dd if="$E/big" of=/dev/null bs=4k status=none ;;
	ra0 | ra128 | ra2048)
		local kb=${1#ra}
		echo "$kb" >"$RA"
		drop "$E/big"
		run "$2" dd if="$E/big" of=/dev/null bs=4k status=none
		echo "$RA_DEFAULT" >"$RA" ;;
	buffered) dd if="$E/big" of=/dev/null bs=1M status=none && run "$2" dd if="$E/big" of=/dev/null bs=4k count=4096 status=none ;;
	odirect) run "$2" dd if="$E/big" of=/dev/null bs=4k count=4096 iflag=direct status=none ;;
	seek1) FREE=1 run "$2" "$PROG" lseek one "$TMPD/app.osp" "$E" ;;
	seek2) FREE=1 run "$2" "$PROG" lseek two "$TMPD/app.osp" "$E" ;;
	alone) FREE=1 run "$2" "$PROG" preempt alone "$TMPD/app.osp" "$E" ;;
	hog) FREE=1 run "$2" "$PROG" preempt hog2 "$TMPD/app.osp" "$E" ;; # 2 hogs: waits of 2 Q
	nosync) rm -f "$E/w" && run "$2" dd if=/dev/zero of="$E/w" bs=4k count=1000 status=none ;;
	dsync) rm -f "$E/w" && run "$2" dd if=/dev/zero of="$E/w" bs=4k count=1000 oflag=dsync status=none ;;
	# tar x on each: closing a file just written costs xfs ~3x what it
	# costs ext4 (0.8 vs 2.3 us here); dsync writes, both bound by their
	# journal, were not a difference the file systems make repeatably
	ext4) rm -rf "$E/x" && mkdir "$E/x" && run "$2" tar xf "$E/src.tar" -C "$E/x" ;;
	xfs) rm -rf "$X/x" && mkdir "$X/x" && run "$2" tar xf "$X/src.tar" -C "$X/x" ;;
	*) echo "unknown variant $1" >&2; exit 2 ;;
	esac
}

mkdir -p "$OUT"
rm -f "$OUT"/*.osp
labels=$OUT/labels
{
	echo "# A B PROFILE LABEL: '*' same = no profile of the set differs (unchanged repeat);"
	echo "# PROFILE differs = a controlled change that must be flagged. scripts/capture-real-corpus.sh"
	echo "# captured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -r), $(nproc) CPUs; $DEVKIND, read-ahead default ${RA_DEFAULT} KiB; jbd2 and single-process workloads on CPU $CPU"
} >"$labels"
# Unchanged repeats, after one unprofiled warm-up run: the first run of
# find or grep reads the directories from disk, the next ones do not (a real
# change of cache state, not a repeat).
for w in postmark tar find grep dd demo; do
	variant "$w" warmup
	for i in $(seq 1 "$REPEATS"); do variant "$w" "$w-$i"; done
done
rm -f "$OUT/warmup.osp"
# Controlled changes: base:changed:changed profiles. Variants interleaved.
CHANGES="warm:cold:syscall:read
ra0:ra128:syscall:read
ra128:ra2048:syscall:read
buffered:odirect:syscall:read
seek1:seek2:syscall:lseek,app:lseek
alone:hog:app:read0
nosync:dsync:syscall:write
ext4:xfs:syscall:close"
declare -A done_v
for c in $CHANGES; do
	IFS=: read -r base changed _ <<<"$c"
	for i in $(seq 1 "$REPEATS"); do
		for v in "$base" "$changed"; do
			[ -n "${done_v[$v-$i]:-}" ] || variant "$v" "$v-$i"
			done_v[$v-$i]=1
		done
	done
done
{
	for w in postmark tar find grep dd demo; do
		for i in $(seq 1 "$REPEATS"); do
			for j in $(seq $((i + 1)) "$REPEATS"); do echo "$w-$i.osp $w-$j.osp * same"; done
		done
	done
	for c in $CHANGES; do
		IFS=: read -r base changed ops <<<"$c"
		for v in "$base" "$changed"; do
			for i in $(seq 1 "$REPEATS"); do
				for j in $(seq $((i + 1)) "$REPEATS"); do echo "$v-$i.osp $v-$j.osp * same"; done
			done
		done
		for i in $(seq 1 "$REPEATS"); do
			for op in ${ops//,/ }; do echo "$base-$i.osp $changed-$i.osp $op differs"; done
		done
	done
} | awk '!seen[$0]++' >>"$labels"
echo "capture-real-corpus: $(ls "$OUT"/*.osp | wc -l) sets, $(grep -vc '^#' "$labels") labelled lines in $OUT ($(du -sh "$OUT" | cut -f1))"
