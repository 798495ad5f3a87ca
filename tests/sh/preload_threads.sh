# Threads are followed: 4 threads x N rounds counted exactly, each thread in
# its own slot (--by tid shows 4 tids), pthread_create timed 4 times.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"
N=100
"$OSPROF" run -l user --by tid -o "$TMP/p.osp" -- "$OPS_N" $N "$WORK" --threads 4 || fail "osprof run exited $?"
check_counts "$TMP/p.osp" $N 4 pthread_create=4
report_profiles "$TMP/p.osp" >"$TMP/j"
expect_eq "tids doing reads" "$(python3 -c 'import json,sys; print(len({json.loads(l)["dims"]["tid"] for l in open(sys.argv[1]) if json.loads(l)["op"] == "read"}))' "$TMP/j")" 4
# More threads than slots: 15 of 16 threads share the last slot (atomic
# updates), still exact; their tid shows as "shared".
OSPROF_PRELOAD_SLOTS=3 "$OSPROF" run -l user --by tid -o "$TMP/q.osp" -- "$OPS_N" $N "$WORK" --threads 16 ||
	fail "osprof run exited $?"
check_counts "$TMP/q.osp" $N 16 pthread_create=16
report_profiles "$TMP/q.osp" | grep -q '"tid":"shared"' || fail "no shared slot in use"
