# osprof netfs on sshfs over loopback, no sshd and no network: sshfs runs
# sftp-server directly (-o ssh_command) under 'osprof run -l user,syscall
# --by fs'; the client's operations are timed by osprof mount stacked on the
# sshfs mount. A delay injected into the server's fsync (an LD_PRELOAD
# shim) must land on the server's share of the client's fsync, not on the
# remainder, and each client fsync must map to one server fsync.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/stack_lib.sh"
need_root
command -v sshfs >/dev/null || skip "no sshfs (scripts/install-deps.sh installs it)"
SFTP=""
for p in /usr/lib/openssh/sftp-server /usr/lib/sftp-server /usr/libexec/sftp-server; do
	[ -x "$p" ] && SFTP=$p && break
done
[ -n "$SFTP" ] || skip "no sftp-server (Debian package openssh-sftp-server)"
SHIM=$PROGS/libslow_fsync.so
[ -e "$SHIM" ] || fail "$SHIM missing (make tests)"
EXPORT=$TMP/export
SSHMNT=$TMP/sshfs
mkdir -p "$EXPORT" "$SSHMNT"
STACK_EXTRA_MNTS=("$SSHMNT")
DELAY_MS=40
N=6
cat >"$TMP/ssh-wrap" <<WRAP
#!/bin/sh
# Stands in for ssh: sshfs speaks SFTP over this script's stdin and stdout.
# The shim comes after osprof's preload, so user:fsync includes its delay.
export OSPROF_TEST_FSYNC_DELAY_MS=$DELAY_MS
exec "$OSPROF" run -q -l user,syscall --by fs -o "$TMP/server.osp" -- \
	sh -c 'LD_PRELOAD="\$LD_PRELOAD:$SHIM" exec "$SFTP"'

WRAP
chmod +x "$TMP/ssh-wrap"
sshfs -f -o ssh_command="$TMP/ssh-wrap" "localhost:$EXPORT" "$SSHMNT" 2>"$TMP/sshfs.err" &
sshfs_pid=$!
STACK_PIDS=("$sshfs_pid")
STACK_SERVER_ERR=$TMP/sshfs.err stack_wait_mounted "$SSHMNT" $sshfs_pid

"$OSPROF" mount -o "$TMP/client.osp" "$SSHMNT" "$MNT" -- sh -c "
	i=0; while [ \$i -lt $N ]; do
		dd if=/dev/zero of=f\$i bs=4096 count=1 conv=fsync 2>/dev/null || exit 1
		i=\$((i + 1))
	done
	cat f0 >/dev/null" || fail "osprof mount over sshfs exited $?"
[ "$(stat -c %s "$EXPORT/f$((N - 1))")" = 4096 ] || fail "the files did not reach the server"
fusermount3 -u "$SSHMNT" || fail "cannot unmount sshfs"
wait $sshfs_pid
STACK_PIDS=()
# The server's profile is written once sftp-server sees the channel close.
for _ in $(seq 200); do [ -s "$TMP/server.osp" ] && break; sleep 0.05; done
[ -s "$TMP/server.osp" ] || fail "the server's profile was not written: $(cat "$TMP/sshfs.err")"
expect_eq "client fsyncs" "$(stack_count "$TMP/client.osp" fsync)" $N

"$OSPROF" netfs "$TMP/client.osp" "$TMP/server.osp" >"$TMP/netfs.txt" || fail "netfs failed"
grep -q "^fsync " "$TMP/netfs.txt" || fail "no fsync class in: $(cat "$TMP/netfs.txt")"
"$OSPROF" netfs --json "$TMP/client.osp" "$TMP/server.osp" >"$TMP/netfs.json" || fail "netfs --json failed"
python3 - "$TMP/netfs.json" $N $DELAY_MS <<'PY' || fail "fsync split wrong: $(cat "$TMP/netfs.txt")"
import json, sys
n, delay = int(sys.argv[2]), int(sys.argv[3]) * 1e6
c = {o["class"]: o for o in map(json.loads, open(sys.argv[1]))}["fsync"]
assert c["client"]["count"] == n, c["client"]["count"]
assert c["server"]["count"] == n, "one server fsync per client fsync: %d" % c["server"]["count"]
server_mean = c["server"]["total_ns"] / n
assert server_mean >= delay, "server mean %.0f ns < the injected delay" % server_mean
# The delay is the server's: it is on the server share, not the remainder.
assert c["remainder_mean_ns"] < delay / 2, "remainder %.0f ns holds the delay" % c["remainder_mean_ns"]
assert c["server_share"] > 0.5, c["server_share"]
PY
# Bad input: one line, exit 2.
rc=0
"$OSPROF" netfs "$TMP/server.osp" "$TMP/server.osp" 2>"$TMP/err" || rc=$?
expect_eq "no client ops: exit status" $rc 2
grep -q "no client operations" "$TMP/err" || fail "no client ops: message"
exit 0
