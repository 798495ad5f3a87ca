# uprobe layer: a program calling kl_target() exactly N times and kl_other()
# N/2 times gives exactly those counts, also for its forked child;
# --split preempt separates calls preempted in flight; errors name the probe
# and exit non-zero.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
N=2000
B=$PROGS/kl_ufunc
"$OSPROF" run -l uprobe --uprobe "$B:kl_target,kl_other" -o "$TMP/u.osp" -- "$B" $N ||
	fail "osprof run failed"
expect_eq "kl_target calls" "$(kl_count "$TMP/u.osp" uprobe kl_target bin=kl_ufunc)" $N
expect_eq "kl_other calls" "$(kl_count "$TMP/u.osp" uprobe kl_other bin=kl_ufunc)" $((N / 2))
# 20 nested calls of one function: the 16 outer ones are timed (KL_DEPTH), the 4 deeper
# than a thread's start stack are counted as lost, none unpaired; the loss
# makes the run exit 3 (tests/sh/cli_losses.sh)
rc=0
"$OSPROF" run -l uprobe --uprobe "$B:kl_recurse" -o "$TMP/r.osp" -- "$B" 1 || rc=$?
[ "$rc" = 3 ] || fail "osprof run (recursion): exit $rc, want 3 (4 calls lost)"
expect_eq "timed recursive calls" "$(kl_count "$TMP/r.osp" uprobe kl_recurse bin=kl_ufunc)" 16
expect_eq "lost recursive calls" "$(grep '^meta lost_events ' "$TMP/r.osp" | cut -d' ' -f3)" 4
expect_eq "unpaired" "$(grep '^meta unpaired_events ' "$TMP/r.osp" | cut -d' ' -f3)" 0
# a child forked by the command counts too; an unrelated run does not
"$B" 500 &
bg=$!
"$OSPROF" run -l uprobe --uprobe "$B:kl_target" -o "$TMP/u2.osp" -- sh -c "'$B' 100; '$B' 200" ||
	fail "osprof run (children) failed"
wait $bg
expect_eq "kl_target calls in children" "$(kl_count "$TMP/u2.osp" uprobe kl_target bin=kl_ufunc)" 300
# --split preempt: calls spinning 2 ms beside CPU hogs are partly preempted in
# flight; those go to state=preempted, sit to the right, and the two add up
"$OSPROF" run -l uprobe --uprobe "$B:kl_target" --split preempt -o "$TMP/u3.osp" -- \
	sh -c "'$PROGS/kl_hog' $(($(nproc) + 1)) 600 & '$B' 100 2000; wait" ||
	fail "osprof run --split preempt failed"
main=$(kl_count "$TMP/u3.osp" uprobe kl_target bin=kl_ufunc)
pre=$(kl_count "$TMP/u3.osp" uprobe kl_target "bin=kl_ufunc;state=preempted")
[ "$pre" -gt 0 ] || fail "no preempted calls beside CPU hogs: $("$OSPROF" report --summary "$TMP/u3.osp")"
expect_eq "main + preempted calls" $((main + pre)) 100
tm=$(kl_total "$TMP/u3.osp" uprobe kl_target bin=kl_ufunc)
tp=$(kl_total "$TMP/u3.osp" uprobe kl_target "bin=kl_ufunc;state=preempted")
[ "$main" -eq 0 ] || [ $((tp / pre)) -gt $((tm / main)) ] ||
	fail "preempted calls are not slower: mean $((tp / pre)) vs $((tm / main)) ns"
"$OSPROF" run -l uprobe --uprobe "$B:no_such_fn" -- true 2>"$TMP/err"
expect_eq "missing symbol: usage error" $? 2
grep -q -- "--uprobe $B:no_such_fn: no function no_such_fn" "$TMP/err" || fail "message: $(cat "$TMP/err")"
"$OSPROF" run -l uprobe -- true 2>"$TMP/err"
[ $? -ne 0 ] || fail "-l uprobe without --uprobe accepted"
exit 0
