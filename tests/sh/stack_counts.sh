# osprof mount: the operations of a workload run through the mount, counted
# by the stack layer, equal the system calls strace sees the same run make
# on those files: every openat is one FUSE open (or create), every read and
# write one request (--direct-io: no page cache merges or splits them),
# every close one flush, every fsync one fsync.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
command -v strace >/dev/null || skip "no strace"
N=13
head -c $((64 * 1024)) /dev/urandom >"$LOWER/f"
: >"$LOWER/w"
"$OSPROF" mount --direct-io --by comm -o "$TMP/p.osp" "$LOWER" "$MNT" -- \
	strace -f -qq -o "$TMP/trace" -e trace=openat,read,write,close,fsync \
	-P "$MNT/f" -P "$MNT/w" sh -c "
	i=0; while [ \$i -lt $N ]; do
		dd if='$MNT/f' of=/dev/null bs=4096 count=1 skip=\$i 2>/dev/null || exit 1
		i=\$((i + 1))
	done
	dd if=/dev/zero of='$MNT/w' bs=4096 count=$N conv=notrunc,fsync 2>/dev/null || exit 1
	dd if=/dev/zero of='$MNT/w' bs=512 count=3 seek=1 conv=notrunc,fsync 2>/dev/null" ||
	fail "osprof mount exited $?"
mountpoint -q "$MNT" && fail "still mounted after CMD exited"
calls() { grep -cE "^[0-9]+ +$1\(" "$TMP/trace"; }
expect_eq "strace saw the reads" "$(calls read)" $N
opens=$(($(stack_count "$TMP/p.osp" open) + $(stack_count "$TMP/p.osp" create)))
expect_eq "open+create vs openat" "$opens" "$(calls openat)"
expect_eq "read vs read" "$(stack_count "$TMP/p.osp" read)" "$(calls read)"
expect_eq "write vs write" "$(stack_count "$TMP/p.osp" write)" "$(calls write)"
expect_eq "fsync vs fsync" "$(stack_count "$TMP/p.osp" fsync)" "$(calls fsync)"
expect_eq "flush vs close" "$(stack_count "$TMP/p.osp" flush)" "$(calls close)"
# Releases come after the last close, asynchronously: the unmount still
# serves them, so each open file is released once.
expect_eq "release vs openat" "$(stack_count "$TMP/p.osp" release)" "$(calls openat)"
# --by comm: the reads came from dd.
expect_eq "reads by dd" "$(stack_count "$TMP/p.osp" read comm=dd)" $N
expect_eq "fs dim" "$(stack_count "$TMP/p.osp" read fs="$(findmnt -n -o FSTYPE -T "$LOWER")")" $N
cmp <(head -c $((N * 4096)) /dev/zero) "$LOWER/w" || fail "written data differs"
exit 0
