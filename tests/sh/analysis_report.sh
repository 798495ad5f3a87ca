#!/usr/bin/env bash
# osprof report shows the analysis: ranking with cumulative share, "likely
# nested" hints (seed 001 §6.2's readdir/readpage, seed 000's lookup and
# read_inode) and peaks annotated with the calibration's characteristic times.
. "$(dirname "$0")/../lib.sh"
cat >"$TMP/s.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile fs readdir
stats 600 300000000 400 6000000
buckets 9:400 18:130 23:70
profile fs readpage
stats 200 600000 2000 4000
buckets 12:200
profile fs lookup
stats 1364 12276000 8000 10000
buckets 14:1364
profile fs read_inode
stats 1365 10920000 7000 9000
buckets 13:1365
end 4
OSP
cat >"$TMP/cal.osp" <<'OSP'
osprof-profile-set 1
r 1
slice_ns 0
profile calib odirect_read_4k
stats 10 1500000 140000 160000
buckets 18:10
end 1
OSP
OSPROF_CALIBRATION=$TMP/cal.osp "$OSPROF" report "$TMP/s.osp" >"$TMP/r.txt" || fail "report"
cat "$TMP/r.txt"
grep -Eq '^fs:readdir +600 +300.00 ms +92.7% +92.7%' "$TMP/r.txt" || fail "ranking row 1"
grep -Eq '^fs:readpage +200 .* 100.0%' "$TMP/r.txt" || fail "cumulative share reaches 100 %"
grep -q '^  fs:readdir peaks 2-3 (200 ops) ~ fs:readpage (200 ops): guess: fs:readdir may call fs:readpage$' "$TMP/r.txt" ||
	fail "readdir/readpage hint"
grep -q '^  fs:lookup (all 1364 ops) ~ fs:read_inode (1365 ops)' "$TMP/r.txt" || fail "lookup/read_inode hint"
! grep -q 'fs:read_inode (all 1365 ops) ~ fs:lookup' "$TMP/r.txt" || fail "the faster op offered as caller"
grep -Eq '^ +2 17 +131.07 us - 262.14 us +130 .*consistent with O_DIRECT 4 KiB random read( \(fs unknown\))?$' "$TMP/r.txt" ||
	fail "peak 2 of readdir not annotated"
[ "$(grep -c 'PEAK BUCKETS' "$TMP/r.txt")" -eq 4 ] || fail "one peak table per profile"
# Without a calibration the peaks are still listed, without matches.
OSPROF_CALIBRATION=$TMP/none.osp "$OSPROF" report "$TMP/s.osp" >"$TMP/r2.txt" || fail "report without calibration"
grep -q 'PEAK BUCKETS' "$TMP/r2.txt" && ! grep -q "consistent with O_DIRECT" "$TMP/r2.txt" || fail "report without calibration"
exit 0
