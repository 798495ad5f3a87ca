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
# list` and refuse -l rpc in one line, which is then all this test checks:
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
		"$OSPROF" list 2>&1 | grep -q "^rpc *unavailable here: this kernel has no sunrpc" ||
			fail "osprof list does not say rpc is unavailable: $("$OSPROF" list 2>&1 | grep rpc)"
		"$OSPROF" run -l rpc -o "$TMP/x.osp" -- true 2>"$TMP/x.err" && fail "-l rpc ran without sunrpc"
		[ "$(wc -l <"$TMP/x.err")" -eq 1 ] || fail "-l rpc: not one line: $(cat "$TMP/x.err")"
		grep -q "rpc: this kernel has no sunrpc" "$TMP/x.err" || fail "-l rpc: $(cat "$TMP/x.err")"
		echo "no sunrpc in this kernel: list and -l rpc say so in one line (checked);" \
			"the VM phase runs the NFS test on Debian's kernel"
		exit 0
	fi
	skip "sunrpc but no nfsd/nfs modules in this kernel"
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
# before and after into $TMP/ms_TAG.{a,b}. Both osprof processes attach at
# once (attaching is what takes time under emulation): the client's target
# waits until the server records before it runs the workload.
profile() {
	local tag=$1 vers=$2 mnt=$3 layers=$4 rec fstype=nfs
	[ "$vers" = 3 ] || fstype=nfs4
	# --allow-loss: the nfs tracepoint pairs of the fs layer end some async
	# calls (started before attach, or ended in another task) unpaired;
	# the counts checked are exact anyway
	"$OSPROF" record --allow-loss --comm nfsd -l "$layers" --fs ext4 -o "$TMP/s_$tag.osp" \
		2>"$TMP/s_$tag.err" &
	rec=$!
	"$OSPROF" run --allow-loss -l fs,rpc --fs $fstype -o "$TMP/c_$tag.osp" -- \
		bash "$TMP/client.sh" "$TMP/s_$tag.err" "$mnt" "$TMP/ms_$tag" "$mnt/f_$tag" \
		2>"$TMP/c_$tag.err" || fail "$tag: client run failed: $(cat "$TMP/c_$tag.err")"
	sigint_wait $rec || fail "$tag: server record exited with $?: $(cat "$TMP/s_$tag.err")"
	"$OSPROF" netfs --json "$TMP/c_$tag.osp" "$TMP/s_$tag.osp" >"$TMP/netfs_$tag.json" ||
		fail "$tag: netfs --json failed"
}
# client.sh SERVER_ERR MNT MS FILE: waits for the server's recorder, then
# runs the workload on FILE between two mountstats readings.
cat >"$TMP/client.sh" <<EOF
. "$ROOT/tests/nfs_lib.sh"
for _ in \$(seq 800); do grep -q recording "\$1" && break; sleep 0.05; done
grep -q recording "\$1" || { echo "server record did not start: \$(cat "\$1")" >&2; exit 9; }
for p in READ WRITE; do echo "\$p \$(nfs_opcount "\$2" \$p)"; done >"\$3.a"
"$PROGS/nfs_ops" $N "\$4" || exit
for p in READ WRITE; do echo "\$p \$(nfs_opcount "\$2" \$p)"; done >"\$3.b"
EOF

