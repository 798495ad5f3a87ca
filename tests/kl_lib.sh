# Helpers of the kernel-layer tests tests/sh/kern_*.sh (sourced after
# tests/lib.sh): profile counts from `osprof report --csv`, and an ext4 image
# on a loop device that is always unmounted and detached on exit.

# kl_count FILE LAYER OP [DIMS]: the count of one profile (0 when absent).
# DIMS as in the CSV: "dev=loop0;type=read" (sorted by name, ';'-joined).
kl_count() {
	local line
	line=$("$OSPROF" report --csv "$1" | grep -F "\"$2\",\"$3\",\"${4:-}\"," | head -n 1)
	if [ -z "$line" ]; then
		echo 0
	else
		echo "$line" | awk -F'",' '{ split($4, f, ","); print f[2] }'
	fi
}

# kl_total FILE LAYER OP [DIMS]: the total (ns or bytes) of one profile.
kl_total() {
	"$OSPROF" report --csv "$1" | grep -F "\"$2\",\"$3\",\"${4:-}\"," | head -n 1 |
		awk -F'",' '{ split($4, f, ","); print f[3] }'
}

# kl_tracefs: tracefs mounted where osprof itself mounts it when it needs it;
# bpftrace (ground truth) resolves tracepoints there, and a freshly booted
# machine has it unmounted.
kl_tracefs() {
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
		skip "cannot mount tracefs at /sys/kernel/tracing"
}

# kl_bpftrace SCRIPT OUT: bpftrace (ground truth) on SCRIPT in the
# background, its output in OUT; returns once its probes are live (it prints
# "Attaching N probes..."), its pid in KL_BT. End it with kl_bpftrace_end.
kl_bpftrace() {
	bpftrace "$1" >"$2" 2>"$2.err" &
	KL_BT=$!
	for _ in $(seq 600); do
		grep -q '^Attaching' "$2" && return 0
		kill -0 $KL_BT 2>/dev/null || fail "bpftrace exited: $(cat "$2.err")"
		sleep 0.1
	done
	fail "bpftrace did not attach within 60 s"
}
# kl_bpftrace_end: bpftrace prints its maps on SIGINT, then exits.
kl_bpftrace_end() {
	kill -INT $KL_BT
	wait $KL_BT
}

KL_LOOP=""
KL_MNT=""
kl_cleanup() {
	if [ -n "$KL_MNT" ] && mountpoint -q "$KL_MNT"; then
		umount "$KL_MNT" || umount -l "$KL_MNT"
	fi
	[ -n "$KL_LOOP" ] && losetup -d "$KL_LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap kl_cleanup EXIT

# kl_ext4 SIZE_MB: makes an ext4 image, attaches it to a free loop device
# ($KL_LOOP, name in $KL_DEV) and mounts it at $KL_MNT.
kl_ext4() {
	command -v mkfs.ext4 >/dev/null || skip "needs mkfs.ext4 (e2fsprogs)"
	local img=$TMP/kernlayers-ext4.img
	truncate -s "${1}M" "$img" || fail "cannot create $img"
	mkfs.ext4 -q -F "$img" || fail "mkfs.ext4 failed"
	KL_LOOP=$(losetup -f --show "$img") || skip "no free loop device"
	KL_DEV=$(basename "$KL_LOOP")
	KL_MNT=$TMP/mnt-kernlayers
	mkdir -p "$KL_MNT"
	mount -t ext4 "$KL_LOOP" "$KL_MNT" || fail "cannot mount $KL_LOOP"
}

# KL_MAX_LOSS: the --max-loss of runs with the lock layer. An interrupt
# that contends while a program on the contention tracepoints (lock layer,
# sched layer) runs on its CPU is refused by BPF's recursion guard: a lost
# event, said and counted (about 1 in 100,000 waits of eight threads
# appending to one file). Such runs accept losses up to 1 in 1,000 calls and
# exit 3 beyond (before the lock layer told an interrupt's wait from its
# task's: 2-8 unpaired a run).
KL_MAX_LOSS=0.1
