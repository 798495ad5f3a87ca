#!/usr/bin/env bash
# osprof rootcause, trampoline backend (agent preloaded into a command osprof
# starts): the depth-6, fanout-4 tree of tests/progs/rc_tree.c must give
# exactly rc_root -> l1_2 -> l2_1 -> l3_3 -> l4_0 -> l5_2 -> l6_1 -> spin_us,
# for the non-PIE and the PIE build. Needs no privileges.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"

rc_run_cmd "$TMP/folded" --func "$PROGS/rc_tree:rc_root" --backend trampoline --start-ops 300 \
	--folded -- "$PROGS/rc_tree" 0 10 1500
rc_check_folded "$TMP/folded" "$RC_TREE_PATH"
grep -q "^peaks:" "$TMP/folded.err" || fail "no peak list printed"

rc_run_cmd "$TMP/json" --func "$PROGS/rc_tree_pie:rc_root" --start-ops 300 --json \
	-o "$TMP/rc.osp" -- "$PROGS/rc_tree_pie" 0 10 1500
rc_check_json "$TMP/json" "$RC_TREE_PATH" trampoline
# -o: the path as a profile with a path dimension, for osprof report/html.
"$OSPROF" report --summary "$TMP/rc.osp" >"$TMP/report" || fail "report of -o output"
grep -q "path=$RC_TREE_PATH peak=" "$TMP/report" || fail "no path profile: $(cat "$TMP/report")"
"$OSPROF" html -o "$TMP/rc.html" "$TMP/rc.osp" || fail "html of -o output"
grep -q "l5_2;l6_1;spin_us" "$TMP/rc.html" || fail "path missing from the HTML report"
