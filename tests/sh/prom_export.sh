# osprof export --prometheus: text format that Prometheus's own checker
# accepts, the counts of the file, -o written whole, bad usage exit 2.
. "$(dirname "$0")/../lib.sh"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"
"$PROGS/ospgen" -o "$TMP/a.osp" -n 32 --host web1 || fail "ospgen"
"$PROGS/ospgen" -o "$TMP/b.osp" -n 32 --host web2 -S 9 || fail "ospgen"
"$OSPROF" merge -o "$TMP/m.osp" "$TMP/a.osp" "$TMP/b.osp" || fail "merge"
"$OSPROF" export --prometheus -o "$TMP/osprof.prom" "$TMP/m.osp" || fail "export"
promtool check metrics <"$TMP/osprof.prom" || fail "promtool rejects the export"
# every profile's count is its series' _count, with its host label
report_profiles "$TMP/m.osp" >"$TMP/rows"
python3 - "$TMP/rows" "$TMP/osprof.prom" <<'PY' || fail "counts differ"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
text = open(sys.argv[2]).read()
counts = {}
for m in re.finditer(r'^osprof_(\w+)_latency_seconds_count\{(.*)\} (\d+)$', text, re.M):
    labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
    counts[(m.group(1), labels.pop("op"), tuple(sorted(labels.items())))] = int(m.group(3))
assert len(counts) == len(rows) == 64, (len(counts), len(rows))
for r in rows:
    key = (r["layer"], r["op"], tuple(sorted(r["dims"].items())))
    assert counts[key] == r["count"], (key, counts[key], r["count"])
PY
# the cap: 10 series, the other 54 counted
"$OSPROF" export --prometheus --max-series 10 "$TMP/m.osp" >"$TMP/cap.prom" || fail "export cap"
expect_eq "series under the cap" "$(grep -c '_count{' "$TMP/cap.prom")" "10"
grep -qx 'osprof_series_overflow_total{host="2 hosts"} 54' "$TMP/cap.prom" ||
	fail "overflow not counted: $(grep overflow "$TMP/cap.prom")"
rc=0
"$OSPROF" export "$TMP/m.osp" 2>/dev/null || rc=$?
expect_eq "export without a format" "$rc" "2"
rc=0
"$OSPROF" export --prometheus --max-series x "$TMP/m.osp" 2>/dev/null || rc=$?
expect_eq "bad --max-series" "$rc" "2"
exit 0
