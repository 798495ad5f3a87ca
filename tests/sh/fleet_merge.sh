# Host-aware merge and diff: merge keeps each file's host as a host dimension
# (counts per host intact), --combine-hosts sums them, incompatible inputs are
# refused with one line and no output unless --drop-slices, and
# `diff --by host` ranks the one host that differs first, the alike ones at 0.
. "$(dirname "$0")/../lib.sh"
G=$PROGS/ospgen

# five identical hosts and one whose slow peak is 8x slower
for h in web1 web2 web3 web4 web5; do
	"$G" -o "$TMP/$h.osp" -n 32 -S 7 --host "$h" || fail "ospgen $h"
done
"$G" -o "$TMP/web6.osp" -n 32 -S 7 --shift 8 --host web6 || fail "ospgen web6"

count_of() { # count_of FILE JQ-ish filter on dims: python prints the sum
	report_profiles "$1" | python3 -c '
import sys, json
want = sys.argv[1]
print(sum(r["count"] for r in map(json.loads, sys.stdin)
          if want == "*" or r.get("dims", {}).get("host") == want))' "$2"
}

"$OSPROF" merge -o "$TMP/two.osp" "$TMP/web1.osp" "$TMP/web6.osp" || fail "merge two hosts"
c1=$(count_of "$TMP/web1.osp" '*')
c6=$(count_of "$TMP/web6.osp" '*')
expect_eq "web1 count in merged" "$(count_of "$TMP/two.osp" web1)" "$c1"
expect_eq "web6 count in merged" "$(count_of "$TMP/two.osp" web6)" "$c6"
expect_eq "profiles in merged" "$(grep -c '^profile' "$TMP/two.osp")" "64"
grep -qx 'meta hosts 2' "$TMP/two.osp" || fail "merged file does not count 2 hosts"
# a merged file merged again keeps its hosts; a new host joins them
"$OSPROF" merge -o "$TMP/three.osp" "$TMP/two.osp" "$TMP/web2.osp" || fail "merge of a merge"
expect_eq "web1 after re-merge" "$(count_of "$TMP/three.osp" web1)" "$c1"
grep -qx 'meta hosts 3' "$TMP/three.osp" || fail "re-merged file does not count 3 hosts"
# --combine-hosts: no host dimension, the sum
"$OSPROF" merge --combine-hosts -o "$TMP/comb.osp" "$TMP/two.osp" || fail "combine"
expect_eq "combined profiles" "$(grep -c '^profile' "$TMP/comb.osp")" "32"
grep -q 'host=' "$TMP/comb.osp" && fail "combined file still has host dims"
expect_eq "combined count" "$(count_of "$TMP/comb.osp" '*')" "$((c1 + c6))"

# refusals: one line naming both files and the reason, exit 2, no output
refused() { # refused WHAT PATTERN merge-args...
	local what=$1 pat=$2 rc=0
	shift 2
	"$OSPROF" merge -o "$TMP/no.osp" "$@" 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, want 2"
	grep -q "$pat" "$TMP/err" || fail "$what: message: $(cat "$TMP/err")"
	expect_eq "$what: lines on stderr" "$(wc -l <"$TMP/err")" "1"
	[ ! -e "$TMP/no.osp" ] || fail "$what: output written"
}
"$G" -o "$TMP/r2.osp" -r 2 --host web1 || fail "ospgen r=2"
"$G" -o "$TMP/s1.osp" -s 10 --host a --start 1000000000 || fail "ospgen sliced"
"$G" -o "$TMP/s2.osp" -s 10 --host b --start 1000000000 -S 3 || fail "ospgen sliced 2"
"$G" -o "$TMP/s3.osp" -s 10 --host c --start 1500000000 || fail "ospgen sliced late"
refused "different r" "resolutions differ" "$TMP/web1.osp" "$TMP/r2.osp"
refused "sliced with unsliced" "one set is sliced" "$TMP/s1.osp" "$TMP/web1.osp"
refused "slice start" "slices start at different times" "$TMP/s1.osp" "$TMP/s3.osp"
sed 's/^slice_ns 100000000$/slice_ns 200000000/' "$TMP/s2.osp" >"$TMP/s4.osp"
refused "slice length" "slice lengths differ" "$TMP/s1.osp" "$TMP/s4.osp"
# slices that line up merge, and every slice still sums to its total
"$OSPROF" merge -o "$TMP/sl.osp" "$TMP/s1.osp" "$TMP/s2.osp" || fail "aligned slices refused"
report_profiles "$TMP/sl.osp" >/dev/null || fail "sliced merge does not read back"
# --drop-slices: totals only
"$OSPROF" merge --drop-slices -o "$TMP/ds.osp" "$TMP/s1.osp" "$TMP/web1.osp" "$TMP/s3.osp" ||
	fail "--drop-slices refused"
grep -q '^slice ' "$TMP/ds.osp" && fail "--drop-slices kept slices"
grep -qx 'slice_ns 0' "$TMP/ds.osp" || fail "--drop-slices: slice_ns not 0"

# diff --by host: web6 first with a positive score, the others at 0
"$OSPROF" merge -o "$TMP/fleet.osp" "$TMP"/web?.osp || fail "merge fleet"
"$OSPROF" diff --by host --json "$TMP/fleet.osp" >"$TMP/rank.json" || fail "diff --by host"
python3 - "$TMP/rank.json" <<'PY' || fail "host ranking: $(cat "$TMP/rank.json")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 6, rows
assert rows[0]["host"] == "web6" and rows[0]["score"] > 0 and rows[0]["differ"] > 0, rows[0]
assert all(r["score"] == 0 and r["differ"] == 0 for r in rows[1:]), rows[1:]
PY
# the same from the separate files, and the text table
out=$("$OSPROF" diff --by host "$TMP"/web?.osp) || fail "diff --by host FILES"
echo "$out" | awk '$1 == "1" {print $2}' | grep -qx web6 || fail "text ranking: $out"
echo "$out" | grep -q '^1 not like the others' || fail "text summary: $out"
# one host is no fleet
rc=0
"$OSPROF" diff --by host "$TMP/web1.osp" 2>"$TMP/err" || rc=$?
expect_eq "diff --by host of one host" "$rc" "2"
grep -q "needs a set merged from two hosts" "$TMP/err" || fail "one host: $(cat "$TMP/err")"
exit 0
