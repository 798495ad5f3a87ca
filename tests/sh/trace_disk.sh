# Disk full and disk budget, on a small tmpfs mounted for this test: the
# writer keeps going by dropping events (counted and stored), never corrupts
# what it wrote, resumes when space comes back; --max-disk deletes or
# archives the oldest closed segments and keeps the directory within budget.
. "$(dirname "$0")/../lib.sh"
need_root
MNT=$(mktemp -d /tmp/osprof-trace-tmpfs.XXXXXX)
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	rmdir "$MNT" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mount -t tmpfs -o size=2m osprof-trace-test "$MNT" || skip "cannot mount tmpfs"
FILL=$PROGS/trace_fill
field() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" "$2"; }

# 1. The disk fills up: events are dropped and counted, the segment stays
#    readable, and writing resumes once space is freed.
dd if=/dev/zero of="$MNT/filler" bs=64k count=28 2>/dev/null # leaves ~256 KiB
"$FILL" "$MNT/full" 200000 --free-at 150000 "$MNT/filler" >"$TMP/out" 2>"$TMP/err" ||
	fail "read-back after disk full failed: $(cat "$TMP/out" "$TMP/err")"
cat "$TMP/out"
w=$(field written "$TMP/out") d=$(field dropped "$TMP/out") r=$(field read "$TMP/out")
expect_eq "written + dropped" $((w + d)) 200000
expect_eq "events read back" "$r" "$w"
[ "$d" -gt 0 ] || fail "the disk never filled"
expect_eq "drops stored in the segments" "$(field stored_drops "$TMP/out")" "$d"
grep -q "No space left on device; dropping events" "$TMP/err" || fail "no disk-full message"
grep -q "writing again" "$TMP/err" || fail "did not resume after space was freed"
# events after the space came back are there: more than fit before it
[ "$w" -gt 20000 ] || fail "writing did not resume (only $w events written)"
rm -rf "$MNT/full"

# 1b. Disk full with --archive (and a budget larger than the disk): the
#     oldest closed segment moves to the archive and nothing is dropped.
dd if=/dev/zero of="$MNT/filler" bs=64k count=26 2>/dev/null # leaves ~384 KiB
"$FILL" "$MNT/arch" 100000 -C 65536 --max-disk 1048576 --archive "$TMP/archive-fill" \
	>"$TMP/out" 2>"$TMP/err" || fail "archive read-back failed: $(cat "$TMP/out" "$TMP/err")"
cat "$TMP/out"
expect_eq "full disk with --archive: dropped" "$(field dropped "$TMP/out")" 0
expect_eq "full disk with --archive: read back" "$(field read "$TMP/out")" 100000
[ "$(field archived "$TMP/out")" -gt 0 ] || fail "nothing archived on a full disk"
grep -q "(disk full)" "$TMP/err" || fail "no disk-full archiving message: $(cat "$TMP/err")"
rm -rf "$MNT/arch"

# 2. The real recorder on a full disk: exit 3 (finished with losses), drops
#    reported, nothing corrupt.
dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null # fills it completely
if [ -r /sys/kernel/btf/vmlinux ]; then
	mkdir -p "$TMP/work"
	rc=0
	"$OSPROF" trace record -w "$MNT/rec" -- "$PROGS/trace_workload" "$TMP/work" 2>"$TMP/rec.err" || rc=$?
	[ "$rc" = 3 ] || fail "record on a full disk: exit $rc, want 3: $(cat "$TMP/rec.err")"
	grep -Eq "; [1-9][0-9]* dropped" "$TMP/rec.err" || fail "drops not reported: $(cat "$TMP/rec.err")"
	grep -q "dropping events" "$TMP/rec.err" || fail "no disk-full message: $(cat "$TMP/rec.err")"
fi
rm -f "$MNT/filler"
rm -rf "$MNT/rec"

# 3. --max-disk: the directory stays within budget, the oldest closed
#    segments go, the newest events stay, nothing is dropped.
"$FILL" "$MNT/budget" 300000 -C 65536 --max-disk 262144 >"$TMP/out" 2>"$TMP/err" ||
	fail "budget read-back failed: $(cat "$TMP/out" "$TMP/err")"
cat "$TMP/out"
expect_eq "budget: dropped" "$(field dropped "$TMP/out")" 0
[ "$(field deleted "$TMP/out")" -gt 0 ] || fail "no segment was deleted"
used=$(du -sb "$MNT/budget" | cut -f1)
[ "$used" -le 262144 ] || fail "directory holds $used bytes > --max-disk 262144"
rm -rf "$MNT/budget"

# 4. The recorder with --max-disk and --archive: closed segments are moved.
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$OSPROF" trace record -w "$MNT/rec" --max-disk 0.25 -C 0.0625 --archive "$TMP/archive" \
		-- dd if=/dev/zero of=/dev/null bs=1 count=200000 2>"$TMP/rec.err" ||
		fail "record with --max-disk failed: $(cat "$TMP/rec.err")"
	grep -q "moved to the archive" "$TMP/rec.err" || fail "nothing archived: $(cat "$TMP/rec.err")"
	used=$(du -sb "$MNT/rec" | cut -f1)
	[ "$used" -le 262144 ] || fail "recorder directory holds $used bytes > --max-disk"
	# working dir + archive = every event, readable without a warning
	n1=$("$OSPROF" trace dump --no-header --op read "$MNT/rec" 2>"$TMP/d1" | wc -l)
	n2=$("$OSPROF" trace dump --no-header --op read "$TMP/archive" 2>"$TMP/d2" | wc -l)
	[ -s "$TMP/d1" ] || [ -s "$TMP/d2" ] && fail "warnings: $(cat "$TMP/d1" "$TMP/d2")"
	[ $((n1 + n2)) -ge 200000 ] || fail "reads in the trace: $((n1 + n2)) < 200000"
fi
echo "ok: disk full, resume, --max-disk, --archive"
