#!/usr/bin/env bash
# Captures the nesting part of the labelled corpus (tests/data/corpus/nesting):
# ordinary programs on ext4 and xfs loop images under
# `osprof run -l syscall,fs`, with bpftrace running in the same run as ground
# truth: for every fs tracepoint pair osprof profiles (`osprof list -v fs`),
# bpftrace counts the pair's start event by the system call in flight on
# the same thread. Each capture is NAME.osp and NAME.truth, lines
# "OUTER INNER COUNT" (OUTER a system call name, or "-" for none in flight;
# INNER the fs op). bench/nesting_accuracy.sh scores `osprof report --json
# --nesting` against them. The workloads are filtered by command name in
# bpftrace (osprof follows the process tree), so each runs its program
# directly.
#   scripts/capture-nesting-corpus.sh [OUTDIR] [REPEATS]
set -eu
. "$(dirname "$0")/capture-lib.sh"
OUT=${1:-$ROOT/tests/data/corpus/nesting}
REPEATS=${2:-2}
capture_need bpftrace postmark tar find grep dd mkfs.ext4 mkfs.xfs losetup python3
UNISTD=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
[ -r "$UNISTD" ] || { echo "capture-nesting-corpus: $UNISTD missing (linux-libc-dev)" >&2; exit 2; }
loop_start
BT=
cleanup() {
	[ -n "$BT" ] && kill "$BT" 2>/dev/null
	loop_cleanup
}
trap cleanup EXIT
trap "exit 1" INT TERM
# bpftrace resolves tracepoints in tracefs, unmounted on a fresh boot.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
mkloop ext4
mkloop xfs
E=$TMPD/mnt-ext4
X=$TMPD/mnt-xfs
dd if=/dev/urandom of="$E/big" bs=1M count=16 status=none
tar cf "$E/src.tar" -C /usr/include linux
capture_postmark_cfg "$E/pm"
sync

# The fs pairs osprof attaches here: "OP SUBSYS:START .. END" lines.
"$OSPROF" list -v fs | awk 'NR > 1 && $3 == ".." {print $1, $2}' >"$TMPD/pairs"
[ -s "$TMPD/pairs" ] || { echo "capture-nesting-corpus: no fs tracepoint pairs here" >&2; exit 2; }

# truth_script COMM: bpftrace counting each pair's start by the syscall in
# flight (id + 1; 0: none) for threads named COMM.
truth_script() {
	# The command's thread is osprof's held child until its execve has read
	# the program (comm changes at the end of exec): marked at that execve.
	local f="(comm == \"$1\" || @child[tid])"
	echo "tracepoint:raw_syscalls:sys_enter /comm == \"osprof\" && args->id == 59/ { @child[tid] = 1; }"
	echo "tracepoint:raw_syscalls:sys_enter /$f/ { @in[tid] = args->id + 1; }"
	echo "tracepoint:raw_syscalls:sys_exit /$f/ { delete(@in[tid]); }"
	while read -r op start; do
		echo "tracepoint:$start /$f/ { @n[\"$op\", @in[tid]] = count(); }"
	done <"$TMPD/pairs"
	echo "END { clear(@in); clear(@child); }"
}

# Drops the tracepoints bpftrace cannot load (e.g. xfs:xlog_iclog_sync)
# from the pairs, saying so: a script that only loads them and exits.
validate_pairs() {
	local bad
	while :; do
		{ truth_script none; echo 'BEGIN { exit(); }'; } >"$TMPD/v.bt"
		bpftrace "$TMPD/v.bt" >"$TMPD/v.out" 2>&1 && return 0
		bad=$(sed -n 's/.*Error loading program: tracepoint:\([^ ]*\).*/\1/p' "$TMPD/v.out" | head -n 1)
		[ -n "$bad" ] || { cat "$TMPD/v.out" >&2; exit 1; }
		echo "capture-nesting-corpus: bpftrace cannot load $bad: left out (truth and score)" >&2
		grep -v " $bad\$" "$TMPD/pairs" >"$TMPD/pairs.new"
		mv "$TMPD/pairs.new" "$TMPD/pairs"
	done
}

