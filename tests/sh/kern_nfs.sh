#!/usr/bin/env bash
# Both ends of NFS (v3 and v4.2) in one machine over loopback: a static
# program doing N O_DIRECT pwrite64, N fsync, N O_DIRECT pread64 and N stat
# on a file of the mount is profiled on the client (-l fs,rpc) while the
# server's nfsd threads are recorded (-l rpc,fs on ext4). Exact counts: the
# fs layer's write_iter, read_iter, fsync and getattr on nfs/nfs4 are N;
# the rpc layer's client WRITE and READ calls equal the kernel's own counts
# in /proc/self/mountstats (and N: direct I/O sends each on its own); the
# server's WRITE and READ (v4: the COMPOUNDs named after their op) and
# (v3) ext4's write_iter and read_iter under nfsd are N. `osprof netfs` pairs
# the ends: one RPC per read and write, the server's time within the
# client's. Then 20 ms of netem delay on lo: each round trip crosses lo
# twice, so the client's READ/WRITE rtt and netfs's remainder (network
# share) grow by at least 20 ms while the server's time does not take it,
# and `osprof diff` of before/after ranks the read/write ops first.
# A kernel without NFS (this development machine) must say so in `osprof
# list` and refuse -l rpc in one line; the test then skips, also under CI:
# the VM phase (tests/vm/tests.list, Debian's kernel) runs it, where
# OSPROF_EXPECT_VFSOPS=1 makes a missing NFS a failure.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
. "$ROOT/tests/nfs_lib.sh"
need_root
need_btf
N=10
for m in sunrpc nfsd nfs nfsv3 nfsv4 sch_netem; do modprobe -q $m 2>/dev/null; done
if [ ! -d /sys/module/nfsd ] || [ ! -d /sys/module/nfs ]; then
	[ "${OSPROF_EXPECT_VFSOPS:-}" = 1 ] && fail "NFS expected in this kernel (modprobe nfsd nfs failed)"
	if [ ! -d /sys/module/sunrpc ]; then
		"$OSPROF" list 2>&1 | grep -q "^rpc *not available: this kernel has no sunrpc" ||
			fail "osprof list does not say rpc is unavailable: $("$OSPROF" list 2>&1 | grep rpc)"
		"$OSPROF" run -l rpc -o "$TMP/x.osp" -- true 2>"$TMP/x.err" && fail "-l rpc ran without sunrpc"
		[ "$(wc -l <"$TMP/x.err")" -eq 1 ] || fail "-l rpc: not one line: $(cat "$TMP/x.err")"
		grep -q "rpc: this kernel has no sunrpc" "$TMP/x.err" || fail "-l rpc: $(cat "$TMP/x.err")"
	fi
	echo "skip: no NFS in this kernel (no nfsd/nfs modules; -l rpc refused in one line): the VM phase runs it" >&2
	exit 77
fi
for c in exportfs rpc.nfsd rpc.mountd rpcbind rpcinfo; do
	command -v $c >/dev/null || skip "needs $c (nfs-kernel-server, rpcbind: scripts/install-deps.sh)"
done
command -v tc >/dev/null || skip "needs tc (iproute2)"
command -v jq >/dev/null || skip "needs jq"
trap 'nfs_stop; rm -rf "$TMP"' EXIT
nfs_start "$TMP/export"
# A regular file in the export: the fs layer finds a file system's VFS ops
# through a file of it, and NFS has no O_TMPFILE to fall back on.
echo seed >"$TMP/export/seed"
# The fs layer times the VFS ops checked, not nfs's and ext4's tracepoint
# pairs too: each probe costs an attach under the VM phase's emulation.
export OSPROF_FSOPS_OPS=read_iter,write_iter,fsync,getattr OSPROF_FS_SUBSYS=none

# profile TAG VERS MNT SERVER_LAYERS: the workload on MNT, the client
# profiled into $TMP/c_TAG.osp and nfsd into $TMP/s_TAG.osp; mountstats
# before and after into $TMP/ms_TAG.{a,b}; netfs --json into
# $TMP/netfs_TAG.json.
profile() {
	local tag=$1 vers=$2 mnt=$3 layers=$4 rec fstype=nfs
	[ "$vers" = 3 ] || fstype=nfs4
	# --allow-loss: the nfs tracepoint pairs of the fs layer end some async
	# calls (started before attach, or ended in another task) unpaired;
	# the counts checked are exact anyway
	"$OSPROF" record --allow-loss --comm nfsd -l "$layers" --fs ext4 -o "$TMP/s_$tag.osp" 2>"$TMP/s_$tag.err" &
	rec=$!
	for _ in $(seq 400); do grep -q recording "$TMP/s_$tag.err" && break; sleep 0.05; done
	grep -q recording "$TMP/s_$tag.err" || fail "$tag: server record did not start: $(cat "$TMP/s_$tag.err")"
	for p in READ WRITE; do echo "$p $(nfs_opcount "$mnt" $p)"; done >"$TMP/ms_$tag.a"
	"$OSPROF" run --allow-loss -l fs,rpc --fs $fstype -o "$TMP/c_$tag.osp" -- "$PROGS/nfs_ops" $N "$mnt/f_$tag" \
		2>"$TMP/c_$tag.err" || fail "$tag: client run failed: $(cat "$TMP/c_$tag.err")"
	for p in READ WRITE; do echo "$p $(nfs_opcount "$mnt" $p)"; done >"$TMP/ms_$tag.b"
	sigint_wait $rec || fail "$tag: server record exited with $?: $(cat "$TMP/s_$tag.err")"
	"$OSPROF" netfs --json "$TMP/c_$tag.osp" "$TMP/s_$tag.osp" >"$TMP/netfs_$tag.json" ||
		fail "$tag: netfs --json failed"
}
# delta TAG PROC: mountstats' PROC calls during the client's run
delta() {
	echo $(($(awk -v p="$2" '$1 == p { print $2 }' "$TMP/ms_$1.b") -
		$(awk -v p="$2" '$1 == p { print $2 }' "$TMP/ms_$1.a")))
}
rpc_count() { prof_count "$1" "rpc $2 prog=nfs side=$3 time=execute vers=$4"; }
# netfs_field TAG CLASS FIELD: one number of `osprof netfs --json`
netfs_field() {
	jq -r --arg c "$2" "select(.class == \$c) | $3" "$TMP/netfs_$1.json"
}

