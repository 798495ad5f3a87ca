#!/usr/bin/env bash
# osprof plot: SVG is well-formed XML with one panel per profile, bars that
# add up to each profile's count, peaks, B overlay, heat map cells that add
# up to the count, the latency axis; gnuplot scripts run and PNG is a PNG;
# empty sets, one bucket, r=4 and 10,000 profiles; bad usage exits 2.
. "$(dirname "$0")/../lib.sh"
command -v xmllint >/dev/null || skip "xmllint missing (libxml2-utils; scripts/install-deps.sh)"
GEN=$PROGS/ospgen
x() { xmllint --xpath "$2" "$1"; } # x FILE XPATH (numbers)
el() { echo "//*[local-name()='$1']"; }

"$GEN" -o "$TMP/a.osp" -n 6 || fail ospgen
"$GEN" -o "$TMP/b.osp" -n 6 -S 7 --shift 4 || fail ospgen
"$GEN" -o "$TMP/s.osp" -n 3 -s 12 || fail ospgen

"$OSPROF" plot -o "$TMP/a.svg" "$TMP/a.osp" || fail "plot a"
xmllint --noout "$TMP/a.svg" || fail "a.svg is not well-formed XML"
expect_eq "panels" "$(x "$TMP/a.svg" "count($(el g)[@class='profile'])")" 6
# Each panel: bars add up to its count, and the generator's two modes are found.
for i in 1 2 3 4 5 6; do
	g="($(el g)[@class='profile'])[$i]"
	want=$(x "$TMP/a.svg" "string($g/@data-count)")
	got=$(x "$TMP/a.svg" "sum($g/*[local-name()='rect'][@class='bar']/@data-count)")
	expect_eq "bar sum of panel $i" "$got" "$want"
	expect_eq "peaks of panel $i" "$(x "$TMP/a.svg" "count($g/*[local-name()='g'][@class='peak'])")" 2
done
# Panels are ordered by total latency: the first is the one report ranks first.
top=$("$OSPROF" report --summary "$TMP/a.osp" | awk '/^PROFILE/{getline; print $1; exit}')
expect_eq "first panel" "$(x "$TMP/a.svg" "string(($(el g)[@class='profile'])[1]/@data-label)")" "$top"
# Axis labels in time units.
grep -q '>1µs</text>' "$TMP/a.svg" || fail "no 1µs tick label"

# --op keeps the matching profiles only; an unknown op is an error.
"$OSPROF" plot -o "$TMP/op.svg" --op syscall:read "$TMP/a.osp" || fail "plot --op"
expect_eq "--op panels" "$(x "$TMP/op.svg" "count($(el g)[@class='profile'])")" 1
expect_eq "--op label" "$(x "$TMP/op.svg" "string($(el g)[@class='profile']/@data-label)")" "syscall:read"
"$OSPROF" plot -o "$TMP/no.svg" --op nosuch "$TMP/a.osp" 2>"$TMP/err"
expect_eq "--op nosuch exit" "$?" 2
grep -q "nosuch" "$TMP/err" || fail "--op error does not name the op"

# --diff overlays B; --total adds the latency axis.
"$OSPROF" plot -o "$TMP/d.svg" --diff "$TMP/b.osp" --total "$TMP/a.osp" || fail "plot --diff"
xmllint --noout "$TMP/d.svg" || fail "d.svg not XML"
bsum=$(x "$TMP/d.svg" "sum(($(el g)[@class='profile'])[1]/*[local-name()='rect'][@class='bar-b']/@data-count)")
label=$(x "$TMP/d.svg" "string(($(el g)[@class='profile'])[1]/@data-label)")
bcount=$("$OSPROF" report --csv "$TMP/b.osp" | awk -F, -v l="$label" '{gsub(/"/,"")} $1 ":" $2 == l {print $5}')
expect_eq "B bars of $label" "$bsum" "$bcount"
expect_eq "latency axes" "$(x "$TMP/d.svg" "count($(el path)[@class='total'])")" 6

# Heat map: cells add up to the profile's count; --no-heatmap drops it.
"$OSPROF" plot -o "$TMP/s.svg" "$TMP/s.osp" || fail "plot sliced"
xmllint --noout "$TMP/s.svg" || fail "s.svg not XML"
expect_eq "heat maps" "$(x "$TMP/s.svg" "count($(el g)[@class='heatmap'])")" 3
g="($(el g)[@class='profile'])[1]"
expect_eq "heat cells sum" "$(x "$TMP/s.svg" "sum($g//*[@class='cell']/@data-count)")" \
	"$(x "$TMP/s.svg" "string($g/@data-count)")"
"$OSPROF" plot -o "$TMP/s2.svg" --no-heatmap "$TMP/s.osp" || fail "plot --no-heatmap"
expect_eq "no heat maps" "$(x "$TMP/s2.svg" "count($(el g)[@class='heatmap'])")" 0
"$OSPROF" plot -o "$TMP/x.svg" --heatmap "$TMP/a.osp" 2>/dev/null
expect_eq "--heatmap on unsliced exit" "$?" 2
[ ! -e "$TMP/x.svg" ] || fail "--heatmap on an unsliced set left $(stat -c %s "$TMP/x.svg") bytes in x.svg"
for ext in png gp; do
	"$OSPROF" plot -o "$TMP/x.$ext" --heatmap "$TMP/a.osp" 2>/dev/null
	expect_eq "--heatmap on unsliced exit ($ext)" "$?" 2
	[ ! -e "$TMP/x.$ext" ] || fail "--heatmap on an unsliced set left x.$ext"
done

# gnuplot: the script runs as is; PNG comes out as a PNG.
"$OSPROF" plot -o "$TMP/s.gp" --diff "$TMP/s.osp" --total "$TMP/s.osp" || fail "plot gp"
gnuplot -e "set terminal svg size 900,1600; set output '$TMP/gp.svg'" "$TMP/s.gp" || fail "gnuplot rejects the script"
xmllint --noout "$TMP/gp.svg" || fail "gnuplot output not XML"
"$OSPROF" plot -o "$TMP/s.png" "$TMP/s.osp" || fail "plot png"
expect_eq "PNG magic" "$(head -c 4 "$TMP/s.png" | od -An -c | tr -d ' ')" '211PNG'

# Edge cases: no profiles, one bucket + an empty profile, r=4, 10,000 profiles.
"$GEN" -o "$TMP/empty.osp" -n 0 || fail ospgen
"$GEN" -o "$TMP/single.osp" -n 2 --single --empty-profile || fail ospgen
"$GEN" -o "$TMP/r4.osp" -n 4 -r 4 -s 3 || fail ospgen
for f in empty single r4; do
	for ext in svg gp png; do
		"$OSPROF" plot -o "$TMP/$f.$ext" "$TMP/$f.osp" || fail "plot $f.$ext"
	done
	xmllint --noout "$TMP/$f.svg" || fail "$f.svg not XML"
done
grep -q 'no profiles in this set' "$TMP/empty.svg" || fail "empty set not said"
expect_eq "single: bars" "$(x "$TMP/single.svg" "count($(el rect)[@class='bar'])")" 2
grep -q '>no samples</text>' "$TMP/single.svg" || fail "empty profile not said"
grep -q 'r=4' "$TMP/r4.svg" || fail "r=4 not shown"
"$GEN" -o "$TMP/huge.osp" -n 10000 || fail ospgen
"$OSPROF" plot -o "$TMP/huge.svg" "$TMP/huge.osp" 2>"$TMP/err" || fail "plot huge"
grep -q "showing 30 of 10000" "$TMP/err" || fail "no note about --top: $(cat "$TMP/err")"
expect_eq "huge default panels" "$(x "$TMP/huge.svg" "count($(el g)[@class='profile'])")" 30
"$OSPROF" plot -o "$TMP/huge-all.svg" --top 0 "$TMP/huge.osp" || fail "plot huge --top 0"
expect_eq "huge all panels" "$(grep -c '<g class="profile"' "$TMP/huge-all.svg")" 10000

# Bad usage: one line naming the flag or FILE:LINE, exit 2.
"$OSPROF" plot -o "$TMP/a.jpg" "$TMP/a.osp" 2>"$TMP/err"
expect_eq "bad extension exit" "$?" 2
grep -q -- "-o/--output" "$TMP/err" || fail "bad extension message: $(cat "$TMP/err")"
printf 'osprof-profile-set 1\nr 3\n' >"$TMP/bad.osp"
"$OSPROF" plot -o "$TMP/x.svg" "$TMP/bad.osp" 2>"$TMP/err"
expect_eq "bad file exit" "$?" 2
grep -q "bad.osp:2" "$TMP/err" || fail "bad file message: $(cat "$TMP/err")"
# A/B of different resolutions: compared at the coarser one (exact), said.
"$OSPROF" plot -o "$TMP/rr.svg" --diff "$TMP/r4.osp" "$TMP/a.osp" 2>"$TMP/err" ||
	fail "--diff with another r: $(cat "$TMP/err")"
grep -q "r4.osp has resolution r=4, the other set r=1: comparing at r=1" "$TMP/err" ||
	fail "no note about the resolutions: $(cat "$TMP/err")"
label=$(x "$TMP/rr.svg" "string(($(el g)[@class='profile'])[1]/@data-label)")
bsum=$(x "$TMP/rr.svg" "sum(($(el g)[@class='profile'])[1]/*[local-name()='rect'][@class='bar-b']/@data-count)")
bcount=$("$OSPROF" report --csv "$TMP/r4.osp" | awk -F, -v l="$label" '{gsub(/"/,"")} $1 ":" $2 == l {print $5}')
expect_eq "B bars of $label after coarsening" "$bsum" "$bcount"
# --drop-dim sums over a dimension: 32 profiles over 2 pids become 16.
"$GEN" -o "$TMP/p32.osp" -n 32 || fail ospgen
"$OSPROF" plot -o "$TMP/drop.svg" --top 0 --drop-dim pid --diff "$TMP/p32.osp" "$TMP/p32.osp" ||
	fail "plot --drop-dim"
expect_eq "panels after --drop-dim pid" "$(x "$TMP/drop.svg" "count($(el g)[@class='profile'])")" 16
expect_eq "ops kept by --drop-dim" "$(x "$TMP/drop.svg" "sum($(el g)[@class='profile']/@data-count)")" \
	"$("$OSPROF" report --csv "$TMP/p32.osp" | awk -F, 'NR > 1 {n += $5} END {print n}')"
"$OSPROF" plot -o "$TMP/x.svg" --drop-dim 'P!D' "$TMP/p32.osp" 2>"$TMP/err"
expect_eq "bad --drop-dim exit" "$?" 2
grep -q -- "--drop-dim: 'P!D'" "$TMP/err" || fail "bad --drop-dim message: $(cat "$TMP/err")"
"$OSPROF" plot --help | grep -q "^usage: osprof plot" || fail "--help"

# Characteristic times: with a calibration (tests/data/views-calib.osp)
# whose null system call and context switch take ~200 ns, the fast peak of
# syscall:read (~180-330 ns) is annotated as the null system call only: a
# read with no pipe or socket behind it is no context switch.
CAL=$ROOT/tests/data/views-calib.osp
OSPROF_CALIBRATION=$CAL "$OSPROF" plot -o "$TMP/cal.svg" --op syscall:read "$TMP/a.osp" ||
	fail "plot with calibration"
xmllint --noout "$TMP/cal.svg" || fail "cal.svg not XML"
expect_eq "notes" "$(x "$TMP/cal.svg" "count($(el g)[@class='note'])")" 1
# (the label text is the analysis library's: only its start is checked)
label=$(x "$TMP/cal.svg" "string($(el g)[@class='note'])")
case $label in "null system call"*) ;; *) fail "note label: got '$label'" ;; esac
OSPROF_CALIBRATION=$CAL "$OSPROF" plot -o "$TMP/cal.gp" --op syscall:read "$TMP/a.osp" ||
	fail "gnuplot with calibration"
grep -q "null system call" "$TMP/cal.gp" && ! grep -q "context switch" "$TMP/cal.gp" ||
	fail "gnuplot script lacks the annotation"
