#!/usr/bin/env bash
# osprof rootcause, loops: in slow calls owner() runs its loop over step()
# 150 times instead of 5; each step takes the same time either way, so DARC's
# maximum-per-node rule must blame the loop's owner, not step
# (tests/progs/rc_misc.c loop). Both backends. With uprobes the 300 probe
# hits of a slow call also get it preempted on a busy machine, so there the
# owner may end in [preemption]; step must never be chosen.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
rc_run_cmd "$TMP/t" --func "$PROGS/rc_misc:rc_loop" --backend trampoline --start-ops 300 \
	--json -- "$PROGS/rc_misc" loop 20 1500
rc_check_json "$TMP/t" "rc_loop;owner" trampoline
need_root
need_btf
# 150 timed steps cost a few ms of uprobes: 20 ms slow calls stay in their
# log2 bucket while they are measured.
rc_run_cmd "$TMP/u" --func "$PROGS/rc_misc_pie:rc_loop" --backend uprobe --start-ops 300 \
	--json -- "$PROGS/rc_misc_pie" loop 20 20000
python3 - "$TMP/u" <<'PY' || fail "uprobe loop path"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"], d
kids = [k for k in d["tree"]["children"] if k["status"] != "not a main contributor"]
assert [k["name"] for k in kids] == ["owner"], [k["name"] for k in kids]
owner = kids[0]
chosen = [k["name"] for k in owner["children"] if k["status"] != "not a main contributor"]
assert "step" not in chosen, chosen
assert owner["status"] == "root cause found" or chosen == ["[preemption]"], owner
PY
