# Sourced by the corpus capture scripts. mkloop FS: a 384 MiB image (xfs
# needs 300) with FS, mounted at $TMPD/mnt-FS; the device goes to LOOPS
# (for the caller's cleanup) and LAST_DEV, with no subshell. Direct I/O: the
# image's blocks are read from the disk, not from the host page cache, so a
# cold read waits for a device.
mkloop() {
	local img=$TMPD/$1.img mnt=$TMPD/mnt-$1 dev
	truncate -s 384M "$img"
	if [ "$1" = xfs ]; then mkfs.xfs -q "$img"; else mkfs.ext4 -q -F "$img"; fi
	dev=$(losetup -f --show --direct-io=on "$img")
	LOOPS+=("$dev")
	mkdir -p "$mnt"
	mount "$dev" "$mnt"
	LAST_DEV=$dev
}
