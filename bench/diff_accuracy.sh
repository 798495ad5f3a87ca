#!/usr/bin/env bash
# False-positive and false-negative rates of every diff metric at its default
# threshold on the labelled corpus (tests/data/corpus, or DIR), alone and as
# phase 3 of `osprof diff`. Target: <= 2 % misclassified for EMD (the default).
#   bench/diff_accuracy.sh [BUILD_DIR] [CORPUS_DIR]
# DIFF_ACCURACY_VERBOSE=1 also lists the pairs the default gets wrong.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/tests/progs/diff_accuracy
[ -x "$BIN" ] || { echo "diff_accuracy: $BIN missing (run make)" >&2; exit 2; }
exec "$BIN" "${2:-$ROOT/tests/data/corpus}"
