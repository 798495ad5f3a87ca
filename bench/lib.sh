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
