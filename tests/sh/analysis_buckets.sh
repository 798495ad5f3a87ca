#!/usr/bin/env bash
# One bucket numbering: ranges copied from `osprof peaks --json`
# (first_bucket-last_bucket) into `run --correlate --peaks` select exactly
# the calls of those buckets. A workload with a cached and an uncached pread64
# peak runs twice: the peaks of run 1 become --peaks of run 2, and in run 2
# each correlated profile (peak=N) holds as many calls as the latency profile
# has in the buckets `report --json` numbers b = first..last. The same ranges
# shifted by one bucket must select a different population somewhere, so an
# off-by-one between the commands fails this test.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
W=$PROGS/corpus_workload
"$OSPROF" run -l syscall -o "$TMP/a.osp" -- "$W" partial partial "$TMP/wa.osp" "$TMP" ||
	fail "run 1"
"$OSPROF" peaks --json --calibration none "$TMP/a.osp" >"$TMP/a.json" || fail "peaks --json"
ranges=$(python3 - "$TMP/a.json" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["layer"] == "syscall" and o["op"] == "pread64" and not o["dims"]:
        pk = o["peaks"][:8]
        print(",".join("%d-%d" % (p["first_bucket"], p["last_bucket"]) for p in pk))
PY
)
[ -n "$ranges" ] || fail "no pread64 peaks in run 1"
echo "ranges from peaks --json: $ranges"
"$OSPROF" run -l syscall --correlate pread64:req_bytes --peaks "$ranges" -o "$TMP/b.osp" -- \
	"$W" partial partial "$TMP/wb.osp" "$TMP" || fail "run 2 --correlate --peaks $ranges"
report_profiles "$TMP/b.osp" >"$TMP/b.json" || fail "report --json"
python3 - "$TMP/b.json" "$ranges" <<'PY' || fail "populations differ"
import json, sys
objs = [o for o in map(json.loads, open(sys.argv[1])) if "layer" in o]  # skip the meta line
lat = [o for o in objs if o["layer"] == "syscall" and o["op"] == "pread64" and not o["dims"]][0]
counts = {b["b"]: b["count"] for b in lat["buckets"]}
for b in lat["buckets"]:
    assert b["b"] == b["index"] - 1, b
ranges = [tuple(map(int, r.split("-"))) for r in sys.argv[2].split(",")]
def pop(lo, hi, taken):
    return sum(c for b, c in counts.items() if lo <= b <= hi and b not in taken)
taken, shifted_differs = set(), False
for i, (lo, hi) in enumerate(ranges, 1):
    corr = [o for o in objs if o["op"] == "pread64" and o["dims"].get("peak") == str(i)]
    got = corr[0]["count"] if corr else 0
    want = pop(lo, hi, taken)  # a call counts in the first range holding it
    print("peak %d: buckets %d-%d: %d correlated calls, %d in the latency profile" % (i, lo, hi, got, want))
    assert got == want, (i, got, want)
    shifted_differs |= pop(lo + 1, hi + 1, taken) != want
    taken |= set(range(lo, hi + 1))
assert shifted_differs, "test cannot tell an off-by-one here"
PY
echo ok
