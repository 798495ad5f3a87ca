# Outputs a root user can trust (lib/output.c): a bad -o/-w fails with exit 2
# before the command runs (its side-effect file never appears); -o onto a
# character device or a FIFO keeps the node and delivers the data; a symlink
# planted at the old temporary name OUT.tmp is not followed.
. "$(dirname "$0")/../lib.sh"
need_root
side=$TMP/side
check_refused() { # WHAT: the command must have exited 2 and not run
	[ "$rc" -eq 2 ] || fail "$1: exit $rc, want 2"
	[ ! -e "$side" ] || fail "$1: the command ran before the output was checked"
}
"$OSPROF" run -l user -o "$TMP/nodir/x.osp" -- touch "$side" 2>"$TMP/err"
rc=$?
check_refused "run -o into a missing directory"
grep -q "nodir" "$TMP/err" || fail "the error does not name the path: $(cat "$TMP/err")"
"$OSPROF" run -l user -o "$TMP" -- touch "$side" 2>/dev/null
rc=$?
check_refused "run -o onto a directory"
"$OSPROF" trace record -w /etc/passwd -- touch "$side" 2>/dev/null
rc=$?
check_refused "trace record -w onto a regular file"
"$OSPROF" rootcause --syscall fsync -o "$TMP/nodir/r.osp" -- touch "$side" 2>/dev/null
rc=$?
check_refused "rootcause -o into a missing directory"
"$OSPROF" record -a -o "$TMP/nodir/r.osp" 1 1 2>/dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "record -o into a missing directory: exit $rc, want 2"

# A character device (made here, never /dev) stays one and gets the data.
mknod "$TMP/null" c 1 3 || fail "mknod failed"
"$OSPROF" run -l user -o "$TMP/null" -- true || fail "run -o onto a device failed"
[ -c "$TMP/null" ] || fail "the device node was replaced"
# A FIFO stays one and its reader gets the whole profile set.
mkfifo "$TMP/fifo" || fail "mkfifo failed"
cat "$TMP/fifo" >"$TMP/from-fifo" &
reader=$!
"$OSPROF" run -l user -o "$TMP/fifo" -- true || fail "run -o onto a FIFO failed"
wait $reader
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
head -n 1 "$TMP/from-fifo" | grep -q '^osprof-profile-set ' ||
	fail "the FIFO's reader got no profile set: $(head -c 200 "$TMP/from-fifo")"
"$OSPROF" report "$TMP/from-fifo" >/dev/null || fail "the set read from the FIFO does not parse"

# The temporary of a regular output is a fresh mkstemp name: a symlink at
# the old fixed name OUT.tmp is left alone, and so is its target.
echo precious >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/r.osp.tmp"
"$OSPROF" run -l user -o "$TMP/r.osp" -- true || fail "run -o beside a planted symlink failed"
expect_eq "the symlink's target" "$(cat "$TMP/victim")" precious
[ -L "$TMP/r.osp.tmp" ] || fail "the planted symlink was replaced"
# A symlink planted at the output name itself is replaced, never followed.
ln -s "$TMP/victim" "$TMP/s.osp"
"$OSPROF" run -l user -o "$TMP/s.osp" -- true || fail "run -o onto a symlink failed"
expect_eq "the symlink's target (output name)" "$(cat "$TMP/victim")" precious
[ -f "$TMP/s.osp" ] && [ ! -L "$TMP/s.osp" ] || fail "the output is not a regular file"
ls "$TMP" | grep -v -E '^(null|fifo|from-fifo|victim|r\.osp|r\.osp\.tmp|s\.osp|err)$' |
	grep -q . && fail "temporaries left behind: $(ls "$TMP")"
exit 0
