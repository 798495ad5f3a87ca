#!/usr/bin/env bash
# Postmark (seed 001 §5.2: default parameters with more files and
# transactions: 20,000 files and 200,000 transactions, which runs in about
# 10 s here on a RAM-backed ext4) with the default kernel
# layers (osprof run, no -l: syscall,fs,block,lock as root) against no
# profiling, in one run with interleaved rounds. Postmark runs on a fresh
# ext4 file system on a loop device backed by a file in /dev/shm: the ext4,
# jbd2 and block paths are all exercised, but the shared disk of the machine
# (and other users' I/O on it) does not add noise to the comparison.
# Prints median elapsed and system time of each and the overhead ratios
# (target: <= 2% elapsed). Needs root, mkfs.ext4, losetup.
# Usage: bench/postmark_overhead.sh [FILES] [TRANSACTIONS] [ROUNDS]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
FILES=${1:-20000}
TRANS=${2:-200000}
ROUNDS=${3:-3}
OSPROF=$BUILD/osprof
[ "$(id -u)" -eq 0 ] || { echo "postmark_overhead: needs root" >&2; exit 1; }
command -v postmark >/dev/null || { echo "postmark_overhead: postmark not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "postmark_overhead: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/osprof-postmark.XXXXXX)
IMG=$(mktemp /dev/shm/osprof-kern-pm.XXXXXX)
LOOP=""
cleanup() {
	mountpoint -q "$TMP/pm" && umount "$TMP/pm"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$TMP" "$IMG"
}
trap cleanup EXIT
mkdir -p "$TMP/pm"
truncate -s 1G "$IMG"
mkfs.ext4 -q -F "$IMG" || exit 1
LOOP=$(losetup -f --show "$IMG") || exit 1
mount -t ext4 "$LOOP" "$TMP/pm" || exit 1
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
	echo "$1 $(tail -1 "$TMP/t")" >&2
	tail -1 "$TMP/t"
}
: >"$TMP/none"
: >"$TMP/osprof"
for r in $(seq "$ROUNDS"); do
	one none >>"$TMP/none"
	one osprof >>"$TMP/osprof"
done
mean() { sort -n -k"$2","$2" "$TMP/$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
echo "postmark $FILES files, $TRANS transactions, median of $ROUNDS rounds on ext4 ($LOOP)"
printf "%-8s %10s %10s\n" config "elapsed s" "system s"
for c in none osprof; do printf "%-8s %10s %10s\n" "$c" "$(mean $c 1)" "$(mean $c 2)"; done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
echo
echo "layers: $(awk '$1 == "meta" && $2 == "layers" { print $3 }' "$TMP/pm.osp")"
echo "elapsed overhead: $(ratio "$(mean osprof 1)" "$(mean none 1)")  (target <= +2%)"
echo "system time overhead: $(ratio "$(mean osprof 2)" "$(mean none 2)")  (OSprof reported 4% of system time)"
