#!/usr/bin/env bash
# osprof rootcause, recursion: rc_recur -> rec -> rec -> rec -> rec -> rec ->
# slow_leaf (tests/progs/rc_misc.c recur). Each recursion level is its own
# ftree node (seed 002 §3.11), so the chain must show five rec nodes.
# Trampoline backend on the PIE build, then uprobes on the non-PIE one.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
want="rc_recur;rec;rec;rec;rec;rec;slow_leaf"
rc_run_cmd "$TMP/t" --func "$PROGS/rc_misc_pie:rc_recur" --backend trampoline --start-ops 300 \
	--folded -- "$PROGS/rc_misc_pie" recur 10 1500
rc_check_folded "$TMP/t" "$want"
need_root
need_btf
rc_run_cmd "$TMP/u" --func "$PROGS/rc_misc:rc_recur" --backend uprobe --start-ops 300 \
	--folded -- "$PROGS/rc_misc" recur 10 1500
rc_check_folded "$TMP/u" "$want"
