# osprof report / merge on a profile set written by the core API: text layout,
# NDJSON fields, CSV shape, --top, --pct, merge sums and errors.
. "$(dirname "$0")/../lib.sh"
"$PROGS/make_profiles" "$TMP/a.osp" 1 || fail "make_profiles"
"$PROGS/make_profiles" "$TMP/b.osp" 2 || fail "make_profiles r=2"

out=$("$OSPROF" report "$TMP/a.osp") || fail "report exit"
echo "$out" | grep -q '^PROFILE .*COUNT .*TOTAL .*SHARE .*CUM' || fail "no summary header"
echo "$out" | grep -Eq '^ +nsecs : count +distribution$' || fail "no bcc-style header"
echo "$out" | grep -Eq '^ +128 -> 255 +: 1000 +\|\*{40}\|$' || fail "bucket row"
# ranked by total latency: 'slow' (100 x 1 ms) before 'fast' (1000 x 200 ns)
first=$(echo "$out" | awk '/^PROFILE/{getline; print $1; exit}')
expect_eq "first ranked profile" "$first" "app:slow"

json=$(report_profiles --pct 50,99 "$TMP/a.osp") || fail "json exit"
python3 - "$json" <<'PY' || fail "NDJSON content"
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
by = {r["op"]: r for r in rows}
assert by["fast"]["count"] == 1000 and by["slow"]["count"] == 100, by
for r in rows:
    assert sum(b["count"] for b in r["buckets"]) == r["count"]
    for k in ("layer", "op", "count", "total_ns", "min_ns", "max_ns", "buckets", "p99_ns"):
        assert k in r, k
assert by["fast"]["dims"] == {"pid": "7", "comm": "demo app"}, by["fast"]
assert by["fast"]["buckets"][0] == {"index": 8, "b": 7, "lo_ns": 128, "hi_ns": 255, "count": 1000}
PY

csv=$("$OSPROF" report --csv "$TMP/a.osp")
expect_eq "csv rows" "$(echo "$csv" | wc -l)" "3"
expect_eq "csv columns" "$(echo "$csv" | head -1 | tr ',' '\n' | wc -l)" "$((8 + 65))"
expect_eq "--top 1" "$(report_profiles --top 1 "$TMP/a.osp" | wc -l)" "1"

"$OSPROF" merge -o "$TMP/m.osp" "$TMP/a.osp" "$TMP/a.osp" || fail "merge"
n=$(report_profiles "$TMP/m.osp" | python3 -c 'import sys,json; print(sum(json.loads(l)["count"] for l in sys.stdin))')
expect_eq "merged count" "$n" "2200"
err=$("$OSPROF" merge -o "$TMP/x.osp" "$TMP/a.osp" "$TMP/b.osp" 2>&1) && fail "merge of r=1 and r=2 succeeded"
echo "$err" | grep -q "resolutions differ" || fail "merge error: $err"

printf 'osprof-profile-set 1\nr 1\nprofile user read\nstats 2 1 1 1\nbuckets 1:1\nend 1\n' >"$TMP/bad.osp"
err=$("$OSPROF" report "$TMP/bad.osp" 2>&1)
rc=$?
expect_eq "bad file exit" "$rc" "2"
expect_eq "bad file error" "$err" "$TMP/bad.osp:5: count 2 != sum of buckets 1"
"$OSPROF" report --pct 200 "$TMP/a.osp" 2>/dev/null && fail "--pct 200 accepted"
"$OSPROF" report 2>/dev/null; expect_eq "no FILE exit" "$?" "2"
exit 0
