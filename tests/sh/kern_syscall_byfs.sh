#!/usr/bin/env bash
# --by fs attributes fd-based calls to the file's file system and device:
# preads of a file on an ext4 image (loop device) and of a file on tmpfs are
# separate profiles with exact counts; a pipe and a socket get their own.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 not installed"
MNT=$TMP/mnt-kern
SHM=$(mktemp -d /dev/shm/osprof-kern.XXXXXX)
LOOP=""
cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$SHM" "$TMP"
}
trap cleanup EXIT
truncate -s 64M "$TMP/kern-ext4.img"
mkfs.ext4 -q -F "$TMP/kern-ext4.img" || fail "mkfs.ext4"
LOOP=$(losetup -f --show "$TMP/kern-ext4.img") || skip "no free loop device"
mkdir -p "$MNT"
mount -t ext4 "$LOOP" "$MNT" || fail "mount $LOOP"
head -c 8192 /dev/urandom >"$MNT/f"
head -c 8192 /dev/urandom >"$SHM/f"
dev=$(basename "$LOOP")

"$OSPROF" run -l syscall --by fs -o "$TMP/fs.osp" -- sh -c \
	"'$PROGS/kern_sys' read '$MNT/f' 300; '$PROGS/kern_sys' read '$SHM/f' 200; echo x | cat >/dev/null" ||
	fail "osprof run --by fs"
expect_eq "pread64 on ext4 $dev" "$(prof_count "$TMP/fs.osp" "syscall pread64 dev=$dev fs=ext4")" 300
shm=$(grep '^profile syscall pread64 .*fs=tmpfs' "$TMP/fs.osp" | sed 's/^profile //')
[ -n "$shm" ] || fail "no tmpfs pread64 profile: $(grep '^profile syscall pread64' "$TMP/fs.osp")"
expect_eq "pread64 on tmpfs" "$(prof_count "$TMP/fs.osp" "$shm")" 200
grep -q '^profile syscall read dev=.* fs=pipefs' "$TMP/fs.osp" || fail "no read on pipefs"
echo ok
