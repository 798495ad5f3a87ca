#!/usr/bin/env bash
# osprof rootcause --syscall: a wake-up that comes from an interrupt is
# attributed to the interrupt, not to whatever task it interrupted. The slow
# peak of clock_nanosleep in tests/progs/rc_nap.c ends by a timer interrupt
# (hrtimer): the waker must be an IRQ or softirq, never a task name, and no
# path may be listed twice.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf

rc_run_cmd "$TMP/json" --syscall clock_nanosleep --start-ops 100 --json -- "$PROGS/rc_nap" 0
python3 - "$TMP/json" <<'PY' || fail "timer wake-up attribution"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"], d
off = [p for p in d["kernel_paths"] if p["kind"] == "off-CPU"]
top = max(off, key=lambda p: p["ns"])
assert top["waker_context"] in ("irq", "softirq"), top
assert top["waker"].startswith("IRQ") or top["waker"].startswith("softirq"), top["waker"]
keys = [(p["kind"], p["status"], tuple(p["stack"]), p["waker"], tuple(p["waker_stack"]))
        for p in d["kernel_paths"]]
assert len(keys) == len(set(keys)), "a path is listed twice"
PY
"$OSPROF" rootcause --syscall clock_nanosleep --start-ops 100 -q -- "$PROGS/rc_nap" 1500 \
	>"$TMP/text" 2>"$TMP/text.err" || fail "text run: $(cat "$TMP/text.err")"
grep -q "woken by \(IRQ\|softirq\)" "$TMP/text" || fail "no interrupt waker: $(cat "$TMP/text")"
