#!/usr/bin/env bash
# Captures the labelled diff corpus (tests/data/corpus): profile sets from
# real runs on this machine under controlled changes, REPEATS runs of each
# variant, and a labels file set by construction. Each run is profiled at
# several layers at once: the workload times its own operations (layer app)
# and runs under `osprof run -l user,syscall` (the LD_PRELOAD layer:
# user:pread, user:flock, user:fstat, ...; the eBPF syscall layer:
# syscall:pread64, syscall:flock, syscall:newfstatat, ...; without root or
# BTF, -l user only); the sets are merged.
#   same variant, any labelled op   -> same     (unchanged repeats)
#   base vs changed, the changed ops -> differs
#   base vs changed, the fstat ops   -> same     (workload unchanged)
# Then, as root, the real-workload part: scripts/capture-real-corpus.sh
# into OUTDIR/real.
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
LAYERS=user
SAME="app:fstat user:fstat"
if [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	LAYERS=user,syscall
	SAME="$SAME syscall:newfstatat"
fi
echo "capture-corpus: layers app,$LAYERS"
mkdir -p "$OUT"
rm -f "$OUT"/*.osp
# scenario:base:changed:changed ops (comma-separated)
SCENARIOS="cache:warm:cold:app:pread4k,user:pread,syscall:pread64
procs:one:two:app:locked,user:flock,syscall:flock
direct:buffered:odirect:app:pread4k,user:pread,syscall:pread64 sleep:none:sleep:app:step
partial:warm:partial:app:pread4k,user:pread,syscall:pread64 rare:none:rare:app:step"
labels=$OUT/labels
{
	echo "# A B PROFILE LABEL (same|differs), set by construction; see scripts/capture-corpus.sh"
	echo "# captured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -r), $(nproc) CPUs"
} >"$labels"
for s in $SCENARIOS; do
	IFS=: read -r sc base changed ops <<<"$s"
	ops=${ops//,/ }
	[ "$LAYERS" = user ] && ops=$(tr ' ' '\n' <<<"$ops" | grep -v '^syscall:' | tr '\n' ' ')
	# Interleave the variants so slow drifts of the machine hit both alike.
	for i in $(seq 1 "$REPEATS"); do
		for v in "$base" "$changed"; do
			"$OSPROF" run -l "$LAYERS" -o "$TMPD/u.osp" -- "$PROG" "$sc" "$v" "$TMPD/a.osp" "$SCRATCH" \
				2>"$TMPD/err" || { cat "$TMPD/err" >&2; exit 1; }
			"$OSPROF" merge --combine-hosts -o "$OUT/$sc-$v-$i.osp" "$TMPD/a.osp" "$TMPD/u.osp"
		done
	done
	for i in $(seq 1 "$REPEATS"); do
		for j in $(seq 1 "$REPEATS"); do
			for v in "$base" "$changed"; do
				if [ "$i" -lt "$j" ]; then
					for op in $ops $SAME; do
						echo "$sc-$v-$i.osp $sc-$v-$j.osp $op same"
					done
				fi
			done
			for op in $ops; do
				echo "$sc-$base-$i.osp $sc-$changed-$j.osp $op differs"
			done
			for op in $SAME; do
				echo "$sc-$base-$i.osp $sc-$changed-$j.osp $op same"
			done
		done
	done >>"$labels"
done
echo "capture-corpus: $(ls "$OUT"/*.osp | wc -l) profile sets, $(grep -vc '^#' "$labels") labelled pairs in $OUT"
# The real-workload part (postmark, tar, find, grep, dd, the demo, and
# controlled changes on loop-device ext4/xfs): root and BTF only.
if [ "$LAYERS" = user,syscall ]; then
	"$ROOT/scripts/capture-real-corpus.sh" "$OUT/real"
else
	echo "capture-corpus: real-workload part skipped (needs root and BTF)"
fi
