#!/usr/bin/env bash
# osprof peaks / diff on captured and hand-made profile sets: peaks of real
# profiles, text and JSON shapes, verdicts, only_in_a/b, ranking, and one-line
# errors with exit status 2.
. "$(dirname "$0")/../lib.sh"
C=$ROOT/tests/data/corpus
export OSPROF_CALIBRATION=$TMP/none.osp # no calibration unless a test sets one

# Peaks of captured profiles: the sleep workload has its 5 us peak and a
# second peak of the 10 % of ops that also sleep 50 us (at >= 50 us).
"$OSPROF" peaks --json "$C/sleep-sleep-1.osp" >"$TMP/p.json" || fail "peaks --json"
python3 - "$TMP/p.json" <<'PY' || fail "peaks JSON of sleep-sleep-1"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
step = [o for o in objs if o["op"] == "step"][0]
assert step["layer"] == "app" and step["dims"] == {}, step
pk = step["peaks"]
assert len(pk) >= 2, pk
for k in ("index", "lo_ns", "hi_ns", "count", "mean_ns"):
    assert all(k in p for p in pk), k
assert [p["index"] for p in pk] == list(range(1, len(pk) + 1))
assert 4000 <= pk[0]["mean_ns"] <= 20000 and pk[0]["count"] >= 2500, pk[0]
slow = [p for p in pk if p["index"] > 1 and p["mean_ns"] >= 50000 and p["count"] >= 150]
assert slow and slow[0]["lo_ns"] > pk[0]["hi_ns"] - 1, pk
# Every call is in a peak or counted as an outlier.
assert sum(p["count"] for p in pk) + step["outliers"] == step["count"] == 3000
PY
# O_DIRECT reads have their main peak far right of page-cache reads.
mean_of() { "$OSPROF" peaks --json "$1" | python3 -c '
import json,sys
for l in sys.stdin:
    o=json.loads(l)
    if o["op"]=="pread4k": print(int(max(o["peaks"], key=lambda p: p["count"])["mean_ns"]))'; }
b=$(mean_of "$C/direct-buffered-1.osp") o=$(mean_of "$C/direct-odirect-1.osp")
[ "$b" -lt 10000 ] && [ "$o" -gt 20000 ] || fail "pread4k main peaks: buffered $b ns, O_DIRECT $o ns"

# Text: header, table, bucket range and shares.
"$OSPROF" peaks --calibration none "$C/sleep-sleep-1.osp" >"$TMP/p.txt" || fail "peaks text"
grep -q '^app:step (ns): 3000 ops, total .*, [0-9]* peaks$' "$TMP/p.txt" || fail "peaks header: $(head -1 "$TMP/p.txt")"
grep -q 'PEAK BUCKETS   RANGE' "$TMP/p.txt" || fail "peaks table header"
grep -Eq '^ +1 1[12]-1[34] +[0-9.]+ us - [0-9.]+ us' "$TMP/p.txt" || fail "peak 1 row: $(sed -n 3p "$TMP/p.txt")"

# Annotation with a calibration: a peak at a characteristic time says so.
# The calibration puts the O_DIRECT read time at this capture's main peak,
# spread over a bucket below and two above it, as a real calibration spreads
# here (q05 78 us, q95 185 us), so the peak's whole range fits.
m=$(mean_of "$C/direct-odirect-1.osp")
idx=$(python3 -c "print(int($m).bit_length())")
cat >"$TMP/cal.osp" <<OSP
osprof-profile-set 1
r 1
slice_ns 0
profile calib odirect_read_4k
stats 10 $((29 * m / 2)) $((m / 2)) $((4 * m))
buckets $((idx - 1)):1 $idx:6 $((idx + 1)):2 $((idx + 2)):1
end 1
OSP
OSPROF_CALIBRATION=$TMP/cal.osp "$OSPROF" peaks "$C/direct-odirect-1.osp" >"$TMP/p.txt" || fail "peaks with calibration"
grep -q 'consistent with O_DIRECT 4 KiB random read' "$TMP/p.txt" || fail "no O_DIRECT annotation: $(cat "$TMP/p.txt")"
OSPROF_CALIBRATION=$TMP/cal.osp "$OSPROF" peaks --json "$C/direct-odirect-1.osp" | grep -q '"matches":\["O_DIRECT 4 KiB random read"' || fail "JSON matches"
"$OSPROF" peaks "$C/direct-odirect-1.osp" | grep -q "no calibration at $TMP/none.osp" || fail "missing calibration not mentioned"

# Diff: the changed op differs with a reason, the unchanged one does not.
"$OSPROF" diff "$C/cache-warm-1.osp" "$C/cache-cold-1.osp" >"$TMP/d.txt" || fail "diff exit status"
grep -Eq '^ +[0-9]+  differs +[0-9]+  app:pread4k$' "$TMP/d.txt" || fail "app:pread4k not differing: $(cat "$TMP/d.txt")"
grep -Eq '^ +1  differs ' "$TMP/d.txt" || fail "rank 1 is not a difference"
grep -q 'reason: .*total latency +' "$TMP/d.txt" || fail "diff reason"
grep -q 'scores: TOTOPS .* EMD .* JEFFREY' "$TMP/d.txt" || fail "diff scores line"
! grep -q 'differs.*:fstat' "$TMP/d.txt" || fail "fstat reported as differing"
"$OSPROF" diff "$C/sleep-none-1.osp" "$C/sleep-none-2.osp" | grep -q '^no profile differs$' || fail "repeat differs"

# only_in_a / only_in_b and JSON verdicts in rank order.
cat >"$TMP/a.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile app step
stats 1000 6000000 5000 8000
buckets 13:1000
end 1
OSP
cat >"$TMP/b.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile app step
stats 1000 36000000 5000 120000
buckets 13:900 17:100
profile app fstat
stats 20 20000 900 1100
buckets 10:20
profile app extra
stats 20 20000 900 1100
buckets 10:20
end 3
OSP
"$OSPROF" diff --json "$TMP/a.osp" "$TMP/b.osp" >"$TMP/d.json" || fail "diff --json"
python3 - "$TMP/d.json" <<'PY' || fail "diff JSON"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
v = {o["op"]: o for o in objs}
assert v["step"]["verdict"] == "differs", v["step"]
assert v["fstat"]["verdict"] == "only_in_b" and v["extra"]["verdict"] == "only_in_b", objs
assert [o["rank"] for o in objs] == list(range(1, len(objs) + 1))
order = ["differs", "only_in_a", "only_in_b", "similar", "insignificant"]
assert [order.index(o["verdict"]) for o in objs] == sorted(order.index(o["verdict"]) for o in objs)
s = v["step"]["scores"]
for k in ("TOTOPS", "TOTLAT", "CHISQUARE", "EMD", "GROUPOPS", "GROUPLAT", "INTERSECT", "JEFFREY", "CHISQUARE_P"):
    assert k in s, k
assert v["step"]["layer"] == "app" and v["step"]["dims"] == {} and v["step"]["reason"]
PY
"$OSPROF" diff "$TMP/b.osp" "$TMP/a.osp" | grep -Eq 'only_in_a +- +app:(fstat|extra)' || fail "only_in_a text"
# --metric and --threshold decide phase 3; --min-share makes ops insignificant.
"$OSPROF" diff -m totlat -t 100 "$C/sleep-none-1.osp" "$C/sleep-none-2.osp" | grep -q 'metric TOTLAT, threshold 100' || fail "--metric/--threshold"
"$OSPROF" diff --all --min-share 100 --min-ops-share 100 "$C/cache-warm-1.osp" "$C/cache-cold-1.osp" >"$TMP/d.txt"
grep -q '^0 differ, ' "$TMP/d.txt" && grep -Eq 'insignificant +[0-9]+  app:pread4k' "$TMP/d.txt" || fail "--min-share: $(cat "$TMP/d.txt")"

# --min-count makes small profiles insignificant; --near-equal widens phase 1.
"$OSPROF" diff --json --min-count 5000 "$C/sleep-none-1.osp" "$C/sleep-sleep-1.osp" | grep -q '"op":"step",.*"verdict":"insignificant"' ||
	fail "--min-count"
sed 's/^stats 1000 6000000 /stats 1000 8000000 /' "$TMP/a.osp" >"$TMP/c.osp"
"$OSPROF" diff --json "$TMP/a.osp" "$TMP/c.osp" | grep -q '"op":"step",.*"verdict":"similar","metric":"EMD","phase":3' ||
	fail "same shape, +33 % total: phase 3"
"$OSPROF" diff --json --near-equal 40 "$TMP/a.osp" "$TMP/c.osp" | grep -q '"op":"step",.*"verdict":"similar","metric":"EMD","phase":1' ||
	fail "--near-equal"
# --top and --procs of peaks.
[ "$("$OSPROF" peaks --json --top 2 "$C/procs-two-1.osp" | wc -l)" -eq 2 ] || fail "peaks --top 2"
"$OSPROF" peaks --json --preemption --quantum 2ms --procs 3 "$C/procs-two-1.osp" |
	grep -q '"preemption":{"quantum_ns":2000000,"nprocs":3,"source":"--quantum"' || fail "--quantum/--procs"

# Errors: one line naming the culprit, exit status 2.
expect_rc() { local want=$1; shift; "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?; [ "$rc" -eq "$want" ] || fail "$*: exit $rc, want $want"; }
expect_rc 2 "$OSPROF" diff -m kl "$TMP/a.osp" "$TMP/b.osp"
grep -q "'kl' is not one of EMD" "$TMP/err" || fail "bad metric message"
expect_rc 2 "$OSPROF" diff "$TMP/a.osp"
expect_rc 2 "$OSPROF" diff "$TMP/a.osp" "$TMP/missing.osp"
grep -q "missing.osp" "$TMP/err" || fail "missing file not named: $(cat "$TMP/err")"
sed 's/^r 1/r 2/; s/^buckets .*/buckets 3:1/; s/^stats .*/stats 1 3 3 3/' "$TMP/a.osp" >"$TMP/r2.osp"
# Different resolutions: the finer set is rebinned (exactly) to the coarser.
expect_rc 0 "$OSPROF" diff --json "$TMP/a.osp" "$TMP/r2.osp"
grep -q "note: $TMP/r2.osp rebinned from r=2 to r=1 to match $TMP/a.osp" "$TMP/err" ||
	fail "rebin note: $(cat "$TMP/err")"
grep -q '"op":"step".*"count_b":1,' "$TMP/out" || fail "rebinned profile not compared: $(cat "$TMP/out")"
# --drop-dim sums over pids, so runs with different pids compare.
for x in a b; do
	pid=$([ $x = a ] && echo 11 || echo 22)
	cat >"$TMP/p$x.osp" <<OSP
osprof-profile-set 1
r 1
slice_ns 0
profile syscall read pid=$pid
stats 100 100000 900 1100
buckets 10:100
profile syscall read pid=$((pid + 1))
stats 50 50000 900 1100
buckets 10:50
end 2
OSP
done
"$OSPROF" diff --json "$TMP/pa.osp" "$TMP/pb.osp" | grep -c only_in | grep -qx 4 || fail "pids should not match"
"$OSPROF" diff --json --drop-dim pid "$TMP/pa.osp" "$TMP/pb.osp" >"$TMP/out" || fail "--drop-dim"
grep -q '"op":"read","dims":{},"verdict":"similar".*"count_a":150,"count_b":150' "$TMP/out" || fail "--drop-dim: $(cat "$TMP/out")"
expect_rc 2 "$OSPROF" diff --drop-dim PID "$TMP/pa.osp" "$TMP/pb.osp"
expect_rc 2 "$OSPROF" peaks --quantum 3ms "$TMP/a.osp"
expect_rc 2 "$OSPROF" peaks --preemption --quantum soon "$TMP/a.osp"
grep -q -- "--quantum: 'soon'" "$TMP/err" || fail "bad quantum message"
printf 'osprof-profile-set 1\nr 1\nbogus\n' >"$TMP/bad.osp"
expect_rc 2 "$OSPROF" peaks "$TMP/bad.osp"
grep -q "bad.osp:3" "$TMP/err" || fail "parse error without FILE:LINE: $(cat "$TMP/err")"
expect_rc 2 "$OSPROF" calibrate --dir "$TMP/nodir"
expect_rc 0 "$OSPROF" diff --help
expect_rc 0 "$OSPROF" peaks --help
expect_rc 0 "$OSPROF" calibrate --help
exit 0