check() {
	local tag=$1 vers=$2 t=nfs v=${2%%.*}
	[ "$vers" = 3 ] || t=nfs4
	local c=$TMP/c_$tag.osp s=$TMP/s_$tag.osp
	for op in write_iter read_iter fsync getattr; do
		expect_eq "$tag client fs $op" "$(prof_count "$c" "fs $op fs=$t")" $N
	done
	for p in WRITE READ; do
		expect_eq "$tag client rpc $p (mountstats)" "$(rpc_count "$c" $p client "$v")" "$(delta "$tag" $p)"
		expect_eq "$tag client rpc $p" "$(rpc_count "$c" $p client "$v")" $N
		expect_eq "$tag server rpc $p" "$(rpc_count "$s" $p server "$v")" $N
	done
	if [ "$tag" = v3 ]; then # the server's fs layer, below nfsd
		expect_eq "$tag server ext4 write_iter" "$(prof_count "$s" "fs write_iter fs=ext4")" $N
		expect_eq "$tag server ext4 read_iter" "$(prof_count "$s" "fs read_iter fs=ext4")" $N
	fi
	for cls in read write; do
		expect_eq "$tag netfs $cls calls" "$(netfs_field "$tag" $cls .client.count)" $N
		expect_eq "$tag netfs $cls client RPCs" "$(netfs_field "$tag" $cls .client_rpcs)" $N
		expect_eq "$tag netfs $cls RPCs/op" "$(netfs_field "$tag" $cls .rpcs_per_op)" 1
		expect_eq "$tag netfs $cls server layer" "$(netfs_field "$tag" $cls .server_layer)" rpc
		# the server's time for a call is inside the client's
		[ "$(netfs_field "$tag" $cls '.server.total_ns <= .client.total_ns')" = true ] ||
			fail "$tag netfs $cls: server total exceeds the client's"
	done
	"$OSPROF" netfs "$TMP/c_$tag.osp" "$TMP/s_$tag.osp" >"$TMP/netfs_$tag.txt" ||
		fail "$tag: netfs (text) failed"
	grep -q "client RPCs of the class: $N (rpc layer, side=client)" "$TMP/netfs_$tag.txt" ||
		fail "$tag: netfs text does not name the client's RPCs"
}

nfs_mount 3 "$TMP/m3"
profile v3 3 "$TMP/m3" rpc,fs
check v3 3
# v4 refuses opens until its grace period ends: end it now
echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || true
nfs_mount 4.2 "$TMP/m4"
profile v4 4.2 "$TMP/m4" rpc
check v4 4.2

# 20 ms on lo: requests and replies each cross it once.
tc qdisc add dev lo root netem delay 20ms || fail "tc netem failed"
profile v3d 3 "$TMP/m3" rpc
tc qdisc del dev lo root
check v3d 3
ms() { awk -v n="$1" 'BEGIN { printf "%d", n / 1e6 }'; }
for p in WRITE READ; do
	tot=$("$OSPROF" report --csv "$TMP/c_v3d.osp" |
		grep -F "\"rpc\",\"$p\",\"prog=nfs;side=client;time=rtt;vers=3\"," |
		awk -F'",' '{ split($4, f, ","); print f[3] }')
	[ "$(ms $((tot / N)))" -ge 20 ] || fail "netem: client $p rtt mean $(ms $((tot / N))) ms < 20 ms"
done
for cls in write read; do
	r0=$(netfs_field v3 $cls .remainder_mean_ns) r1=$(netfs_field v3d $cls .remainder_mean_ns)
	s0=$(netfs_field v3 $cls '.server.total_ns / .server.count')
	s1=$(netfs_field v3d $cls '.server.total_ns / .server.count')
	[ "$(ms "$r1")" -ge 20 ] || fail "netem: $cls remainder $(ms "$r1") ms < 20 ms"
	awk -v r0="$r0" -v r1="$r1" -v s0="$s0" -v s1="$s1" 'BEGIN { exit !(r1 - r0 > s1 - s0) }' ||
		fail "netem: $cls: the server's share grew more ($(ms "$s0") -> $(ms "$s1") ms) than the remainder ($(ms "$r0") -> $(ms "$r1") ms)"
	echo "netem $cls: remainder $(ms "$r0") -> $(ms "$r1") ms, server $(ms "$s0") -> $(ms "$s1") ms"
done
# diff before/after: the first profile that differs is a read or a write
"$OSPROF" diff --json "$TMP/c_v3.osp" "$TMP/c_v3d.osp" >"$TMP/diff.json" || fail "diff failed"
first=$(jq -r 'select(.verdict == "differs") | "\(.layer) \(.op)"' "$TMP/diff.json" | head -n 1)
case $first in
"fs write_iter" | "fs read_iter" | "rpc WRITE" | "rpc READ") ;;
*) fail "diff ranks '$first' first: $(jq -c 'select(.verdict == "differs") | [.layer, .op]' "$TMP/diff.json" | head -5 | tr '\n' ' ')" ;;
esac
echo "ok: v3 and v4.2 exact counts, netfs split, netem on the network share, diff ranks $first first"
