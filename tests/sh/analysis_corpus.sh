#!/usr/bin/env bash
# Diff accuracy on the labelled corpus (tests/data/corpus): every metric's
# false-positive and false-negative rates at its default threshold; the
# default selection (3 phases, EMD) must misclassify <= 2 % of the pairs.
. "$(dirname "$0")/../lib.sh"
BIN=$BUILD/tests/progs/diff_accuracy
[ -x "$BIN" ] || fail "$BIN missing"
DIFF_ACCURACY_VERBOSE=1 "$BIN" "$ROOT/tests/data/corpus" >"$TMP/acc" || fail "diff_accuracy failed"
cat "$TMP/acc"
n=$(grep -c . "$ROOT/tests/data/corpus/labels")
[ "$n" -ge 200 ] || fail "corpus has only $n label lines"
for m in TOTOPS TOTLAT CHISQUARE EMD GROUPOPS GROUPLAT INTERSECT JEFFREY; do
	grep -q "^$m " "$TMP/acc" || fail "no rates for $m"
done
# Columns: METRIC THRESHOLD | FP FN ERR | FP FN ERR (3-phase selection).
err=$(awk '$1 == "EMD" { print $10 }' "$TMP/acc")
awk -v e="$err" 'BEGIN { exit !(e <= 2.0) }' || fail "EMD selection misclassifies $err % (target <= 2 %)"
# The metrics must not be trivial: each one alone gets some pair right and
# the unchanged repeats are not all called different.
awk '$1 ~ /^[A-Z]+$/ && $2 ~ /^[0-9.]+$/ && $4 >= 100 { bad = 1 } END { exit bad }' "$TMP/acc" ||
	fail "a metric calls every unchanged pair different"
exit 0
