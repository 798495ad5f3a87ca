#!/usr/bin/env bash
# Latencies land where they belong: 700 us nanosleeps peak in the bucket that
# holds 524-1048 us (none below 700 us: the kernel never wakes early; the
# 348 us of headroom absorbs wake-up delay on a loaded CI machine), and a bimodal
# workload gives two groups apart from each other with the right counts.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
N=20
# SCHED_FIFO: the wake-up is not delayed by other load on the machine.
RT=""
command -v chrt >/dev/null && RT="chrt -f 10"
"$OSPROF" run -l syscall -r 1 -o "$TMP/s.osp" -- $RT "$PROGS/kern_sys" sleep $N 700 || fail "run sleep"
P="syscall clock_nanosleep"
read -r count total min max <<<"$(prof_stats "$TMP/s.osp" "$P")"
expect_eq "nanosleep count" "$count" $N
[ "$min" -ge 700000 ] || fail "a 700 us sleep measured $min ns"
# Bucket of 700,000 ns at r=1: 1 + floor(log2(7e5)) = 20.
peak=$(prof_buckets "$TMP/s.osp" "$P" | sort -k2,2n -k1,1n | tail -1 | cut -d' ' -f1)
expect_eq "peak bucket of 700 us sleeps" "$peak" 20
"$OSPROF" report "$TMP/s.osp" | grep -Eq '^ +524 -> 1048 +: +[0-9]+' ||
	fail "report does not show the 1 ms bucket in bcc style"

# Bimodal: N readv of /dev/null (return at once: about a microsecond), then N
# readv of a pipe that a child writes every 5 ms (>= 5 ms each: bucket 23
# starts at 4,194,304 ns).
"$OSPROF" run -l syscall -r 1 -o "$TMP/b.osp" -- $RT "$PROGS/kern_sys" bimodal $N || fail "run bimodal"
P="syscall readv"
expect_eq "bimodal total" "$(prof_count "$TMP/b.osp" "$P")" $((2 * N))
expect_eq "slow group (>= 4.2 ms)" "$(sum_buckets "$TMP/b.osp" "$P" 23 99)" $N
expect_eq "fast group (< 1 ms)" "$(sum_buckets "$TMP/b.osp" "$P" 0 20)" $N
# The fast group peaks below 16 us and empty buckets separate the two peaks.
fpeak=$(prof_buckets "$TMP/b.osp" "$P" | awk '$1 <= 20' | sort -k2,2n | tail -1 | cut -d' ' -f1)
[ "$fpeak" -le 15 ] || fail "fast peak in bucket $fpeak"
gap=$(for b in $(seq $((fpeak + 1)) 22); do echo "$b $(sum_buckets "$TMP/b.osp" "$P" "$b" "$b")"; done | awk '$2 == 0' | wc -l)
[ "$gap" -ge 1 ] || fail "no empty bucket between the two groups"
echo ok
