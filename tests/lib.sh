# Sourced by tests/sh/*.sh. Each script is one test: exit 0 pass, 77 skip,
# anything else fail. Under CI=true a test that cannot run fails instead.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OSPROF=$BUILD/osprof
PRELOAD=$BUILD/libosprof-preload.so
PROGS=$BUILD/tests/progs
TMP=$(mktemp -d /tmp/osprof-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL (cannot run under CI): $*" >&2
		exit 1
	fi
	echo "skip: $*" >&2
	exit 77
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_btf() { [ -r /sys/kernel/btf/vmlinux ] || skip "needs kernel BTF"; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
# report_profiles [OPTIONS] FILE: `osprof report --json` without its first
# {"type":"meta",...} record, one profile per line; osprof's exit status.
report_profiles() {
	local out
	out=$("$OSPROF" report --json "$@") || return
	printf '%s\n' "$out" | grep -v '^{"type":"meta"'
}
