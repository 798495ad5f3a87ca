#!/usr/bin/env bash
# osprof rootcause --syscall, lock contention: two threads of
# tests/progs/rc_lock.c take turns on one mutex held for 500 us, so futex(2)
# waits on the other thread. The kernel-side attribution must put the peak on
# the blocked path through futex_wait, woken from futex_wake by rc_lock.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf

rc_run_cmd "$TMP/json" --syscall futex --start-ops 100 --json -- "$PROGS/rc_lock" 500 0
python3 - "$TMP/json" <<'PY' || fail "futex attribution"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"] and d["backend"] == "kernel" and d["in_peak_calls"] == 50, d
top = max(d["kernel_paths"], key=lambda p: p["ns"])
assert top["kind"] == "off-CPU" and top["share"] > 0.5, top
assert any(f.startswith("futex_wait") for f in top["stack"]), top["stack"]
assert top["stack"][-1] in ("__schedule", "schedule"), top["stack"]
assert top["waker"] == "rc_lock", top
assert any(f.startswith("futex_wake") for f in top["waker_stack"]), top["waker_stack"]
# A wait in futex_wait dominates more in-peak calls than anything else (the
# same path may be split by different waker stacks; on a busy machine some
# calls are dominated by preemption instead).
def key(p):
    if p["kind"] == "off-CPU" and any(f.startswith("futex_wait") for f in p["stack"]):
        return "futex_wait"
    return p["kind"]
votes = {}
for p in d["kernel_paths"]:
    votes[key(p)] = votes.get(key(p), 0) + p["votes"]
votes["unaccounted"] = d["unaccounted_votes"]
assert max(votes, key=votes.get) == "futex_wait", votes
PY
