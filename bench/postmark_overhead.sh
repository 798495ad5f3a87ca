#!/usr/bin/env bash
# Postmark (seed 001 §5.2: default parameters with more files and
# transactions, here scaled to ~10 s per run on this machine) with the default
# kernel layers (osprof run, no -l: syscall,fs,block,lock as root) against no
# profiling, in one run with interleaved rounds. Prints mean elapsed and
# system time of each and the overhead ratios (target: <= 2% elapsed).
# Usage: bench/postmark_overhead.sh [FILES] [TRANSACTIONS] [ROUNDS]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
FILES=${1:-4000}
TRANS=${2:-40000}
ROUNDS=${3:-3}
OSPROF=$BUILD/osprof
[ "$(id -u)" -eq 0 ] || { echo "postmark_overhead: needs root" >&2; exit 1; }
command -v postmark >/dev/null || { echo "postmark_overhead: postmark not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "postmark_overhead: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
TMP=$(mktemp -d /var/tmp/osprof-postmark.XXXXXX) # on the disk, not tmpfs
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/pm"
printf 'set location %s\nset number %s\nset transactions %s\nrun\nquit\n' "$TMP/pm" "$FILES" "$TRANS" >"$TMP/cfg"

# Prints "ELAPSED SYSTEM" seconds of one postmark run.
one() {
	if [ "$1" = osprof ]; then
		"$OSPROF" run -o "$TMP/pm.osp" -- /usr/bin/time -f "%e %S" -o "$TMP/t" postmark "$TMP/cfg" >/dev/null 2>"$TMP/err" ||
			{ echo "postmark_overhead: osprof run failed: $(tail -1 "$TMP/err")" >&2; exit 1; }
	else
		/usr/bin/time -f "%e %S" -o "$TMP/t" postmark "$TMP/cfg" >/dev/null
	fi
	sync
	tail -1 "$TMP/t"
}
: >"$TMP/none"
: >"$TMP/osprof"
for r in $(seq "$ROUNDS"); do
	one none >>"$TMP/none"
	one osprof >>"$TMP/osprof"
done
mean() { awk -v c="$2" '{ s += $c; n++ } END { printf "%.3f", s / n }' "$TMP/$1"; }
printf "%-8s %10s %10s\n" config "elapsed s" "system s"
for c in none osprof; do printf "%-8s %10s %10s\n" "$c" "$(mean $c 1)" "$(mean $c 2)"; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
echo
echo "layers: $(awk '$1 == "meta" && $2 == "layers" { print $3 }' "$TMP/pm.osp")"
echo "elapsed overhead: $(ratio "$(mean osprof 1)" "$(mean none 1)")  (target <= +2%)"
echo "system time overhead: $(ratio "$(mean osprof 2)" "$(mean none 2)")  (OSprof reported 4% of system time)"