# load TAG: every profile's count of both ends into CNT["c|s PROFILE"],
# mountstats deltas into MS[PROC] and the read and write classes of netfs
# into NF[CLASS.FIELD] (few processes: each costs under emulation).
declare -A CNT MS NF
load() {
	local k v cls f1 f2 f3 f4 f5 f6 f7
	CNT=() MS=() NF=()
	while IFS=$'\t' read -r k v; do CNT[$k]=$v; done < <(awk '
		FNR == 1 { side = (FILENAME ~ /\/c_[^\/]*$/) ? "c" : "s" }
		/^profile / { name = substr($0, 9) }
		/^stats / { print side " " name "\t" $2 }' "$TMP/c_$1.osp" "$TMP/s_$1.osp")
	while read -r k v; do MS[$k]=$v; done <"$TMP/ms_$1.a"
	while read -r k v; do MS[$k]=$((v - MS[$k])); done <"$TMP/ms_$1.b"
	while read -r cls f1 f2 f3 f4 f5 f6 f7; do
		NF[$cls.calls]=$f1 NF[$cls.rpcs]=$f2 NF[$cls.per_op]=$f3 NF[$cls.layer]=$f4
		NF[$cls.inside]=$f5 NF[$cls.remainder]=$f6 NF[$cls.server_mean]=$f7
	done < <(jq -r 'select(.class == "read" or .class == "write") |
		"\(.class) \(.client.count) \(.client_rpcs) \(.rpcs_per_op) \(.server_layer)" +
		" \(.server.total_ns <= .client.total_ns) \(.remainder_mean_ns | floor)" +
		" \(if .server.count > 0 then .server.total_ns / .server.count | floor else 0 end)"' \
		"$TMP/netfs_$1.json")
}
cnt() { echo "${CNT[$1]:-0}"; }

check() {
	local tag=$1 vers=$2 t=nfs v=${2%%.*} op p cls
	[ "$vers" = 3 ] || t=nfs4
	load "$tag"
	for op in write_iter read_iter fsync getattr; do
		expect_eq "$tag client fs $op" "$(cnt "c fs $op fs=$t")" $N
	done
	for p in WRITE READ; do
		expect_eq "$tag client rpc $p (mountstats)" \
			"$(cnt "c rpc $p prog=nfs side=client time=execute vers=$v")" "${MS[$p]}"
		expect_eq "$tag client rpc $p" "$(cnt "c rpc $p prog=nfs side=client time=execute vers=$v")" $N
		expect_eq "$tag server rpc $p" "$(cnt "s rpc $p prog=nfs side=server time=execute vers=$v")" $N
	done
	if [ "$tag" = v3 ]; then # the server's fs layer, below nfsd
		expect_eq "$tag server ext4 write_iter" "$(cnt "s fs write_iter fs=ext4")" $N
		expect_eq "$tag server ext4 read_iter" "$(cnt "s fs read_iter fs=ext4")" $N
	fi
	for cls in read write; do
		expect_eq "$tag netfs $cls calls" "${NF[$cls.calls]}" $N
		expect_eq "$tag netfs $cls client RPCs" "${NF[$cls.rpcs]}" $N
		expect_eq "$tag netfs $cls RPCs/op" "${NF[$cls.per_op]}" 1
		expect_eq "$tag netfs $cls server layer" "${NF[$cls.layer]}" rpc
		# the server's time for a call is inside the client's
		expect_eq "$tag netfs $cls: server total within the client's" "${NF[$cls.inside]}" true
	done
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
for p in WRITE READ; do
	rtt=$(awk -v want="profile rpc $p prog=nfs side=client time=rtt vers=3" '$0 == want { f = 1; next }
		f && /^stats / { printf "%d", $3 / $2; exit }' "$TMP/c_v3d.osp")
	[ "${rtt:-0}" -ge 20000000 ] || fail "netem: client $p rtt mean ${rtt:-0} ns < 20 ms"
done
# The delay is the network's: each call's remainder holds its two crossings
# of lo (at least 40 ms; checked at 20), and over both classes the
# remainder grew more than the server's time, which starts once the request
# is in (emulation on a busy host moves either by tens of ms, one class
# alone could mislead).
declare -A R0 S0
load v3
for cls in write read; do R0[$cls]=${NF[$cls.remainder]} S0[$cls]=${NF[$cls.server_mean]}; done
load v3d
dr=0 ds=0
for cls in write read; do
	r0=${R0[$cls]} r1=${NF[$cls.remainder]} s0=${S0[$cls]} s1=${NF[$cls.server_mean]}
	[ "$r1" -ge 20000000 ] || fail "netem: $cls remainder $r1 ns < 20 ms"
	dr=$((dr + r1 - r0)) ds=$((ds + s1 - s0))
	echo "netem $cls: remainder $((r0 / 1000000)) -> $((r1 / 1000000)) ms, server $((s0 / 1000000)) -> $((s1 / 1000000)) ms"
done
[ $dr -gt $ds ] || fail "netem: the server's time grew more ($ds ns) than the remainder ($dr ns)"
"$OSPROF" netfs "$TMP/c_v3d.osp" "$TMP/s_v3d.osp" >"$TMP/netfs_v3d.txt" || fail "netfs (text) failed"
grep -q "client RPCs of the class: $N (rpc layer, side=client)" "$TMP/netfs_v3d.txt" ||
	fail "netfs text does not name the client's RPCs: $(cat "$TMP/netfs_v3d.txt")"
# diff before/after: the first profile that differs is a read or a write
"$OSPROF" diff --json "$TMP/c_v3.osp" "$TMP/c_v3d.osp" >"$TMP/diff.json" || fail "diff failed"
first=$(jq -r 'select(.verdict == "differs") | "\(.layer) \(.op)"' "$TMP/diff.json" | head -n 1)
case $first in
"fs write_iter" | "fs read_iter" | "rpc WRITE" | "rpc READ") ;;
*) fail "diff ranks '$first' first: $(jq -c 'select(.verdict == "differs") | [.layer, .op]' "$TMP/diff.json" | head -5 | tr '\n' ' ')" ;;
esac
echo "ok: v3 and v4.2 exact counts, netfs split, netem on the network share, diff ranks $first first"
