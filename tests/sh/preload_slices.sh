# Time slices (-i) of the user layer, sampled from the live counter files:
# the slices of every profile add up exactly to its whole-run histogram, and
# a workload in three phases 300 ms apart shows up in at least two different
# 100 ms slices (the phases are the workload's own pacing; the check only
# needs the sampler to wake once in 600 ms).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/preload_common.bash"

# slices_add_up FILE: every user profile's slices sum to its buckets.
slices_add_up() {
	report_profiles "$1" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    p = json.loads(line)
    if p["layer"] != "user":
        continue
    tot = {}
    for s in p.get("slices", []):
        for b in s["buckets"]:
            tot[b["index"]] = tot.get(b["index"], 0) + b["count"]
    whole = {b["index"]: b["count"] for b in p["buckets"]}
    if tot != whole:
        print("%s: slices %s != whole run %s" % (p["op"], tot, whole))
        sys.exit(1)
    n += 1
print("%d profiles: slices add up" % n)' || fail "slices do not add up in $1"
}

"$OSPROF" run -l user -i 100ms -o "$TMP/p.osp" -- sh -c \
	'cat /etc/hostname >/dev/null; sleep 0.3; cat /etc/hostname >/dev/null; sleep 0.3; cat /etc/hostname >/dev/null' ||
	fail "osprof run exited $?"
slices_add_up "$TMP/p.osp"
n=$(report_profiles "$TMP/p.osp" | python3 -c '
import json, sys
idx = set()
for p in map(json.loads, sys.stdin):
    if p["op"] in ("read", "close"):
        idx |= {s["index"] for s in p.get("slices", [])}
print(len(idx))')
[ "$n" -ge 2 ] || fail "three phases 300 ms apart fell into $n slice(s)"

# Exact counts are unchanged by sampling, also with threads and --by tid.
N=100
"$OSPROF" run -l user -i 20ms --by tid -o "$TMP/q.osp" -- "$OPS_N" $N "$WORK" --threads 4 || fail "osprof run exited $?"
check_counts "$TMP/q.osp" $N 4 pthread_create=4
slices_add_up "$TMP/q.osp"
