#!/usr/bin/env bash
# Added CPU time (user + system) per buffered 4 KiB write on an ext4 loop device (one
# ext4_da_write_begin/end pair plus extent lookups each) of the fs layer with
# raw tracepoints, with perf-event tracepoints (its fallback), and of
# bpftrace timing the same one pair with hist() (a peer), against the same
# loop unprofiled, in one run. Rounds alternate; the best of ROUNDS is kept.
#   sudo bench/fs_layer_overhead.sh [BUILD_DIR] [WRITES] [ROUNDS]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
N=${2:-200000}
ROUNDS=${3:-3}
W=$BUILD/tests/progs/kl_writes
bench_need_root
bench_need_built "$OSPROF" "$W"
DIR=$(mktemp -d /tmp/osprof-bench-kernlayers.XXXXXX)
LOOP=""
cleanup() {
	mountpoint -q "$DIR/mnt" && umount "$DIR/mnt"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$DIR"
}
trap cleanup EXIT
truncate -s 64M "$DIR/img"
mkfs.ext4 -q -F "$DIR/img"
LOOP=$(losetup -f --show "$DIR/img")
mkdir "$DIR/mnt"
mount "$LOOP" "$DIR/mnt"
F=$DIR/mnt/f
"$W" "$F" 1024 >/dev/null # allocate the blocks once

# bpftrace resolves tracepoints in tracefs, unmounted on a fresh boot.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
BT='tracepoint:ext4:ext4_da_write_begin { @s[tid] = nsecs; }
tracepoint:ext4:ext4_da_write_end /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }'
bt_run() {
	command -v bpftrace >/dev/null || { echo nan; return; }
	bpftrace -e "$BT" >"$DIR/bt.out" 2>&1 &
	local pid=$! i
	for i in $(seq 100); do # wait until bpftrace has attached
		grep -q "Attaching" "$DIR/bt.out" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.5
	"$W" "$F" "$N"
	kill -TERM $pid # SIGINT is ignored by background jobs of scripts
	wait $pid 2>/dev/null || true
}
best() { sort -g | head -n 1; }
base=() raw=() tp=() bt=()
for _ in $(seq "$ROUNDS"); do
	base+=("$("$W" "$F" "$N")")
	raw+=("$(OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs -o "$DIR/r.osp" -- "$W" "$F" "$N" 2>/dev/null)")
	tp+=("$(OSPROF_ATTACH=tracepoint OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs -o "$DIR/t.osp" -- "$W" "$F" "$N" 2>/dev/null)")
	bt+=("$(bt_run)")
done
pairs=$("$OSPROF" report --csv "$DIR/r.osp" | grep -F '"fs","ext4_da_write",' | cut -d, -f5)
b=$(printf '%s\n' "${base[@]}" | best)
r=$(printf '%s\n' "${raw[@]}" | best)
t=$(printf '%s\n' "${tp[@]}" | best)
x=$(printf '%s\n' "${bt[@]}" | best)
awk -v b="$b" -v r="$r" -v t="$t" -v x="$x" -v n="$N" -v k="$ROUNDS" -v p="$pairs" 'BEGIN {
	printf "buffered 4 KiB pwrite on ext4 (loop) x %d, best of %d runs each\n", n, k
	printf "  %-40s %9.1f ns CPU/write\n", "unprofiled (baseline)", b
	printf "  %-40s %9.1f ns CPU/write  %+7.1f ns  x%.3f\n", "osprof -l fs (ext4, raw_tp)", r, r - b, r / b
	printf "  %-40s %9.1f ns CPU/write  %+7.1f ns  x%.3f\n", "osprof -l fs (ext4, perf tracepoint)", t, t - b, t / b
	if (x == "nan")
		printf "  %-40s not installed\n", "bpftrace hist(), one pair"
	else
		printf "  %-40s %9.1f ns CPU/write  %+7.1f ns  x%.3f\n", "bpftrace hist(), one pair", x, x - b, x / b
	printf "ext4_da_write pairs counted by osprof: %s (want %d)\n", p, n
	printf "raw_tp added cost / perf tracepoint added cost: %.2f\n", (r - b) / (t - b)
}'
