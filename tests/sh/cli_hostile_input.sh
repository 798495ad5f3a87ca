#!/usr/bin/env bash
# Hostile and odd input files (issue 10): every hand-made malformed .osp file
# gets exactly one "FILE:LINE: ..." line on stderr and exit 2, also when its
# bytes run through the ASan+UBSan reader (the fuzz target, which aborts on
# any sanitizer report); lines are bounded while reading (/dev/zero and a
# 3 MB line fail at once); data after `end` is an error; merge refuses
# counts that would pass 2^64-1 and writes nothing; terminal control
# characters from a file never reach the terminal raw; non-regular files in
# a trace directory are skipped with a warning instead of hanging the reader.
. "$(dirname "$0")/../lib.sh"
"$OSPROF" run -l user -o "$TMP/good.osp" -- true 2>/dev/null ||
	"$OSPROF" run -o "$TMP/good.osp" -- true >/dev/null 2>&1 ||
	fail "cannot make a profile set to start from"
"$OSPROF" report "$TMP/good.osp" >/dev/null || fail "the base file does not read"

# A minimal valid set with one profile, and malformed variants of it.
ok='osprof-profile-set 2
r 1
slice_ns 0
meta host h
profile syscall read
unit ns
stats 3 30 5 15
buckets 3:1 4:2
end 1'
M=$TMP/bad
mkdir "$M"
printf '%s\n' "$ok" >"$M/valid.osp"
"$OSPROF" report "$M/valid.osp" >/dev/null || fail "the hand-made valid file does not read"
mk() { printf '%s\n' "$2" >"$M/$1.osp"; }
mk truncated "$(printf '%s\n' "$ok" | head -n 6)"
mk sum_mismatch "${ok/buckets 3:1 4:2/buckets 3:1 4:3}"
mk huge_number "${ok/stats 3 30/stats 99999999999999999999999 30}"
mk negative "${ok/stats 3 30/stats -3 30}"
mk buckets_twice "${ok/end 1/buckets 3:1 4:2
end 1}"
mk wrapping_sum "${ok/buckets 3:1 4:2/buckets 3:18446744073709551615 4:4}"
mk bad_bucket "${ok/buckets 3:1 4:2/buckets 999:3}"
mk missing_end "$(printf '%s\n' "$ok" | sed '$d')"
mk end_count "${ok/end 1/end 7}"
mk control_chars "${ok/meta host h/$(printf 'meta host h\nbad\033[2Jrecord')}"
mk unknown_record "${ok/unit ns/unot ns}"
mk control_dim "${ok/profile syscall read/profile syscall read comm=a%1B[31mb}"
cat "$M/valid.osp" "$M/valid.osp" >"$M/concatenated.osp"
head -c 4096 /dev/urandom >"$M/binary.osp"
{
	printf 'osprof-profile-set 2\nmeta x '
	head -c 3000000 /dev/zero | tr '\0' a
	printf '\n'
} >"$M/long_line.osp"
for f in "$M"/*.osp; do
	case $f in */valid.osp) continue ;; esac
	rc=0
	"$OSPROF" report "$f" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$(basename "$f"): exit $rc, want 2: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$(basename "$f"): not one line: $(cat "$TMP/err")"
	grep -Eq "^$f:[0-9]+: " "$TMP/err" || fail "$(basename "$f"): no FILE:LINE: $(cat "$TMP/err")"
	! grep -q $'\033' "$TMP/err" || fail "$(basename "$f"): raw ESC in the message"
done
grep -q "data after 'end'" <("$OSPROF" report "$M/concatenated.osp" 2>&1) ||
	fail "concatenated sets read without error"
grep -q "longer than" <("$OSPROF" report "$M/long_line.osp" 2>&1) || fail "long line not refused"
rc=0
"$OSPROF" report /dev/zero >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q "^/dev/zero:1: " "$TMP/err" || fail "/dev/zero: exit $rc: $(cat "$TMP/err")"
# The same bytes through the sanitizer build of the reader: a UBSan or ASan
# report aborts it (-fno-sanitize-recover=all).
fz=$BUILD/fuzz/fuzz_osp_reader
if [ -x "$fz" ]; then
	"$fz" -rss_limit_mb=1024 "$M"/*.osp >"$TMP/fz" 2>&1 || fail "sanitizer report: $(tail -n 20 "$TMP/fz")"
elif [ "${CI:-}" = true ]; then
	fail "no fuzz build ($fz): make fuzz"
fi

# merge: counts that would pass 2^64-1 are refused, nothing is written (one
# host, so merge adds the two profiles rather than keeping one per host)
near='osprof-profile-set 2
r 1
slice_ns 0
meta host h
profile syscall read
unit ns
stats 18446744073709551614 30 5 15
buckets 3:18446744073709551614
end 1'
printf '%s\n' "$near" >"$TMP/near.osp"
"$OSPROF" report "$TMP/near.osp" >/dev/null || fail "near-max file does not read"
rc=0
"$OSPROF" merge -o "$TMP/m.osp" "$TMP/near.osp" "$M/valid.osp" 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "merge past 2^64-1: exit $rc: $(cat "$TMP/err")"
grep -q "exceed 2^64-1" "$TMP/err" || fail "merge: no reason given: $(cat "$TMP/err")"
[ ! -e "$TMP/m.osp" ] || fail "merge wrote an output although it refused"
"$OSPROF" merge -o "$TMP/m2.osp" "$M/valid.osp" "$M/valid.osp" || fail "merge of small counts"
"$OSPROF" report "$TMP/m2.osp" >/dev/null || fail "merge output does not read back"

# terminal control characters in metadata are printed escaped (dimension
# values with control characters are refused by the reader: control_dim above)
esc="${ok/meta host h/meta host %1B]0;title%07%1B[2Jx%C2%9By}"
printf '%s\n' "$esc" >"$TMP/esc.osp"
"$OSPROF" report "$TMP/esc.osp" >"$TMP/out" 2>&1 || fail "report of a file with escapes"
! grep -q $'\033' "$TMP/out" || fail "raw ESC printed: $(od -c "$TMP/out" | head)"
! grep -q $'\302\233' "$TMP/out" || fail "raw C1 CSI printed"
grep -q 'x1b\]0;title' "$TMP/out" || fail "metadata not shown escaped: $(cat "$TMP/out")"

# a trace directory holding a FIFO and a directory named like segments
need_root
need_btf
"$OSPROF" trace record -w "$TMP/tr" -- cat /etc/hostname >/dev/null 2>"$TMP/rec.err" ||
	fail "trace record: $(cat "$TMP/rec.err")"
mkfifo "$TMP/tr/fifo.ospt"
mkdir "$TMP/tr/dir.ospt"
ln -s /etc/passwd "$TMP/tr/link.ospt"
rc=0
timeout 60 "$OSPROF" trace stats "$TMP/tr" >"$TMP/st" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || fail "trace stats with odd entries: exit $rc: $(cat "$TMP/err")"
[ "$(grep -c 'not a regular file; skipped' "$TMP/err")" = 3 ] ||
	fail "want three warnings: $(cat "$TMP/err")"
rc=0
timeout 60 "$OSPROF" trace stats "$TMP/tr/fifo.ospt" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "not a regular file" "$TMP/err" ||
	fail "a FIFO given as a segment: exit $rc: $(cat "$TMP/err")"
exit 0
