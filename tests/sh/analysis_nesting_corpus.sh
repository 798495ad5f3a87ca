#!/usr/bin/env bash
# Nesting claims of `osprof report --json --nesting` on the stored nesting
# corpus (real runs with bpftrace ground truth, scripts/capture-nesting-
# corpus.sh) keep the issue's targets: precision >= 95 %, recall >= 90 %
# (bench/nesting_accuracy.sh prints the figures; the data is fixed, so a
# drop is a change in how osprof reads or reports nesting).
. "$(dirname "$0")/../lib.sh"
out=$("$ROOT/bench/nesting_accuracy.sh" "$BUILD" "$ROOT/tests/data/corpus") || fail "bench failed: $out"
echo "$out"
p=$(echo "$out" | sed -n 's/^nesting precision: .*(\([0-9.]*\) %;.*/\1/p')
r=$(echo "$out" | sed -n 's/^nesting recall: .*(\([0-9.]*\) %;.*/\1/p')
[ -n "$p" ] && [ -n "$r" ] || fail "no figures: $out"
awk -v p="$p" -v r="$r" 'BEGIN { exit !(p >= 95 && r >= 90) }' || fail "precision $p % / recall $r % below 95 / 90"
exit 0
