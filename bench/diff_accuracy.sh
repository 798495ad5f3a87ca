#!/usr/bin/env bash
# Accuracy of `osprof diff` and of peak detection on the labelled corpus
# (tests/data/corpus, or DIR):
#  1. app-level corpus (tests/progs/diff_accuracy): FP and FN rates of every
#     metric at its default threshold, alone and as phase 3 of `osprof diff`;
#  2. real-workload corpus (DIR/real, bench/diff_real.py): per metric, false
#     "differs" on unchanged repeats, missed controlled changes and changed
#     ops ranked in the top 3; peak split stability over all repeats;
#  3. nesting precision and recall (bench/nesting_accuracy.sh), when present.
#   bench/diff_accuracy.sh [BUILD_DIR] [CORPUS_DIR]
# DIFF_ACCURACY_VERBOSE=1 also lists the pairs the default gets wrong.
# DIFF_ACCURACY_CHECK=1 exits 1 when part 2 misses its targets.
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
CORPUS=${2:-$ROOT/tests/data/corpus}
BIN=$BUILD/tests/progs/diff_accuracy
bench_need_built "$BIN"
"$BIN" "$CORPUS"
echo
python3 "$ROOT/bench/diff_real.py" "$BUILD/osprof" "$CORPUS" ${DIFF_ACCURACY_CHECK:+--check}
if [ -x "$ROOT/bench/nesting_accuracy.sh" ]; then
	echo
	"$ROOT/bench/nesting_accuracy.sh" "$BUILD" "$CORPUS"
else
	echo "nesting precision/recall: bench/nesting_accuracy.sh not present"
fi
