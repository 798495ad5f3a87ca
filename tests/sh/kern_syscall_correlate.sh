#!/usr/bin/env bash
# --correlate OP:VALUE --peaks RANGES: value histograms of one system call per
# latency peak. All preads of 4096 bytes fall in one range covering every
# bucket: one req_bytes profile with exactly N samples in the bucket of 4096;
# two disjoint ranges split the calls between peak=1 and peak=2 without loss;
# errno of reads on a closed fd is EBADF (9).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
N=300
head -c 8192 /dev/zero >"$TMP/f"
"$OSPROF" run -l syscall -r 1 --correlate pread64:req_bytes --peaks zero-ovf -o "$TMP/c.osp" -- \
	"$PROGS/kern_sys" read "$TMP/f" $N || fail "run --correlate"
P="syscall pread64 corr=req_bytes peak=1"
grep -A1 "^profile $P\$" "$TMP/c.osp" | grep -q '^unit bytes$' || fail "req_bytes profile lacks unit bytes"
read -r count total _ <<<"$(prof_stats "$TMP/c.osp" "$P")"
# The loader's own pread64 calls add a few samples of other sizes.
n4096=$(sum_buckets "$TMP/c.osp" "$P" 13 13) # 4096 = 2^12: bucket 1 + 12
expect_eq "4096-byte requests" "$n4096" $N
expect_eq "correlated samples = pread64 calls" "$count" "$(prof_count "$TMP/c.osp" "syscall pread64")"

# Two ranges split at the latency of 2 us: every call in exactly one peak.
"$OSPROF" run -l syscall --correlate pread64:ret_bytes --peaks zero-2us,2us-ovf -o "$TMP/d.osp" -- \
	"$PROGS/kern_sys" read "$TMP/f" $N || fail "run two peaks"
a=$(prof_count "$TMP/d.osp" "syscall pread64 corr=ret_bytes peak=1")
b=$(prof_count "$TMP/d.osp" "syscall pread64 corr=ret_bytes peak=2")
total=$(prof_count "$TMP/d.osp" "syscall pread64")
[ "$a" -gt 0 ] || [ "$b" -gt 0 ] || fail "no correlated sample"
# The ranges share the bucket of 2 us; a call there counts once, in peak 1.
expect_eq "peak1 + peak2" $((a + b)) "$total"

# pread64 at offset 1 MiB of an 8 KiB file: offset 2^20 (bucket 21), past EOF (1: bucket 1).
for v in offset past_eof; do
	"$OSPROF" run -l syscall --correlate pread64:$v --peaks zero-ovf -o "$TMP/$v.osp" -- \
		"$PROGS/kern_sys" read "$TMP/f" $N 1048576 || fail "run $v"
done
expect_eq "offset 1 MiB" "$(sum_buckets "$TMP/offset.osp" "syscall pread64 corr=offset peak=1" 21 21)" $N
expect_eq "past EOF" "$(sum_buckets "$TMP/past_eof.osp" "syscall pread64 corr=past_eof peak=1" 1 1)" $N

# errno: read(-1) fails with EBADF = 9, which lands in bucket 1 + 3 = 4.
"$OSPROF" run -l syscall --correlate read:errno --peaks zero-ovf -o "$TMP/e.osp" -- \
	"$PROGS/kern_sys" badread 50 || fail "run errno"
grep -A1 '^profile syscall read corr=errno peak=1$' "$TMP/e.osp" | grep -q '^unit count$' || fail "errno unit"
expect_eq "EBADF samples" "$(sum_buckets "$TMP/e.osp" "syscall read corr=errno peak=1" 4 4)" 50

# Bad values are usage errors naming the flag.
"$OSPROF" run -l syscall --correlate nosuchcall:errno --peaks 1-2 -o "$TMP/x.osp" -- true 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--correlate' "$TMP/err" || fail "bad --correlate: not a usage error (exit 2)"
"$OSPROF" run -l syscall --correlate read:errno --peaks 9-3 -o "$TMP/x.osp" -- true 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--peaks' "$TMP/err" || fail "bad --peaks: not a usage error (exit 2)"
echo ok
