#!/usr/bin/env bash
# osprof report on a hand-written set of several layers, a long label, a
# bytes profile, time slices and an overflow-only profile: one summary
# section per layer whose CUM grows to 100%, aligned columns, histogram
# titles in the unit of their scale, no duration printed for the overflow
# bucket; --json's first record is the metadata, once; --csv honours --pct
# and --slices and names columns by unit; conflicting formats exit 2.
. "$(dirname "$0")/../lib.sh"
f=$TMP/t.osp
cat >"$f" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 1000000000
meta host testhost
meta command ./app%20--x
meta lost_events 3
profile syscall read
stats 10 10000 1000 1000
buckets 10:10
slice 0 10:4
slice 1 10:6
profile syscall write
stats 5 5000000 1000000 1000000
buckets 20:5
profile syscall fsync
stats 4 40000000 10000000 10000000
buckets 24:4
profile fs ext4_sync_file dev=loop0 fs=ext4 path_with_a_really_long_dimension_value=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
stats 2 20000000 10000000 10000000
buckets 24:2
profile fs ext4_file_write_iter
stats 8 80000 10000 10000
buckets 14:8
profile block size dev=vda
unit bytes
stats 4 16384 4096 4096
buckets 13:4
profile lock wait
stats 1 18446744073709551611 18446744073709551611 18446744073709551611
buckets 64:1
end 7
OSP
out=$("$OSPROF" report "$f") || fail "report exit"
sum=$("$OSPROF" report --summary "$f") || fail "report --summary exit"

# One section per layer; within each, CUM never decreases and ends at 100%.
expect_eq "sections" "$(echo "$sum" | grep -c '^LAYER ')" 4
echo "$sum" | awk '
	/^LAYER / { if (last != "" && last != "100.0%") bad = bad " " layer ":" last; layer = $2; last = ""; prev = 0; next }
	/^PROFILE/ || /^\(/ || NF == 0 { next }
	match($0, /[0-9.]+% +[0-9.]+%/) { n = split(substr($0, RSTART, RLENGTH), c, / +/); v = c[2] + 0; if (v < prev) bad = bad " decreasing:" $1; prev = v; last = c[2] }
	END { if (last != "" && last != "100.0%") bad = bad " " layer ":" last; if (bad != "") { print bad; exit 1 } }' ||
	fail "CUM is not per section: $sum"
# Sections hold only their layer's profiles.
echo "$sum" | awk '/^LAYER /{l = $2; sub(/:$/, "", l); next} /^[a-z]+:/{split($1, k, ":"); if (k[1] != l) exit 1}' ||
	fail "a profile outside its layer's section"
# Columns line up: the header and every row of the summary have the same
# length up to the MAX column, long label or not.
w=$(echo "$sum" | awk '/^PROFILE/{print index($0, "COUNT") + 4}' | sort -u)
expect_eq "one COUNT column end" "$(echo "$w" | wc -l)" 1
echo "$sum" | awk -v w="$w" '/^[a-z]+:/{ if (substr($0, w, 1) !~ /[0-9]/ || substr($0, w + 1, 1) != " ") { print; exit 1 } }' ||
	fail "a COUNT cell is out of its column"
# Histogram titles name the unit of the scale under them.
echo "$out" | awk '/^[a-z]+:.*\((nsecs|usecs|msecs|bytes)\)$/ { t = $NF; gsub(/[()]/, "", t); getline; if ($1 != t) { print t " vs " $1; exit 1 }; n++ } END { exit n == 7 ? 0 : 2 }' ||
	fail "histogram title and scale units differ"
# The overflow bucket: no duration printed for it anywhere.
echo "$out" | grep -E '9223372036|18446744073|13043817825' && fail "overflow values printed as durations"
echo "$out" | grep -Eq '^ +1 ovf +>= 2\^63 \(overflow\) +1 +- ' || fail "overflow peak row: $(echo "$out" | grep ovf)"

# Histogram columns widen for values past bcc's 10 digits (-n on 5.6 h):
# every row's " : " stays in the header's column.
printf 'osprof-profile-set 1\nr 1\nslice_ns 0\nprofile syscall poll\nstats 3 30000000000000 10 20000000000000\nbuckets 4:1 44:1 45:1\nend 1\n' >"$TMP/w.osp"
"$OSPROF" report -n "$TMP/w.osp" | awk '/^syscall:poll \(nsecs\)$/{on=1; next} on && / : /{print index($0, " : ")} on && /^$/{exit}' | sort -u >"$TMP/cols"
expect_eq "one ' : ' column in a wide histogram" "$(wc -l <"$TMP/cols")" 1

# --json: the metadata first and once, then the profiles.
json=$("$OSPROF" report --json "$f") || fail "json exit"
python3 - "$json" <<'PY' || fail "json meta record"
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
m = rows[0]
assert m["type"] == "meta", m
assert m["meta"]["host"] == "testhost" and m["meta"]["command"] == "./app --x", m
assert m["meta"]["lost_events"] == "3" and m["slice_ns"] == 10**9 and m["profiles"] == 7, m
assert [r["type"] for r in rows[1:]] == ["profile"] * 7, rows
assert sum(r["type"] == "meta" for r in rows) == 1
PY

# --csv: percentile columns, unit names, slice rows.
csv=$("$OSPROF" report --csv --pct 50,99 "$f") || fail "csv exit"
hdr=$(echo "$csv" | head -1)
case $hdr in "layer,op,dims,unit,count,total,min,max,p50,p99,b0_ge_0,"*) ;; *) fail "mixed-unit csv header: $hdr" ;; esac
expect_eq "csv p50 of syscall:read" "$(echo "$csv" | awk -F, '$2 == "\"read\"" {print $9}')" 1000
bytes=$(printf 'osprof-profile-set 1\nr 1\nslice_ns 0\nprofile block size\nunit bytes\nstats 1 4096 4096 4096\nbuckets 13:1\nend 1\n')
echo "$bytes" >"$TMP/b.osp"
case $("$OSPROF" report --csv --pct 50 "$TMP/b.osp" | head -1) in
"layer,op,dims,unit,count,total_bytes,min_bytes,max_bytes,p50_bytes,"*) ;;
*) fail "bytes csv header: $("$OSPROF" report --csv "$TMP/b.osp" | head -1)" ;;
esac

sl=$("$OSPROF" report --csv --slices "$f") || fail "csv --slices exit"
expect_eq "csv slice rows of read" "$(echo "$sl" | awk -F, '$2 == "\"read\"" && $5 != "" {print $5 ":" $6}' | tr '\n' ' ')" "0:4 1:6 "

# Conflicting output flags are usage errors.
"$OSPROF" report --json --csv "$f" >/dev/null 2>&1
expect_eq "--json --csv" "$?" 2
"$OSPROF" report --csv --summary "$f" >/dev/null 2>&1
expect_eq "--csv --summary" "$?" 2
true
