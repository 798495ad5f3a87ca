# Fork is followed: the child gets its own counter file, both processes'
# rounds are counted exactly, the fork call once (by the parent).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"
N=100
"$OSPROF" run -l user --by pid -o "$TMP/p.osp" -- "$OPS_N" $N "$WORK" --fork || fail "osprof run exited $?"
check_counts "$TMP/p.osp" $N 2 fork=1
report_profiles "$TMP/p.osp" >"$TMP/j"
expect_eq "pids" "$(python3 -c 'import json,sys; print(len({json.loads(l)["dims"]["pid"] for l in open(sys.argv[1])}))' "$TMP/j")" 2
expect_eq "user_processes" "$(meta "$TMP/p.osp" user_processes)" 2
# The child ends with _exit: not counted as killed.
expect_eq "user_killed" "$(meta "$TMP/p.osp" user_killed)" ""
# vfork + exec, as gcc and make start their children.
"$OSPROF" run -l user -o "$TMP/v.osp" -- "$OPS_N" $N "$WORK" --vfork || fail "osprof run (--vfork) exited $?"
check_counts "$TMP/v.osp" $N 2 vfork=1
expect_eq "user_killed (vfork)" "$(meta "$TMP/v.osp" user_killed)" ""
