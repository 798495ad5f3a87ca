# Sourced first by the bench/*.sh scripts, with their BUILD_DIR argument
# ("" for scripts whose first argument is something else):
#   source "$(dirname "$0")/lib.sh" "${1:-}"
# Sets ROOT (the source tree), BUILD (BUILD_DIR, else $BUILD, else build/),
# OSPROF and BENCH (the script's name, for messages), and gives the checks
# and the temporary directory the scripts start with.
BENCH=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
OSPROF=$BUILD/osprof

# bench_need_root: one line and exit 2 unless run as root.
bench_need_root() {
	[ "$(id -u)" -eq 0 ] || { echo "$BENCH: needs root" >&2; exit 2; }
}

# bench_need_built FILE...: one line naming the first FILE that is missing
# (make builds them) and exit 2.
bench_need_built() {
	local f
	for f; do
		[ -x "$f" ] || { echo "$BENCH: $f missing (run make)" >&2; exit 2; }
	done
}

# bench_tmp [NAME]: TMP, a new directory /tmp/osprof-NAME.XXXXXX (NAME:
# bench) removed at exit. Scripts with more to clean up trap EXIT themselves.
bench_tmp() {
	TMP=$(mktemp -d "/tmp/osprof-${1:-bench}.XXXXXX")
	trap 'rm -rf "$TMP"' EXIT
}

# bench_floor MODE CMD...: runs CMD with build/bench/osp_floor MODE attached
# to sys_enter/sys_exit ("": empty programs; timed: the timing floor), held
# until CMD ends; its status is CMD's (2 if the floor did not start).
bench_floor() {
	local mode=$1 rc pid
	shift
	rm -f "$TMP/floor.fifo" "$TMP/floor.ready"
	mkfifo "$TMP/floor.fifo"
	"$BUILD/bench/osp_floor" $mode <"$TMP/floor.fifo" >"$TMP/floor.ready" &
	pid=$!
	exec 7>"$TMP/floor.fifo"
	for _ in $(seq 200); do grep -q ready "$TMP/floor.ready" && break; sleep 0.02; done
	if grep -q ready "$TMP/floor.ready"; then
		"$@"
		rc=$?
	else
		echo "$BENCH: osp_floor $mode did not start" >&2
		rc=2
	fi
	exec 7>&-
	wait "$pid"
	rm -f "$TMP/floor.fifo" "$TMP/floor.ready"
	return $rc
}
