# record -a with the fs and block layers sees what runs in kernel threads on
# a file system's behalf: jbd2 commits (jbd2_start_commit..jbd2_end_commit)
# and the journal's block writes, which `run` (a process tree) cannot; -i
# keeps per-slice histograms of these layers too.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 32
"$PROGS/kl_fsync" "$KL_MNT/f" 100000 &
w=$!
# OSPROF_FSOPS=off: the pairs are the subject here; the VFS ops of every
# file system system-wide would only slow the start (tests/sh/kern_fs_vfsops.sh).
OSPROF_FSOPS=off OSPROF_FS_SUBSYS=ext4,jbd2 "$OSPROF" record -a -l fs,block --fs-ops jbd2_commit -i 200ms -d 1s -o "$TMP/r.osp" 2>"$TMP/err" ||
	fail "record failed: $(cat "$TMP/err")"
kill $w
wait $w 2>/dev/null
[ "$(kl_count "$TMP/r.osp" fs jbd2_commit fs=jbd2)" -gt 0 ] ||
	fail "no jbd2 commits: $("$OSPROF" report --summary "$TMP/r.osp")"
[ "$(kl_count "$TMP/r.osp" fs ext4_sync_file fs=ext4)" -gt 0 ] || fail "no ext4_sync_file"
[ "$(kl_count "$TMP/r.osp" block device "dev=$KL_DEV;type=write")" -gt 0 ] ||
	fail "no writes on $KL_DEV"
# several 200 ms slices hold fsyncs
"$OSPROF" report --slices "$TMP/r.osp" >"$TMP/slices"
n=$(awk '/^fs:ext4_sync_file fs=ext4 \([mun]secs\)/,/^$/' "$TMP/slices" | grep -Ec '^ *[0-9]+\.[0-9]+s \|')
[ "$n" -ge 3 ] || fail "expected >= 3 slices of ext4_sync_file, found $n: $(head -40 "$TMP/slices")"
exit 0
