# Exec is followed: ops_n runs N rounds, re-execs itself for N more; and a
# command started with an emptied environment (env -i) is still profiled,
# because the interposed exec puts LD_PRELOAD and OSPROF_* back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"
N=100
"$OSPROF" run -l user -o "$TMP/p.osp" -- "$OPS_N" $N "$WORK" --exec || fail "osprof run exited $?"
check_counts "$TMP/p.osp" $N 2
"$OSPROF" run -l user -o "$TMP/q.osp" -- env -i "$OPS_N" $N "$WORK" || fail "osprof run (env -i) exited $?"
# env itself may call interposed functions (e.g. close on stdout): compare
# only ops_n's ops by giving env's own calls as extras.
"$OSPROF" run -l user -o "$TMP/e.osp" -- env -i true || fail "osprof run env -i true"
extras=$(report_profiles "$TMP/e.osp" | python3 -c '
import json, sys
for l in sys.stdin:
    p = json.loads(l)
    print("%s=%d" % (p["op"], p["count"]))')
listed=$("$OPS_N" --list | awk -v n=$N '{ print $1 "=" $2 * n }')
args=$(printf '%s\n%s\n' "$extras" "$listed" | awk -F= 'NF == 2 { s[$1] += $2 } END { for (k in s) print k "=" s[k] }')
# shellcheck disable=SC2086
check_counts "$TMP/q.osp" 0 0 $args
# The re-exec keeps the pid: one process, and an exec is not a kill.
expect_eq "user_processes" "$(meta "$TMP/p.osp" user_processes)" 1
expect_eq "user_killed" "$(meta "$TMP/p.osp" user_killed)" ""
# posix_spawn with an empty environment: the spawned image is profiled too.
"$OSPROF" run -l user -o "$TMP/s.osp" -- "$OPS_N" $N "$WORK" --spawn-noenv || fail "osprof run (--spawn-noenv) exited $?"
check_counts "$TMP/s.osp" $N 2 posix_spawn=1
# Nested runs: the inner osprof's OSPROF_* values are respected, so its
# command is counted exactly in the inner set.
"$OSPROF" run -l user -o "$TMP/outer.osp" -- "$OSPROF" run -l user -o "$TMP/inner.osp" -- "$OPS_N" $N "$WORK" ||
	fail "nested osprof run exited $?"
check_counts "$TMP/inner.osp" $N 1
