#!/usr/bin/env bash
# osprof rootcause, indirect calls: rc_fnptr calls its ops through function
# pointers and op_slow is the cause (tests/progs/rc_misc.c fnptr). The
# target is resolved at run time and the node is named after it.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf
rc_run_cmd "$TMP/f" --func "$PROGS/rc_misc_pie:rc_fnptr" --backend uprobe --start-ops 300 \
	--folded -- "$PROGS/rc_misc_pie" fnptr 10 1500
top=$(sort -k2 -n -r "$TMP/f" | head -n 1 | cut -d' ' -f1)
case $top in
# On a busy machine the slow leaf may end in [preemption] (see rc_check_folded).
"rc_fnptr;op_slow_[via_*(call_"*")]" | "rc_fnptr;op_slow_[via_*(call_"*")];[preemption]") ;;
*) fail "heaviest path '$top' is not rc_fnptr -> op_slow through a pointer" ;;
esac
