#!/usr/bin/env bash
# osprof rootcause, preemption: rc_pre -> compute -> work is a fixed amount of
# CPU work, slow only when a CPU hog on the same CPU takes the CPU away
# (tests/progs/rc_misc.c preempt + hog, both pinned to one CPU). The path
# must end in the [preemption] pseudo node.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf
cpu=$(($(nproc) - 1))
taskset -c "$cpu" "$PROGS/rc_misc" hog 0 0 "$TMP/stop.hog" &
hog=$!
trap 'touch "$TMP/stop.hog"; wait $hog; rm -rf "$TMP"' EXIT
rc_run_cmd "$TMP/p" --func "$PROGS/rc_misc:rc_pre" --backend uprobe --start-ops 200 --folded \
	-- taskset -c "$cpu" "$PROGS/rc_misc" preempt 10 0
rc_check_folded "$TMP/p" "rc_pre;compute;work;[preemption]"
