#!/usr/bin/env bash
# osprof rootcause, tail calls: tail_mid ends with `jmp slow_leaf` (sibling
# call optimisation, tests/progs/rc_misc.c tail). The tail jump is found as a
# call site, timed until tail_mid's caller gets control back, and the path
# must be rc_tail -> tail_mid -> slow_leaf (uprobe backend; the trampoline
# backend does not patch tail jumps).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf
rc_run_cmd "$TMP/j" --func "$PROGS/rc_misc_pie:rc_tail" --backend uprobe --start-ops 300 --json \
	-- "$PROGS/rc_misc_pie" tail 10 1500
rc_check_json "$TMP/j" "rc_tail;tail_mid;slow_leaf" uprobe
grep -q '"name":"slow_leaf","kind":"call","site":"tail_mid+0x[0-9a-f]* (tail)"' "$TMP/j" ||
	fail "slow_leaf is not marked as reached by a tail jump"
