# Helpers of the stack-layer tests tests/sh/stack_*.sh (sourced after
# tests/lib.sh): a lower directory and a mount point in $TMP, and a cleanup
# that never leaves a mount or an osprof mount process behind.
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null || skip "no fusermount3 (Debian package fuse3)"
LOWER=$TMP/lower
MNT=$TMP/mnt
mkdir -p "$LOWER" "$MNT"
STACK_PIDS=()
stack_cleanup() {
	local p m
	for p in "${STACK_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for m in "$MNT" "${STACK_EXTRA_MNTS[@]}"; do
		if mountpoint -q "$m" 2>/dev/null; then
			fusermount3 -u -z "$m" 2>/dev/null || umount -l "$m"
		fi
	done
	for p in "${STACK_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
STACK_EXTRA_MNTS=()
trap stack_cleanup EXIT

# stack_wait_mounted DIR PID: waits until DIR is a mount point, failing if
# PID (the server) exits first.
stack_wait_mounted() {
	local i
	for i in $(seq 200); do
		mountpoint -q "$1" && return 0
		kill -0 "$2" 2>/dev/null || fail "the file system server exited before mounting $1: $(cat "${STACK_SERVER_ERR:-/dev/null}")"
		sleep 0.05
	done
	fail "$1 was not mounted"
}

# stack_count FILE OP [DIM=VALUE...]: calls of stack:OP summed over every
# profile whose dims include the given ones (0 when none).
stack_count() {
	"$OSPROF" report --json "$1" | python3 -c '
import json, sys
op, want = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
n = 0
for line in sys.stdin:
    p = json.loads(line)
    if p.get("type") == "profile" and p["layer"] == "stack" and p["op"] == op \
            and all(p["dims"].get(k) == v for k, v in want.items()):
        n += p["count"]
print(n)' "${@:2}"
}
