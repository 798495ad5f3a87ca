#!/usr/bin/env bash
# osprof rootcause, uprobe backend: in a call tree of depth 6 and fanout 4
# whose leaf l6_1 is slow in 10% of calls (tests/progs/rc_tree.c), the search
# must find exactly rc_root -> l1_2 -> l2_1 -> l3_3 -> l4_0 -> l5_2 -> l6_1
# (-> spin_us, the leaf's busy loop), attached with -p to a non-PIE binary and
# started with -- CMD for the PIE variant.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf

# Non-PIE, attached to a running process.
"$PROGS/rc_tree" 0 10 1500 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
rc=0
timeout 300 "$OSPROF" rootcause --func "$PROGS/rc_tree:rc_root" -p "$pid" --start-ops 300 \
	--decision-time 25 --folded >"$TMP/folded" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 0 ] || {
	cat "$TMP/err"
	fail "rootcause -p exited $rc"
}
kill "$pid"
grep -q "^peaks:" "$TMP/err" || fail "no peak list printed"
rc_check_folded "$TMP/folded" "$RC_TREE_PATH"

# PIE, started by osprof, JSON output.
rc_run_cmd "$TMP/json" --func "$PROGS/rc_tree_pie:rc_root" --backend uprobe --start-ops 300 \
	--decision-time 25 --json -- "$PROGS/rc_tree_pie" 0 10 1500
rc_check_json "$TMP/json" "$RC_TREE_PATH" uprobe
