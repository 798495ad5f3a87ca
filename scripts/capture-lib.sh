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

# mkramdisk FS: the same on a new zram device (RAM, compressed) made with
# zram-control's hot_add; the device id goes to ZRAMS, for ramdisk_cleanup.
# zram completes each read in the submitter's context at memory speed: a
# cold read costs the same in every run, where a loop device's backing disk
# (a shared VM's virtio disk) varied 2x between runs and made repeats of
# cold and read-ahead reads differ. Returns 1 where zram-control is absent.
mkramdisk() {
	local mnt=$TMPD/mnt-$1 id
	[ -w /sys/class/zram-control/hot_add ] || return 1
	id=$(cat /sys/class/zram-control/hot_add) || return 1
	ZRAMS+=("$id")
	echo 384M >"/sys/block/zram$id/disksize"
	if [ "$1" = xfs ]; then mkfs.xfs -q "/dev/zram$id"; else mkfs.ext4 -q -F "/dev/zram$id"; fi
	mkdir -p "$mnt"
	mount "/dev/zram$id" "$mnt"
	LAST_DEV=/dev/zram$id
}

# Removes the zram devices of mkramdisk (after their file systems are unmounted).
ramdisk_cleanup() {
	for id in "${ZRAMS[@]}"; do echo "$id" >/sys/class/zram-control/hot_remove 2>/dev/null || true; done
}
