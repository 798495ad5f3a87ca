#!/usr/bin/env bash
# Captures the labelled diff corpus (tests/data/corpus): profile sets from
# real runs on this machine under controlled changes, REPEATS runs of each
# variant, and a labels file set by construction. Each run is profiled twice
# at once: the workload times its own operations (layer app) and runs under
# `osprof run -l user` (the LD_PRELOAD layer: user:pread, user:flock,
# user:fstat, ...); the two sets are merged.
#   same variant, any labelled op          -> same     (unchanged repeats)
#   base vs changed, the changed ops       -> differs
#   base vs changed, app:fstat, user:fstat -> same     (workload unchanged)
# Usage: scripts/capture-corpus.sh [OUTDIR] [REPEATS] [SCRATCH_DIR]
# Needs build/tests/progs/corpus_workload (make). SCRATCH_DIR must be on a real
# disk (O_DIRECT, page-cache drops): default /var/tmp.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/tests/data/corpus}
REPEATS=${2:-4}
SCRATCH=${3:-/var/tmp}
PROG=${BUILD:-$ROOT/build}/tests/progs/corpus_workload
OSPROF=${BUILD:-$ROOT/build}/osprof
[ -x "$PROG" ] && [ -x "$OSPROF" ] || { echo "capture-corpus: $PROG or $OSPROF missing; run make" >&2; exit 2; }
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
mkdir -p "$OUT"
rm -f "$OUT"/*.osp
# scenario:base:changed:changed ops (comma-separated)
SCENARIOS="cache:warm:cold:app:pread4k,user:pread procs:one:two:app:locked,user:flock
direct:buffered:odirect:app:pread4k,user:pread sleep:none:sleep:app:step"
labels=$OUT/labels
{
	echo "# A B PROFILE LABEL (same|differs), set by construction; see scripts/capture-corpus.sh"
	echo "# captured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -r), $(nproc) CPUs"
} >"$labels"
for s in $SCENARIOS; do
	IFS=: read -r sc base changed ops <<<"$s"
	ops=${ops//,/ }
	# Interleave the variants so slow drifts of the machine hit both alike.
	for i in $(seq 1 "$REPEATS"); do
		for v in "$base" "$changed"; do
			"$OSPROF" run -l user -o "$TMPD/u.osp" -- "$PROG" "$sc" "$v" "$TMPD/a.osp" "$SCRATCH" \
				2>"$TMPD/err" || { cat "$TMPD/err" >&2; exit 1; }
			"$OSPROF" merge -o "$OUT/$sc-$v-$i.osp" "$TMPD/a.osp" "$TMPD/u.osp"
		done
	done
	for i in $(seq 1 "$REPEATS"); do
		for j in $(seq 1 "$REPEATS"); do
			for v in "$base" "$changed"; do
				if [ "$i" -lt "$j" ]; then
					for op in $ops app:fstat user:fstat; do
						echo "$sc-$v-$i.osp $sc-$v-$j.osp $op same"
					done
				fi
			done
			for op in $ops; do
				echo "$sc-$base-$i.osp $sc-$changed-$j.osp $op differs"
			done
			echo "$sc-$base-$i.osp $sc-$changed-$j.osp app:fstat same"
			echo "$sc-$base-$i.osp $sc-$changed-$j.osp user:fstat same"
		done
	done >>"$labels"
done
echo "capture-corpus: $(ls "$OUT"/*.osp | wc -l) profile sets, $(grep -vc '^#' "$labels") labelled pairs in $OUT"
