# fs layer, FUSE: N reads of a direct-I/O file on a small FUSE file system
# (tests/progs/kl_fuse, speaking /dev/fuse itself) give exactly N fuse_read
# round trips and N fuse_open, timed from the request's send in the reader to
# its end in the daemon; the daemon, not a target, does not hide them.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -e /sys/kernel/tracing/events/fuse ] || mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -e /sys/kernel/tracing/events/fuse/fuse_request_send ] || skip "no fuse tracepoints in this kernel"
KL_MNT=$TMP/fuse-kernlayers
mkdir -p "$KL_MNT"
"$PROGS/kl_fuse" "$KL_MNT" "$TMP/ready" &
srv=$!
for _ in $(seq 100); do # wait for the mount (the server creates the file)
	[ -e "$TMP/ready" ] && break
	kill -0 $srv 2>/dev/null || fail "kl_fuse exited before mounting"
	sleep 0.05
done
[ -e "$TMP/ready" ] || fail "kl_fuse did not mount"
N=12
OSPROF_FS_SUBSYS=fuse "$OSPROF" run -l fs -o "$TMP/f.osp" -- sh -c "
	i=0; while [ \$i -lt $N ]; do
		dd if='$KL_MNT/f' of=/dev/null bs=4096 count=1 2>/dev/null || exit 1
		i=\$((i + 1))
	done" || fail "osprof run failed"
expect_eq "fuse_read round trips" "$(kl_count "$TMP/f.osp" fs fuse_read fs=fuse)" $N
expect_eq "fuse_open round trips" "$(kl_count "$TMP/f.osp" fs fuse_open fs=fuse)" $N
grep -Eq "^meta attach_modes (.*,)?fs:(tp_btf|raw_tp)" "$TMP/f.osp" || fail "attach mode not recorded"
umount "$KL_MNT" || umount -l "$KL_MNT"
wait $srv || fail "kl_fuse failed"
exit 0
