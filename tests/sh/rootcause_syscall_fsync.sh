#!/usr/bin/env bash
# osprof rootcause --syscall, I/O wait: fsync(2) of a 4 KiB write on an ext4
# file system on a loop device (tests/progs/rc_fsync.c). The peak must be
# attributed to blocked paths inside ext4_sync_file (most of its time), the
# heaviest woken by the I/O completion or the journal thread.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../kl_lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf
kl_ext4 64

rc_run_cmd "$TMP/json" --syscall fsync --start-ops 100 --json -- "$PROGS/rc_fsync" "$KL_MNT/f" 0
python3 - "$TMP/json" <<'PY' || fail "fsync attribution"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"] and d["backend"] == "kernel", d
paths = d["kernel_paths"]
top = max(paths, key=lambda p: p["ns"])
assert top["kind"] == "off-CPU", top
assert "ext4_sync_file" in top["stack"], top["stack"]
# The same blocked path is split by who woke it (the journal thread, or the
# I/O completion's IRQ): together they hold most of the peak.
blocked = [p for p in paths if p["kind"] == "off-CPU" and "ext4_sync_file" in p["stack"]]
assert sum(p["share"] for p in blocked) > 0.5, paths
io = ("jbd2", "blk", "bio", "io_schedule", "wait_on", "end_", "nvme", "virtblk", "loop")
assert any(any(k in f for k in io) for f in top["stack"] + top["waker_stack"]), top
PY
