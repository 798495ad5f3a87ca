# Exact per-op counts through the preload library: one process, N rounds of
# 115 libc ops, with --by pid giving one pid and the comm.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"
N=200
"$OSPROF" run -l user --by pid -o "$TMP/p.osp" -- "$OPS_N" $N "$WORK" || fail "osprof run exited $?"
check_counts "$TMP/p.osp" $N 1
report_profiles "$TMP/p.osp" >"$TMP/j"
expect_eq "pids" "$(python3 -c 'import json,sys; print(sorted({json.loads(l)["dims"]["pid"] for l in open(sys.argv[1])}).__len__())' "$TMP/j")" 1
expect_eq "comm" "$(python3 -c 'import json,sys; print(sorted({json.loads(l)["dims"]["comm"] for l in open(sys.argv[1])}))' "$TMP/j")" "['ops_n']"
expect_eq "user_processes" "$(meta "$TMP/p.osp" user_processes)" 1
# --by comm: one comm dimension, no pid.
"$OSPROF" run -l user --by comm -o "$TMP/c.osp" -- "$OPS_N" 10 "$WORK" || fail "osprof run --by comm exited $?"
report_profiles "$TMP/c.osp" >"$TMP/jc"
expect_eq "comm dims" "$(python3 -c 'import json,sys; print(sorted({(p["dims"].get("comm"), p["dims"].get("pid")) for p in map(json.loads, open(sys.argv[1]))}))' "$TMP/jc")" "[('ops_n', None)]"
check_counts "$TMP/c.osp" 10 1
