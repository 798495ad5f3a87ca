# --by pid|tid|comm in the fs, lock, sched and uprobe layers: operations are
# split by the task that ran them, with exact counts per task.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 32
B=$PROGS/kl_ufunc
# two processes of the tree, told apart by pid
"$OSPROF" run -l fs,uprobe --uprobe "$B:kl_target" --by pid -o "$TMP/p.osp" -- sh -c "
	sh -c 'echo \$\$ >\"$TMP/pid1\"; exec \"$PROGS/kl_fsync\" \"$KL_MNT/a\" 7'
	sh -c 'echo \$\$ >\"$TMP/pid2\"; exec \"$B\" 30'" || fail "osprof run --by pid failed"
p1=$(cat "$TMP/pid1") p2=$(cat "$TMP/pid2")
expect_eq "fsyncs of pid $p1" "$(kl_count "$TMP/p.osp" fs ext4_sync_file "fs=ext4;pid=$p1")" 7
expect_eq "kl_target calls of pid $p2" "$(kl_count "$TMP/p.osp" uprobe kl_target "bin=kl_ufunc;pid=$p2")" 30
expect_eq "fsyncs of pid $p2" "$(kl_count "$TMP/p.osp" fs ext4_sync_file "fs=ext4;pid=$p2")" 0
# by comm: lock waits and sched profiles carry the command name
"$OSPROF" run --max-loss $KL_MAX_LOSS -l lock,sched --by comm -o "$TMP/c.osp" -- "$PROGS/kl_append" "$TMP/app" 8 20000 ||
	fail "osprof run --by comm failed"
[ "$(kl_count "$TMP/c.osp" lock mutex comm=kl_append)" -gt 0 ] || fail "no lock:mutex comm=kl_append"
[ "$(kl_count "$TMP/c.osp" sched runq comm=kl_append)" -gt 0 ] || fail "no sched:runq comm=kl_append"
"$OSPROF" report --csv "$TMP/c.osp" | grep -q '^"lock","mutex","",' && fail "unsplit lock profile with --by comm"
# The idle task (tid 0, current in an interrupt on an idle CPU) is nobody's
# target: a sleeping command has no lock or sched profile of tid 0.
"$OSPROF" run --allow-loss -l lock,sched --by tid -o "$TMP/idle.osp" -- sleep 1 ||
	fail "osprof run (sleep) failed"
! "$OSPROF" report --csv "$TMP/idle.osp" | grep -q 'tid=0"' ||
	fail "the idle task counted as a target: $("$OSPROF" report --csv "$TMP/idle.osp" | grep 'tid=0"')"
exit 0
