#!/usr/bin/env bash
# Captures the labelled diff corpus (tests/data/corpus): profile sets from
# real runs on this machine under controlled changes, REPEATS runs of each
# variant, and a labels file set by construction:
#   same variant, any op            -> same     (unchanged repeats)
#   base vs changed, the changed op -> differs
#   base vs changed, app:fstat      -> same     (its workload is unchanged)
# Usage: scripts/capture-corpus.sh [OUTDIR] [REPEATS] [SCRATCH_DIR]
# Needs build/tests/progs/corpus_workload (make). SCRATCH_DIR must be on a real
# disk (O_DIRECT, page-cache drops): default /var/tmp.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/tests/data/corpus}
REPEATS=${2:-4}
SCRATCH=${3:-/var/tmp}
PROG=${BUILD:-$ROOT/build}/tests/progs/corpus_workload
[ -x "$PROG" ] || { echo "capture-corpus: $PROG missing; run make" >&2; exit 2; }
mkdir -p "$OUT"
rm -f "$OUT"/*.osp
# scenario base changed op
SCENARIOS="cache:warm:cold:app:pread4k procs:one:two:app:locked
direct:buffered:odirect:app:pread4k sleep:none:sleep:app:step"
labels=$OUT/labels
{
	echo "# A B PROFILE LABEL (same|differs), set by construction; see scripts/capture-corpus.sh"
	echo "# captured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -r), $(nproc) CPUs"
} >"$labels"
for s in $SCENARIOS; do
	IFS=: read -r sc base changed layer op <<<"$s"
	# Interleave the variants so slow drifts of the machine hit both alike.
	for i in $(seq 1 "$REPEATS"); do
		for v in "$base" "$changed"; do
			"$PROG" "$sc" "$v" "$OUT/$sc-$v-$i.osp" "$SCRATCH"
		done
	done
	for i in $(seq 1 "$REPEATS"); do
		for j in $(seq 1 "$REPEATS"); do
			for v in "$base" "$changed"; do
				if [ "$i" -lt "$j" ]; then
					echo "$sc-$v-$i.osp $sc-$v-$j.osp $layer:$op same"
					echo "$sc-$v-$i.osp $sc-$v-$j.osp app:fstat same"
				fi
			done
			echo "$sc-$base-$i.osp $sc-$changed-$j.osp $layer:$op differs"
			echo "$sc-$base-$i.osp $sc-$changed-$j.osp app:fstat same"
		done
	done >>"$labels"
done
echo "capture-corpus: $(ls "$OUT"/*.osp | wc -l) profile sets, $(grep -vc '^#' "$labels") labelled pairs in $OUT"
