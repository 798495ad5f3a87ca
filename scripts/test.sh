#!/usr/bin/env bash
# The whole test suite, from a fresh clone, as root on Debian 12:
#   installs dependencies, builds (normal and ASan+UBSan), runs every unit and
#   shell test on the normal build, the unit tests and fuzz targets under
#   ASan+UBSan, and ends with one line "N passed, M failed, K skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
	scripts/install-deps.sh || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }
	# Debian 12's own kernel for the VM phase (tests/sh/vm_stock_kernel.sh);
	# a failure here shows up as that phase failing under CI.
	scripts/vm-setup.sh >/dev/null || echo "vm-setup.sh failed: the VM phase cannot run" >&2
fi
jobs=$(nproc 2>/dev/null || echo 2)
build_ok=1
make -s -j"$jobs" all || build_ok=0
make -s -j"$jobs" SAN=1 tests fuzz || build_ok=0
make -s -j"$jobs" fuzz || build_ok=0
if [ "$build_ok" -ne 1 ]; then
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

total_p=0 total_f=0 total_s=0
run_phase() { # NAME ARGS...
	local name=$1 log
	shift
	log=$(mktemp)
	echo "=== $name"
	tests/run.sh "$@" 2>&1 | tee "$log"
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	rm -f "$log"
	if [ -z "$line" ]; then
		total_f=$((total_f + 1))
		return
	fi
	read -r p _ f _ s _ <<<"$(echo "$line" | tr -d ',')"
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	total_s=$((total_s + ${s:-0}))
}
run_phase "normal build: unit and shell tests" "$PWD/build"
# The sanitizer phase reruns the unit tests only; shell tests use the normal
# build, except fuzz_smoke which runs the ASan+UBSan fuzz targets.
run_phase "ASan+UBSan build: unit tests" "$PWD/build-asan" --unit-only
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
