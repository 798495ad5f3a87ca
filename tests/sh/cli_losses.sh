#!/usr/bin/env bash
# Losses are loud (issue 10): a run that lost anything ends with one line
# naming each count and exit status 3 (0 with --allow-loss, or within
# --max-loss PCT of the calls recorded; the line still printed), and the
# counts are in the file and in `osprof report`:
#  - a static program exec'd by a child of CMD (sh -c) is detected by the
#    preload before the exec, named in the metadata and counted;
#  - a full BPF histogram map (run -l syscall --by pid, map made small with
#    OSPROF_HIST_ENTRIES) stores lost_events and lost_events.syscall, and the line names the layer;
#  - a trace recorded onto a nearly full 2 MiB tmpfs drops events, exits 3,
#    and its segments read back with the dropped count.
. "$(dirname "$0")/../lib.sh"
printf 'int main(void) { return 0; }\n' >"$TMP/tiny.c"
cc -static -o "$TMP/tiny" "$TMP/tiny.c" 2>"$TMP/cc.err" ||
	skip "cannot link statically (libc.a missing?): $(head -n 1 "$TMP/cc.err")"

# static program in the process tree (no root needed)
rc=0
"$OSPROF" run -l user -o "$TMP/u.osp" -- sh -c "'$TMP/tiny'; true" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "static child: exit $rc, want 3: $(cat "$TMP/err")"
grep -q "a process of the tree ran $TMP/tiny, which is statically linked" "$TMP/err" ||
	fail "no warning naming the static child: $(cat "$TMP/err")"
[ "$(grep -c "finished with losses" "$TMP/err")" = 1 ] || fail "want one loss line: $(cat "$TMP/err")"
grep -q "finished with losses: 1 static program" "$TMP/err" || fail "loss line: $(cat "$TMP/err")"
grep -q "^meta user_static 1$" "$TMP/u.osp" || fail "user_static count not in the metadata"
grep -q "^meta user_static_paths $TMP/tiny$" "$TMP/u.osp" || fail "static path not in the metadata"
"$OSPROF" report "$TMP/u.osp" >"$TMP/rep" || fail "report"
grep -q "WARNING: lost while collecting: 1 static program" "$TMP/rep" || fail "report: $(head "$TMP/rep")"
"$OSPROF" report --json "$TMP/u.osp" | head -n 1 | grep -q '"user_static":"1"' ||
	fail "JSON meta record lacks user_static"
rc=0
"$OSPROF" run -l user --allow-loss -o "$TMP/u2.osp" -- sh -c "'$TMP/tiny'; true" 2>"$TMP/err" || rc=$?
[ "$rc" = 0 ] || fail "--allow-loss: exit $rc"
grep -q "finished with losses: .*exit status 0 (--allow-loss)" "$TMP/err" ||
	fail "--allow-loss hides the line: $(cat "$TMP/err")"
# --max-loss bounds single events, never a whole program left unprofiled
rc=0
"$OSPROF" run -l user --max-loss 100 -o "$TMP/u3.osp" -- sh -c "'$TMP/tiny'; true" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "--max-loss 100 with a static program: exit $rc, want 3"
grep -q "finished with losses: 1 static program.*exit status 3 (beyond --max-loss 100 %" "$TMP/err" ||
	fail "--max-loss line: $(cat "$TMP/err")"
# nothing lost: exit 0 and no line; CMD's own status is kept
"$OSPROF" run -l user -o "$TMP/d.osp" -- sh -c true 2>"$TMP/err" || fail "dynamic tree: exit $?"
! grep -q "losses" "$TMP/err" || fail "loss line without a loss: $(cat "$TMP/err")"
rc=0
"$OSPROF" run -l user -o "$TMP/f.osp" -- sh -c "'$TMP/tiny'; exit 7" 2>"$TMP/err" || rc=$?
[ "$rc" = 7 ] || fail "CMD failed with 7 and lost: exit $rc, want CMD's 7"

