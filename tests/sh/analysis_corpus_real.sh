#!/usr/bin/env bash
# diff and peak detection on the stored real-workload corpus
# (tests/data/corpus/real, scripts/capture-real-corpus.sh): bench/diff_real.py
# prints, per metric, false "differs" on unchanged repeats, missed controlled
# changes and top-3 ranks, and the peak split stability.
# Committed capture (zram RAM disks, journal thread and workload on one CPU,
# 2026-11-25): no unchanged pair with a false differs, no controlled change
# missed, all 27 in the top 3, 97.4 % stable peak counts with the app-level
# corpus (docs/analysis.md, "Real workloads"). This test guards that level
# against regression and checks the corpus is what the bench needs.
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
[ "$fp" -eq 0 ] || fail "false differs on $fp unchanged pairs (committed level 0 of 63)"
[ "$fn" -eq 0 ] || fail "$fn controlled changes missed (committed level 0 of 27)"
[ "$top3" = 27/27 ] || fail "$top3 changed profiles in the top 3 (committed level 27/27)"
rate=$(sed -n 's/^peak split stability: .*(\([0-9.]*\) %.*/\1/p' "$TMP/acc")
[ -n "$rate" ] || fail "no stability line"
awk -v r="$rate" 'BEGIN { exit !(r >= 97.4) }' || fail "peak split stability $rate % (committed level 97.4 %)"
exit 0
