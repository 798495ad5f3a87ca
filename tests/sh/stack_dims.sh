# osprof mount's splits: -i slices add up to each profile's whole histogram
# and a workload in phases 300 ms apart lands in different slices;
# --by pid names the process that made the calls; --correlate size,offset
# puts each read in its request size class and offset class (a sequential
# reader: offset=seq; reads at scattered offsets: offset=rand).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
head -c $((256 * 1024)) /dev/urandom >"$LOWER/f"

"$OSPROF" mount -i 100ms -o "$TMP/s.osp" "$LOWER" "$MNT" -- sh -c \
	'cat f >/dev/null; sleep 0.3; cat f >/dev/null; sleep 0.3; cat f >/dev/null' ||
	fail "osprof mount -i exited $?"
"$OSPROF" report --json "$TMP/s.osp" | python3 -c '
import json, sys
idx = set()
for p in map(json.loads, sys.stdin):
    if p.get("type") != "profile":
        continue
    tot = {}
    for s in p.get("slices", []):
        for b in s["buckets"]:
            tot[b["index"]] = tot.get(b["index"], 0) + b["count"]
    if tot != {b["index"]: b["count"] for b in p["buckets"]}:
        sys.exit("%s: slices do not add up" % p["op"])
    if p["op"] == "open":
        idx |= {s["index"] for s in p.get("slices", [])}
if len(idx) < 2:
    sys.exit("the three opens fell in %d slice(s)" % len(idx))
' || fail "slices wrong"

# --by pid: the pid the workload itself records.
"$OSPROF" mount --by pid --direct-io -o "$TMP/p.osp" "$LOWER" "$MNT" -- sh -c \
	'echo $$ >"$0"; exec dd if=f of=/dev/null bs=4096 count=5 2>/dev/null' "$TMP/pid" ||
	fail "osprof mount --by pid exited $?"
expect_eq "reads of the recorded pid" "$(stack_count "$TMP/p.osp" read pid="$(cat "$TMP/pid")")" 5

# --correlate: 5 sequential 4 KiB reads, then 4 64 KiB reads at scattered
# offsets (dd skip over a direct-I/O file: one request per read).
"$OSPROF" mount --correlate size,offset --direct-io -o "$TMP/c.osp" "$LOWER" "$MNT" -- sh -c '
	dd if=f of=/dev/null bs=4096 count=5 2>/dev/null || exit 1
	for i in 3 1 2 0; do dd if=f of=/dev/null bs=64k count=1 skip=$i 2>/dev/null || exit 1; done' ||
	fail "osprof mount --correlate exited $?"
expect_eq "4 KiB sequential" "$(stack_count "$TMP/c.osp" read size=4096 offset=seq)" 5
expect_eq "64 KiB total" "$(stack_count "$TMP/c.osp" read size=65536)" 4
# Each dd opens anew: its first read is sequential only at offset 0.
expect_eq "64 KiB random" "$(stack_count "$TMP/c.osp" read size=65536 offset=rand)" 3
exit 0
