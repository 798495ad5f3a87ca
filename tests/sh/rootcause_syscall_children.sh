#!/usr/bin/env bash
# osprof rootcause --syscall NAME -- CMD follows the processes CMD starts:
# CMD is a shell that runs tests/progs/rc_lock as a child (fork + exec, not
# exec), and the futex(2) calls of that child must be profiled and
# attributed (before the fix: "0 of 100 calls").
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf

rc_run_cmd "$TMP/json" --syscall futex --start-ops 100 --json -- \
	sh -c '"$@"; echo "wrapper: child exited $?"' sh "$PROGS/rc_lock" 500 0
grep -q "wrapper: child exited" "$TMP/json.err" || fail "the shell did not run to its end"
python3 - "$TMP/json" <<'PY' || fail "futex attribution through a shell"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["finished"] and d["in_peak_calls"] == 50, d["in_peak_calls"]
assert sum(d["histogram"]["buckets"]) >= 100, d["histogram"]
top = max(d["kernel_paths"], key=lambda p: p["ns"])
assert any(f.startswith("futex_wait") for f in top["stack"]), top["stack"]
PY
