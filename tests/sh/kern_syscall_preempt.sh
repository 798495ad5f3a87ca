#!/usr/bin/env bash
# --split preempt: a CPU-bound loop of cheap system calls beside a CPU hog
# pinned to the same CPU. Calls involuntarily switched out while in flight go
# to "state=preempted", whose peak sits right of the main peak (it includes
# the hog's time slice); the two profiles add up to every call made.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
command -v taskset >/dev/null || skip "taskset not installed"
"$OSPROF" run -l syscall --split preempt -v -o "$TMP/p.osp" -- sh -c \
	"taskset -c 0 '$PROGS/kern_sys' hog 1200 & taskset -c 0 '$PROGS/kern_sys' spinread 1000; wait" \
	2>"$TMP/err" || fail "run --split preempt: $(cat "$TMP/err")"
grep -q 'common: sched_switch via' "$TMP/err" || fail "-v did not print the sched_switch attach mode"
pre=$(prof_count "$TMP/p.osp" "syscall read state=preempted")
main=$(prof_count "$TMP/p.osp" "syscall read")
[ "$pre" -gt 0 ] || fail "no preempted read"
[ "$main" -gt "$pre" ] || fail "preempted ($pre) should be the minority of $main"
peak() { prof_buckets "$TMP/p.osp" "$1" | sort -k2,2n | tail -1 | cut -d' ' -f1; }
mp=$(peak "syscall read")
pp=$(peak "syscall read state=preempted")
[ "$pp" -gt "$mp" ] || fail "preempted peak (bucket $pp) not right of the main peak (bucket $mp)"
# The report shows the dimension.
grep -q 'state=preempted' <("$OSPROF" report "$TMP/p.osp") || fail "report does not show the state dimension"
echo ok
