#!/usr/bin/env bash
# The main job on its built-in default, from a fresh clone, as root:
# installs dependencies, builds, profiles the bundled demo workload with the
# default layers (as root: system calls, file systems, block devices, locks;
# plus the user-level LD_PRELOAD layer) and prints the report.
# The installer's and the build's output go to log files (build/demo-*.log);
# each step prints one line, so the report is what fills the screen.
# Usage: scripts/demo.sh [extra 'osprof run' options]
# Environment: OSPROF_DEMO_OUT (profile set, default demo.osp),
# OSPROF_CALIBRATION; for tests: OSPROF_DEMO_INSTALL (installer command),
# OSPROF_DEMO_BUILD (build directory, default build), OSPROF_DEMO_LOGDIR
# (default: the build directory), OSPROF_DEMO_NOBUILD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${OSPROF_DEMO_BUILD:-build}
logdir=${OSPROF_DEMO_LOGDIR:-$bdir}
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)

# step NAME LOG CMD...: runs CMD with its output in LOG; prints one line,
# or the end of LOG and exits when CMD fails.
step() {
	local name=$1 log=$2 start=$SECONDS
	shift 2
	if "$@" >"$log" 2>&1; then
		local n
		n=$(grep -c '^Setting up ' "$log" || true)
		if [ "$n" -gt 0 ]; then
			echo "demo: $name: ok, $n packages set up in $((SECONDS - start))s (log: $log)" >&2
		else
			echo "demo: $name: ok in $((SECONDS - start))s (log: $log)" >&2
		fi
	else
		local rc=$?
		echo "demo: $name: FAILED (exit $rc); last lines of $log:" >&2
		tail -n 20 "$log" >&2
		exit "$rc"
	fi
}

if [ "$(id -u)" -eq 0 ] || [ -n "${OSPROF_DEMO_INSTALL:-}" ]; then
	# shellcheck disable=SC2086
	step dependencies "$logdir/demo-install.log" ${OSPROF_DEMO_INSTALL:-scripts/install-deps.sh}
fi
if [ "${OSPROF_DEMO_NOBUILD:-0}" != 1 ]; then
	step build "$logdir/demo-build.log" make -s -j"$(nproc 2>/dev/null || echo 2)" BUILD="$bdir" all
fi
out=${OSPROF_DEMO_OUT:-demo.osp}
# Characteristic times of this machine, once per host, so the report can say
# which peak is a cache hit, a disk read, a context switch...
calib=${OSPROF_CALIBRATION:-/var/lib/osprof/calibration-$(hostname).osp}
if [ ! -s "$calib" ] && { [ -w "$(dirname "$calib")" ] || [ "$(id -u)" -eq 0 ]; }; then
	mkdir -p "$(dirname "$calib")"
	"$bdir/osprof" calibrate -q -o "$calib"
fi
layers=user
if [ "$(id -u)" -eq 0 ]; then
	layers=user,syscall,fs,block,lock # the root defaults plus the user level
fi
echo "demo: osprof run -l $layers -o $out -- $bdir/osprof-demo" >&2
"$bdir/osprof" run -q -l "$layers" -o "$out" "$@" -- "$bdir/osprof-demo"
"$bdir/osprof" report --pct 50,99 "$out"
