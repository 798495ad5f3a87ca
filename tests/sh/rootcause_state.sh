#!/usr/bin/env bash
# osprof rootcause --state (seed 002 §3.10): a search cut at --max-depth 3
# saves its ftree; a second run resumes it (checking f0's profile by EMD),
# keeps the decided levels and finishes the path. A run whose f0 profile
# has changed must refuse to resume. Trampoline backend: no privileges.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
st=$TMP/state
rc_run_cmd "$TMP/a" --func "$PROGS/rc_tree:rc_root" --start-ops 300 --max-depth 3 --state "$st" \
	--json -- "$PROGS/rc_tree" 0 10 1500
[ -s "$st" ] || fail "no state file written"
rc_run_cmd "$TMP/b" --func "$PROGS/rc_tree:rc_root" --start-ops 300 --state "$st" --json \
	-- "$PROGS/rc_tree" 0 10 1500
grep -q "resuming $st: EMD" "$TMP/b.err" || fail "second run did not resume"
python3 - "$TMP/a" "$TMP/b" "$RC_TREE_PATH" <<'PY' || fail "resumed tree"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
want = sys.argv[3].split(";")
def chain(d):
    n, out = d["tree"], []
    while True:
        out.append(n)
        kids = [k for k in n["children"] if k["status"] not in ("not a main contributor", "measured")]
        if not kids:
            return out
        n = max(kids, key=lambda k: k["maxcount"])
ca, cb = chain(a), chain(b)
assert [n["name"] for n in ca] == want[:4], [n["name"] for n in ca]
assert ca[-1]["status"] == "maximum depth", ca[-1]
assert [n["name"] for n in cb] == want, [n["name"] for n in cb]
assert cb[-1]["status"] == "root cause found", cb[-1]
# the levels decided by the first run are kept, votes and all
for x, y in zip(ca[:3], cb[:3]):
    assert x["maxcount"] == y["maxcount"] and x["votes"] == y["votes"], (x, y)
PY
# A different profile (60% of calls slow by 6 ms) must not resume.
timeout 120 "$OSPROF" rootcause --func "$PROGS/rc_tree:rc_root" --start-ops 300 --state "$st" \
	-- "$PROGS/rc_tree" 3000 60 6000 >"$TMP/c" 2>"$TMP/c.err" && fail "resumed a changed profile"
grep -q "profile changed" "$TMP/c.err" || fail "no EMD refusal: $(cat "$TMP/c.err")"
