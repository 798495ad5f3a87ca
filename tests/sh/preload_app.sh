# Source instrumentation end to end: OSP_PRE/OSP_POST from 4 threads (exited
# before the write) land exactly in $OSPROF_OUTPUT ("%p" = pid), or on stderr,
# and under `osprof run -l user` in the run's set as layer "app".
. "$(dirname "$0")/../lib.sh"
[ -x "$OSPROF" ] || skip "no $OSPROF (build first)"
APP=$PROGS/app_ops
[ -x "$APP" ] || skip "no $APP (build first)"
N=20000

# count FILE LAYER OP: count of that profile, summed over dimensions.
count() {
	report_profiles "$1" | python3 -c '
import json, sys
print(sum(p["count"] for p in map(json.loads, sys.stdin) if p["layer"] == sys.argv[1] and p["op"] == sys.argv[2]))' "$2" "$3"
}

OSPROF_OUTPUT=$TMP/out.%p.osp "$APP" $N 4 || fail "app_ops exited $?"
set -- "$TMP"/out.*.osp
[ $# -eq 1 ] && [ -f "$1" ] || fail "no out.PID.osp written: $(ls "$TMP")"
case $1 in *out.%p.osp) fail "%p not replaced" ;; esac
expect_eq "app lookup (file)" "$(count "$1" app lookup)" $((4 * N))
expect_eq "app commit (file)" "$(count "$1" app commit)" $N

"$APP" 100 2 2>"$TMP/stderr.osp" || fail "app_ops exited $?"
expect_eq "app lookup (stderr)" "$(count "$TMP/stderr.osp" app lookup)" 200

"$OSPROF" run -l user --by pid -o "$TMP/run.osp" -- "$APP" $N 4 || fail "osprof run exited $?"
expect_eq "app lookup (run)" "$(count "$TMP/run.osp" app lookup)" $((4 * N))
expect_eq "app commit (run)" "$(count "$TMP/run.osp" app commit)" $N
expect_eq "user pthread_create (run)" "$(count "$TMP/run.osp" user pthread_create)" 4
report_profiles "$TMP/run.osp" | grep '"layer":"app"' | grep -q '"pid":"' || fail "app profiles lack the pid dimension"
