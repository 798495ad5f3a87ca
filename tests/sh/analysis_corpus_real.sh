#!/usr/bin/env bash
# diff and peak detection on the stored real-workload corpus
# (tests/data/corpus/real, scripts/capture-real-corpus.sh): bench/diff_real.py
# prints, per metric, false "differs" on unchanged repeats, missed controlled
# changes and top-3 ranks, and the peak split stability.
# Issue 11's targets (0 FP, 0 FN, every change in the top 3, >= 95 % stable
# peak counts) are NOT met on this corpus (docs/analysis.md, "Real
# workloads"): this test guards the measured level against regression --
# the EMD selection's FP pairs, FNs and stability may not get worse than in
# the committed measurement -- and checks the corpus is what the bench needs.
. "$(dirname "$0")/../lib.sh"
C=$ROOT/tests/data/corpus
[ -f "$C/real/labels" ] || fail "no real corpus labels"
n=$(grep -vc '^#' "$C/real/labels")
[ "$n" -ge 40 ] || fail "real corpus has only $n labelled pairs (want >= 40)"
python3 "$ROOT/bench/diff_real.py" "$OSPROF" "$C" >"$TMP/acc" || fail "bench failed"
cat "$TMP/acc"
# Row: METRIC | FP FP-OPS | FN TOP3/N | misses
read -r fp fn top3 <<<"$(awk '$1 == "EMD" && $2 == "|" { print $3, $6, $7 }' "$TMP/acc")"
[ -n "$fp" ] || fail "no EMD row"
echo "EMD selection: $fp unchanged pairs with a false differs, $fn missed changes, $top3 in the top 3"
[ "$fp" -le 7 ] || fail "false differs on $fp unchanged pairs (committed level 7 of 63)"
[ "$fn" -le 5 ] || fail "$fn controlled changes missed (committed level 5 of 27)"
rate=$(sed -n 's/^peak split stability: .*(\([0-9.]*\) %.*/\1/p' "$TMP/acc")
[ -n "$rate" ] || fail "no stability line"
awk -v r="$rate" 'BEGIN { exit !(r >= 94.5) }' || fail "peak split stability $rate % (committed level 94.6 %)"
exit 0