# start_truth COMM: bpftrace running, every probe attached (BEGIN runs
# after the attach and prints "ready").
start_truth() {
	{ truth_script "$1"; echo 'BEGIN { printf("ready\n"); }'; } >"$TMPD/t.bt"
	bpftrace "$TMPD/t.bt" >"$TMPD/bt.out" 2>"$TMPD/bt.err" &
	BT=$!
	for _ in $(seq 1200); do
		grep -q '^ready' "$TMPD/bt.out" && return 0
		kill -0 "$BT" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMPD/bt.out" "$TMPD/bt.err" >&2
	exit 1
}

# capture NAME COMM CMD...: one run under osprof and bpftrace.
capture() {
	local name=$1 comm=$2
	shift 2
	start_truth "$comm"
	"$OSPROF" run -l syscall,fs --fs-ops all --allow-loss -o "$OUT/$name.osp" -- "$@" >/dev/null 2>"$TMPD/err" ||
		[ "$comm" = grep ] || { tail -5 "$TMPD/err" >&2; exit 1; }
	# bpftrace installs its SIGINT handler (print the maps, exit) a moment
	# after BEGIN; until then SIGINT is ignored in a background job: repeat
	for _ in $(seq 30); do
		kill -INT "$BT" 2>/dev/null || break
		for _ in $(seq 20); do # up to 2 s to print the maps and exit
			kill -0 "$BT" 2>/dev/null || break 2
			sleep 0.1
		done
	done
	wait "$BT" || true
	BT=
	# @n[ext4_sync_file, 75]: 60 -> "fsync ext4_sync_file 60"
	python3 - "$UNISTD" "$TMPD/bt.out" >"$OUT/$name.truth" <<'PY'
import re, sys
names = {}
for l in open(sys.argv[1]):
    m = re.match(r"#define __NR_(\w+) (\d+)$", l.strip())
    if m:
        names[int(m.group(2))] = m.group(1)
for l in open(sys.argv[2]):
    m = re.match(r"@n\[(\w+), (\d+)\]: (\d+)$", l.strip())
    if m:
        nr = int(m.group(2))
        outer = "-" if nr == 0 else names.get(nr - 1, "syscall_%d" % (nr - 1))
        print(outer, m.group(1), m.group(3))
PY
	echo "capture-nesting-corpus: $name: $(wc -l <"$OUT/$name.truth") relations"
}

validate_pairs
mkdir -p "$OUT"
rm -f "$OUT"/*.osp "$OUT"/*.truth
cut -d' ' -f1 "$TMPD/pairs" >"$OUT/ops" # the fs ops the truth covers
for i in $(seq 1 "$REPEATS"); do
	rm -rf "$E/x" && mkdir -p "$E/x"
	capture "tar-$i" tar tar xf "$E/src.tar" -C "$E/x"
	sync && echo 3 >/proc/sys/vm/drop_caches # cold directories: reads under getdents64
	capture "find-$i" find find "$E/x" -name '*.h' -newer /etc/hostname
	sync && echo 3 >/proc/sys/vm/drop_caches
	capture "grep-$i" grep grep -rl zzqqxx_nomatch "$E/x"
	rm -f "$E/w" && capture "dsync-$i" dd dd if=/dev/zero of="$E/w" bs=4k count=500 oflag=dsync status=none
	rm -f "$X/w" && capture "xfs-$i" dd dd if=/dev/zero of="$X/w" bs=4k count=500 oflag=dsync status=none
	capture "read-$i" dd dd if="$E/big" of=/dev/null bs=4k status=none
	rm -rf "$E/pm" && mkdir -p "$E/pm" && capture "postmark-$i" postmark postmark "$TMPD/pm.cfg"
done
echo "# captured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/README"
