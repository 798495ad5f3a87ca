# Sourced inside the VM (tests/vm/guest.sh) before any test: the guest starts
# bare (9p + overlay root, no modules loaded, no cgroup v2, /tmp on tmpfs
# where O_DIRECT fails), so this gives the kernel tests what the host has.
modprobe -q loop
modprobe -q fuse
modprobe -q ext4
mkdir -p /sys/fs/cgroup
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
# An ext4 scratch disk for TMPDIR and /tmp: tests that create loop images or
# use O_DIRECT need a disk file system under them.
truncate -s 1200M /dev/shm/scratch.img # /dev/shm holds half of VM_MEM (3G)
mkfs.ext4 -q -F /dev/shm/scratch.img
mount -o loop /dev/shm/scratch.img /tmp
chmod 1777 /tmp
export TMPDIR=/tmp
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd # bash process substitution
ip link set lo up 2>/dev/null || true
