# block layer: N O_DIRECT reads of a file on an ext4 loop device give exactly
# N read requests on that device (device time, queue time and size), with
# and without an I/O scheduler; nothing from other processes.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 32
N=100
dd if=/dev/urandom of="$KL_MNT/data" bs=1M count=2 conv=fsync 2>/dev/null || fail "dd setup"
# warm the inode and extent metadata so the profiled run reads data only
dd if="$KL_MNT/data" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
for sched in none mq-deadline; do
	echo "$sched" >"/sys/block/$KL_DEV/queue/scheduler" 2>/dev/null || continue
	# background noise on the same device from another process is filtered
	dd if="$KL_MNT/data" of=/dev/null bs=4k skip=200 count=50 iflag=direct 2>/dev/null &
	"$OSPROF" run -l block -o "$TMP/b.osp" -- \
		dd if="$KL_MNT/data" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null ||
		fail "osprof run failed ($sched)"
	wait
	expect_eq "$sched: device reads" "$(kl_count "$TMP/b.osp" block device "dev=$KL_DEV;type=read")" $N
	expect_eq "$sched: queue reads" "$(kl_count "$TMP/b.osp" block queue "dev=$KL_DEV;type=read")" $N
	expect_eq "$sched: size reads" "$(kl_count "$TMP/b.osp" block size "dev=$KL_DEV;type=read")" $N
	expect_eq "$sched: bytes read" "$(kl_total "$TMP/b.osp" block size "dev=$KL_DEV;type=read")" $((N * 4096))
	expect_eq "$sched: writes" "$(kl_count "$TMP/b.osp" block device "dev=$KL_DEV;type=write")" 0
	"$OSPROF" report "$TMP/b.osp" | grep -q "block:size dev=$KL_DEV type=read (bytes)" ||
		fail "$sched: size histogram not in bytes"
done
exit 0
