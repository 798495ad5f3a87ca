#!/usr/bin/env bash
# record --comm NAME and record -c CGROUP select exactly the processes meant:
# two busy processes differ only by command name / by cgroup.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
cp "$PROGS/kern_sys" "$TMP/kern_other"
"$PROGS/kern_sys" loop >"$TMP/a" &
a=$!
"$TMP/kern_other" loop >"$TMP/b" &
b=$!
CG=""
cleanup() {
	kill $a $b 2>/dev/null
	wait 2>/dev/null
	[ -n "$CG" ] && rmdir "$CG"
	rm -rf "$TMP"
}
trap cleanup EXIT
wait_ready "$TMP/a"
wait_ready "$TMP/b"

"$OSPROF" record -l syscall --comm kern_sys --by pid -d 300ms -o "$TMP/c.osp" 2>"$TMP/err" ||
	fail "record --comm: $(cat "$TMP/err")"
[ "$(prof_count "$TMP/c.osp" "syscall getppid pid=$a")" -gt 0 ] || fail "--comm missed pid $a"
expect_eq "other processes under --comm" "$(grep '^profile ' "$TMP/c.osp" | grep -vc "pid=$a\$")" 0

root=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$root" ] || skip "no cgroup v2 hierarchy mounted"
CG=$root/osprof-kern-test-$$
mkdir "$CG" || fail "mkdir $CG"
echo $b >"$CG/cgroup.procs" || fail "cannot move $b into $CG"
"$OSPROF" record -l syscall -c "$CG" --by pid -d 300ms -o "$TMP/g.osp" 2>"$TMP/err" ||
	fail "record -c: $(cat "$TMP/err")"
[ "$(prof_count "$TMP/g.osp" "syscall getppid pid=$b")" -gt 0 ] || fail "-c missed pid $b"
expect_eq "other processes under -c" "$(grep '^profile ' "$TMP/g.osp" | grep -vc "pid=$b\$")" 0
kill $b
wait $b 2>/dev/null
"$OSPROF" record -l syscall -c "$TMP/nonexistent" -d 100ms -o "$TMP/x.osp" 2>"$TMP/err"
[ $? -ne 0 ] && grep -q -- "-c $TMP/nonexistent" "$TMP/err" || fail "bad -c accepted: $(cat "$TMP/err")"
echo ok
