#!/usr/bin/env bash
# The main job on its built-in default, from a fresh clone, as root:
# installs dependencies, builds, profiles the bundled demo workload with the
# default layers (as root: system calls, file systems, block devices, locks;
# plus the user-level LD_PRELOAD layer) and prints the report.
# Usage: scripts/demo.sh [extra 'osprof run' options]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
	scripts/install-deps.sh
fi
make -s -j"$(nproc 2>/dev/null || echo 2)" all
out=${OSPROF_DEMO_OUT:-demo.osp}
# Characteristic times of this machine, once per host, so the report can say
# which peak is a cache hit, a disk read, a context switch...
calib=${OSPROF_CALIBRATION:-/var/lib/osprof/calibration-$(hostname).osp}
if [ ! -s "$calib" ] && [ -w "$(dirname "$calib")" -o "$(id -u)" -eq 0 ]; then
	mkdir -p "$(dirname "$calib")"
	build/osprof calibrate -q -o "$calib"
fi
layers=user
if [ "$(id -u)" -eq 0 ]; then
	layers=user,syscall,fs,block,lock # the root defaults plus the user level
fi
echo "osprof run -l $layers -o $out -- build/osprof-demo" >&2
build/osprof run -l "$layers" -o "$out" "$@" -- build/osprof-demo
build/osprof report --pct 50,99 "$out"
