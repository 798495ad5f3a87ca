#!/usr/bin/env bash
# osprof rootcause, loops: in slow calls owner() runs its loop over step()
# 1500 times; each step is fast, so DARC's maximum-per-node rule must blame
# the loop's owner, not step (tests/progs/rc_misc.c loop). Both backends.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
rc_run_cmd "$TMP/t" --func "$PROGS/rc_misc:rc_loop" --backend trampoline --start-ops 300 \
	--json -- "$PROGS/rc_misc" loop 20 1500
rc_check_json "$TMP/t" "rc_loop;owner" trampoline
need_root
need_btf
rc_run_cmd "$TMP/u" --func "$PROGS/rc_misc_pie:rc_loop" --backend uprobe --start-ops 300 \
	--json -- "$PROGS/rc_misc_pie" loop 20 1500
rc_check_json "$TMP/u" "rc_loop;owner" uprobe
