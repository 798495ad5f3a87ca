# NFS server and client in one machine over loopback, for the kernel tests
# of the rpc layer (tests/sh/kern_nfs.sh). Sourced after tests/lib.sh.
# nfs_start EXPORT: loads nfsd and the client, starts rpcbind, exports
# EXPORT to 127.0.0.1 and starts nfsd and mountd; nfs_stop undoes it all.
NFS_MOUNTS=()
NFS_EXPORT=""
NFS_PIDS=() # the daemons started here, in the foreground, stopped by pid
nfs_start() {
	NFS_EXPORT=$1
	mkdir -p "$NFS_EXPORT" /run/rpcbind /var/lib/nfs/v4recovery
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		fail "cannot mount /proc/fs/nfsd"
	# NFSv4 refuses opens for the grace period after nfsd starts: the
	# shortest the kernel allows (10 s) instead of 90
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	if [ ! -S /run/rpcbind.sock ]; then
		rpcbind -f -w &
		NFS_PIDS+=($!)
		nfs_until "rpcbind listening" test -S /run/rpcbind.sock
	fi
	exportfs -o rw,no_root_squash,sync,insecure,no_subtree_check,fsid=0 "127.0.0.1:$NFS_EXPORT" ||
		fail "exportfs $NFS_EXPORT failed"
	rpc.nfsd 4 || fail "rpc.nfsd failed"
	rpc.mountd -F &
	NFS_PIDS+=($!)
	nfs_until "mountd registered" eval "rpcinfo -p 127.0.0.1 | grep -q mountd"
}
# nfs_until WHAT CMD...: polls CMD (bounded, 20 s) until it succeeds.
nfs_until() {
	local what=$1 i
	shift
	for i in $(seq 100); do
		"$@" 2>/dev/null && return 0
		sleep 0.2
	done
	fail "nfs: $what: timed out"
}
# nfs_mount VERS MNT: mounts the export at MNT with vers=VERS (3 or 4.2).
nfs_mount() {
	local src=127.0.0.1:$NFS_EXPORT
	[ "$1" = 3 ] || src=127.0.0.1:/ # v4 sees the export as its pseudo root (fsid=0)
	mkdir -p "$2"
	mount -t nfs -o "vers=$1,hard,timeo=600" "$src" "$2" || fail "mount -t nfs vers=$1 failed"
	NFS_MOUNTS+=("$2")
}
nfs_stop() {
	local m
	for m in "${NFS_MOUNTS[@]}"; do
		mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
	done
	tc qdisc del dev lo root 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	[ ${#NFS_PIDS[@]} -gt 0 ] && kill "${NFS_PIDS[@]}" 2>/dev/null
	[ -n "$NFS_EXPORT" ] && exportfs -u "127.0.0.1:$NFS_EXPORT" 2>/dev/null
	return 0
}
# nfs_opcount MNT PROC: the kernel's count of PROC calls on the mount at MNT
# (the "ops" column of /proc/self/mountstats' per-op statistics).
nfs_opcount() {
	awk -v mnt="$1" -v op="$2:" '
		$1 == "device" { cur = ($5 == mnt) }
		cur && $1 == op { print $2; found = 1; exit }
		END { if (!found) print 0 }' /proc/self/mountstats
}