need_root
need_btf
# a full histogram map
rc=0
OSPROF_HIST_ENTRIES=4 "$OSPROF" run -l syscall --by pid -o "$TMP/m.osp" -- \
	sh -c 'for i in 1 2 3 4 5 6; do /bin/true; done' 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "map full: exit $rc, want 3: $(cat "$TMP/err")"
lost=$(sed -n 's/^meta lost_events //p' "$TMP/m.osp")
[ "${lost:-0}" -gt 0 ] || fail "no lost_events in the file"
grep -q "finished with losses: $lost lost events" "$TMP/err" || fail "loss line: $(cat "$TMP/err")"
# ... and says which layer lost them, in the file and in the line
grep -q "^meta lost_events.syscall $lost$" "$TMP/m.osp" || fail "no lost_events.syscall $lost in the file"
grep -q "lost events ([^)]*; by layer: syscall $lost)" "$TMP/err" || fail "loss line names no layer: $(cat "$TMP/err")"
"$OSPROF" report "$TMP/m.osp" | grep -q "lost while collecting: $lost lost events" ||
	fail "report does not show the loss"
# --max-loss: the losses against the calls recorded (the sum of the timed
# profiles' counts; the bound itself is unit-tested in test_losses)
rc=0
OSPROF_HIST_ENTRIES=4 "$OSPROF" run -l syscall --by pid --max-loss 1% -o "$TMP/m2.osp" -- \
	sh -c 'for i in 1 2 3 4 5 6; do /bin/true; done' 2>"$TMP/err" || rc=$?
lost=$(sed -n 's/^meta lost_events //p' "$TMP/m2.osp")
calls=$("$OSPROF" report --csv "$TMP/m2.osp" | awk -F, 'NR > 1 && $4 == "ns" { n += $5 } END { print n + 0 }')
[ $((lost * 100)) -gt "$calls" ] || fail "want more than 1 % lost: $lost of $calls"
[ "$rc" = 3 ] || fail "--max-loss 1%, $lost lost of $calls calls: exit $rc, want 3: $(cat "$TMP/err")"
grep -q "exit status 3 (beyond --max-loss 1 % of $calls calls recorded)" "$TMP/err" ||
	fail "--max-loss line: $(cat "$TMP/err")"

# a trace onto a nearly full 2 MiB tmpfs
mkdir "$TMP/small"
mount -t tmpfs -o size=2m tmpfs "$TMP/small" || fail "cannot mount tmpfs"
trap 'umount "$TMP/small" 2>/dev/null' EXIT
head -c $((1900 * 1024)) /dev/zero >"$TMP/small/filler" 2>/dev/null
rec() { # EXTRA-FLAGS...: records dd's 400,000 syscalls into $TMP/small/t
	rm -rf "$TMP/small/t"
	"$OSPROF" trace record -q "$@" -w "$TMP/small/t" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=200000 2>"$TMP/rec.err"
}
rc=0
rec || rc=$?
[ "$rc" = 3 ] || fail "full disk: trace record exit $rc, want 3: $(cat "$TMP/rec.err")"
grep -q "finished with losses: [0-9]* dropped trace events" "$TMP/rec.err" ||
	fail "no loss line: $(cat "$TMP/rec.err")"
said=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/rec.err")
"$OSPROF" trace stats "$TMP/small/t" >"$TMP/st" 2>&1 || fail "trace stats: $(cat "$TMP/st")"
stored=$(awk '$1 == "dropped" {print $2}' "$TMP/st")
[ "${stored:-0}" -gt 0 ] || fail "segments do not record the drops: $(cat "$TMP/st")"
[ "$stored" = "$said" ] || fail "stored drops $stored != reported $said"
rc=0
rec --allow-loss || rc=$?
[ "$rc" = 0 ] || fail "trace record --allow-loss: exit $rc"
grep -q "finished with losses" "$TMP/rec.err" || fail "--allow-loss hid the loss line"
exit 0
