# osprof mount without privileges: run as the user nobody, it mounts through
# fusermount3 (setuid root, as Debian ships it), profiles a workload with
# exact counts, unmounts and writes its file. The machine's own /dev/fuse is
# left as it is: the test runs in a private mount namespace where a /dev/fuse
# node of its own (mode 0666, Debian's udev default; some machines have 0600
# and libfuse then does not reach fusermount3) is bound over it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
need_root
for t in unshare setpriv mknod; do command -v $t >/dev/null || skip "no $t"; done
[ -u "$(command -v fusermount3)" ] || skip "fusermount3 is not setuid root"
N=7
fuse_before=$(stat -c %F:%a:%t:%T /dev/fuse)
# nobody may not traverse the build directory: run a copy of the binary
cp "$OSPROF" "$TMP/osprof"
mknod "$TMP/fuse" c 10 229
chmod 666 "$TMP/fuse"
chmod 755 "$TMP" "$TMP/osprof"
for i in $(seq $N); do echo "line $i" >"$LOWER/f$i"; done
chown -R nobody "$LOWER" "$MNT"
mkdir "$TMP/out" && chown nobody "$TMP/out"
unshare -m --propagation private sh -c '
	mount --bind "$1/fuse" /dev/fuse || exit 90
	exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$1/osprof" mount -o "$1/out/p.osp" "$2" "$3" -- sh -c "
			id -u >\"$1/out/uid\"
			grep \" $3 \" /proc/self/mounts >\"$1/out/mounts\"
			cat f* >/dev/null"
' sh "$TMP" "$LOWER" "$MNT" || fail "osprof mount as nobody exited $?"
expect_eq "the workload ran as nobody" "$(cat "$TMP/out/uid")" 65534
grep -q " fuse\.osprof .*user_id=65534" "$TMP/out/mounts" || fail "not mounted for nobody: $(cat "$TMP/out/mounts")"
[ "$(stat -c %U "$TMP/out/p.osp")" = nobody ] || fail "the profile is not nobody's"
expect_eq "opens" "$(stack_count "$TMP/out/p.osp" open)" $N
expect_eq "flushes" "$(stack_count "$TMP/out/p.osp" flush)" $N
[ "$(stack_count "$TMP/out/p.osp" read)" -ge $N ] || fail "fewer than $N reads"
expect_eq "the machine's /dev/fuse" "$(stat -c %F:%a:%t:%T /dev/fuse)" "$fuse_before"
exit 0
