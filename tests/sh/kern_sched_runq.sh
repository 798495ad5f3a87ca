# sched layer: a thread sleeping 1 ms at a time beside CPU hogs (3 on 2 CPUs)
# waits in the run queue after its wakeups and is preempted; alone, it only
# sleeps: off-CPU time with reason=sleep, one per nanosleep.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
ncpu=$(nproc)
"$OSPROF" run -l sched -o "$TMP/s.osp" -- "$PROGS/kl_hog" $((ncpu + 1)) 300 ||
	fail "osprof run (hogs) failed"
rq=$(kl_count "$TMP/s.osp" sched runq)
pre=$(kl_count "$TMP/s.osp" sched offcpu reason=preempted)
[ "$rq" -gt 0 ] || fail "no run-queue latency with CPU hogs"
[ "$pre" -gt 0 ] || fail "no preempted off-CPU time with CPU hogs"
# the hogs' waits are long: some run-queue latency of at least 1 ms
"$OSPROF" report -u "$TMP/s.osp" | awk '/^sched:runq/,/^$/' | grep -Eq '^ +[0-9]{4,} -> ' ||
	fail "no run-queue wait >= 1 ms: $("$OSPROF" report "$TMP/s.osp")"
"$OSPROF" run -l sched -o "$TMP/s0.osp" -- "$PROGS/kl_hog" 0 100 || fail "osprof run (no hogs) failed"
sl=$(kl_count "$TMP/s0.osp" sched offcpu reason=sleep)
# about 100 sleeps of >= 1 ms in 100 ms, plus a few from start-up
[ "$sl" -ge 50 ] && [ "$sl" -le 110 ] || fail "sleep count $sl, want about 100"
exit 0
