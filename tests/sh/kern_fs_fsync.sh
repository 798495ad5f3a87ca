# fs layer: N fsync() calls on an ext4 loop device show as exactly N
# ext4_sync_file enter/exit pairs, with no unpaired events; another process
# fsyncing meanwhile is not counted.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 32
N=40
"$PROGS/kl_fsync" "$KL_MNT/noise" 400 &
noise=$!
OSPROF_FS_SUBSYS=ext4,jbd2 "$OSPROF" run -v -l fs -o "$TMP/f.osp" -- \
	"$PROGS/kl_fsync" "$KL_MNT/f" $N 2>"$TMP/err" || fail "osprof run failed: $(cat "$TMP/err")"
kill $noise 2>/dev/null
wait $noise 2>/dev/null
expect_eq "ext4_sync_file pairs" "$(kl_count "$TMP/f.osp" fs ext4_sync_file fs=ext4)" $N
"$OSPROF" report "$TMP/f.osp" | grep -q "unpaired_events  0" || fail "unpaired events: $("$OSPROF" report "$TMP/f.osp" | grep unpaired)"
grep -Eq "ext4:ext4_sync_file_enter..ext4_sync_file_exit via (raw_tp|tracepoint)" "$TMP/err" ||
	fail "-v does not name the attach mode: $(cat "$TMP/err")"
# all subsystems, 2N fsyncs: the count follows the workload
"$OSPROF" run -l fs -o "$TMP/f2.osp" -- "$PROGS/kl_fsync" "$KL_MNT/f" $((2 * N)) ||
	fail "osprof run (all fs subsystems) failed"
expect_eq "ext4_sync_file pairs (2N)" "$(kl_count "$TMP/f2.osp" fs ext4_sync_file fs=ext4)" $((2 * N))
# the perf-event tracepoint fallback (kernels without raw_tp cookies) counts the same
OSPROF_ATTACH=tracepoint OSPROF_FS_SUBSYS=ext4 "$OSPROF" run -l fs -o "$TMP/f3.osp" -- \
	"$PROGS/kl_fsync" "$KL_MNT/f" $N || fail "osprof run (perf tracepoints) failed"
grep -Eq "^meta attach_modes (.*,)?fs:tracepoint(,|$)" "$TMP/f3.osp" ||
	fail "fallback not used: $(grep attach_modes "$TMP/f3.osp")"
expect_eq "ext4_sync_file pairs (tracepoint)" "$(kl_count "$TMP/f3.osp" fs ext4_sync_file fs=ext4)" $N
exit 0
