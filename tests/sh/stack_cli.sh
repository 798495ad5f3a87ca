# osprof mount: bad input is refused before anything is mounted; without a
# command it serves until SIGTERM, SIGINT or an unmount and writes then;
# every exit leaves nothing mounted; CMD's status is osprof's.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
echo data >"$LOWER/a"
not_mounted() { mountpoint -q "$MNT" && fail "$1: $MNT left mounted"; return 0; }
refused() { # WHAT ARGS...: exit 2, one line naming the problem, no mount
	local what=$1 rc=0
	shift
	"$OSPROF" mount "$@" 2>"$TMP/err" || rc=$?
	expect_eq "$what: exit status" $rc 2
	grep -q "osprof mount: " "$TMP/err" || fail "$what: no message"
	not_mounted "$what"
}
refused "-o in a missing directory" -o "$TMP/nodir/p.osp" "$LOWER" "$MNT" -- true
refused "-o a directory" -o "$TMP" "$LOWER" "$MNT" -- true
refused "missing LOWER" -o "$TMP/p.osp" "$TMP/none" "$MNT" -- true
refused "MOUNTPOINT inside LOWER" -o "$TMP/p.osp" "$TMP" "$MNT" -- true
refused "bad --by" --by tid "$LOWER" "$MNT" -- true
refused "bad --correlate" --correlate latency "$LOWER" "$MNT" -- true
refused "no MOUNTPOINT" "$LOWER"
refused "CMD without --" "$LOWER" "$MNT" true
[ -e "$TMP/p.osp" ] && fail "a refused run wrote a profile"
"$OSPROF" mount --help | grep -q "^Exit status: " || fail "--help has no exit status paragraph"

# CMD's exit status is passed on, the mount is gone afterwards.
rc=0
"$OSPROF" mount -r 4 -o "$TMP/c.osp" "$LOWER" "$MNT" -- sh -c 'cat a >/dev/null; exit 7' || rc=$?
expect_eq "CMD's status" $rc 7
"$OSPROF" report --json "$TMP/c.osp" | head -n 1 | grep -q '"r":4,' || fail "-r 4 not kept"
not_mounted "after CMD"
[ "$(stack_count "$TMP/c.osp" read)" -ge 1 ] || fail "CMD's read not profiled"
rc=0
"$OSPROF" mount -o "$TMP/c.osp" "$LOWER" "$MNT" -- no-such-command-xyz 2>/dev/null || rc=$?
expect_eq "missing CMD" $rc 127
not_mounted "missing CMD"

# Without CMD: serves until a signal or an unmount, then writes.
for how in TERM INT unmount; do
	rm -f "$TMP/s.osp"
	"$OSPROF" mount -o "$TMP/s.osp" "$LOWER" "$MNT" &
	pid=$!
	STACK_PIDS=("$pid")
	stack_wait_mounted "$MNT" $pid
	for _ in 1 2 3; do cat "$MNT/a" >/dev/null || fail "$how: read through the mount"; done
	if [ $how = unmount ]; then
		fusermount3 -u "$MNT" || fail "fusermount3 -u failed"
	else
		kill -$how $pid
	fi
	rc=0
	wait $pid || rc=$?
	STACK_PIDS=()
	expect_eq "$how: exit status" $rc 0
	not_mounted "$how"
	expect_eq "$how: opens written" "$(stack_count "$TMP/s.osp" open)" 3
done
exit 0
