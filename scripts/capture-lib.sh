# Sourced first by the corpus capture scripts (scripts/capture-*-corpus.sh):
# ROOT, B (the build directory: $BUILD, else build/), OSPROF, CAPTURE (the
# script's name, for messages), their checks, and ext4/xfs images on loop
# devices in a temp dir.
CAPTURE=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
OSPROF=$B/osprof

# capture_need TOOL...: root, BTF and every TOOL, else one line and exit 2.
capture_need() {
	[ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ] || {
		echo "$CAPTURE: needs root and BTF" >&2
		exit 2
	}
	local t
	for t; do
		command -v "$t" >/dev/null || { echo "$CAPTURE: $t missing (scripts/install-deps.sh)" >&2; exit 2; }
	done
}

# loop_start: TMPD, the temp dir of the images (and of anything else the
# script keeps while it runs); loop_cleanup, which the script's EXIT trap
# calls, unmounts the file systems of mkloop and mkramdisk, detaches and
# removes their devices and removes TMPD.
loop_start() {
	TMPD=$(mktemp -d)
	LOOPS=()
	ZRAMS=()
}
loop_cleanup() {
	for m in "$TMPD"/mnt-*; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	ramdisk_cleanup
	rm -rf "$TMPD"
}

# capture_postmark_cfg DIR: $TMPD/pm.cfg, the Postmark run of both
# corpora (300 files, 1500 transactions, seed 42) in DIR.
capture_postmark_cfg() {
	cat >"$TMPD/pm.cfg" <<EOF
set location $1
set number 300
set transactions 1500
set seed 42
run
quit
EOF
}

# mkloop FS: a 384 MiB image (xfs needs 300) with FS, mounted at
# $TMPD/mnt-FS; the device goes to LOOPS (for loop_cleanup) and LAST_DEV,
# with no subshell. Direct I/O: the image's blocks are read from the disk,
# not from the host page cache, so a cold read waits for a device.
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
# zram-control's hot_add; the device id goes to ZRAMS, for loop_cleanup.
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

# Removes the zram devices of mkramdisk (after their file systems are
# unmounted).
ramdisk_cleanup() {
	for id in "${ZRAMS[@]}"; do echo "$id" >/sys/class/zram-control/hot_remove 2>/dev/null || true; done
}
