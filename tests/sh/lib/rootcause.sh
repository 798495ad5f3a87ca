# Helpers of the tests/sh/rootcause_*.sh scripts and of
# bench/rootcause_search.sh (sourced; not a test).
RC_TREE_PATH="rc_root;l1_2;l2_1;l3_3;l4_0;l5_2;l6_1;spin_us"

# rc_check_folded FILE PATH: PATH is the heaviest folded stack. On a busy
# machine the slow leaf's busy wait is often preempted by other jobs, so the
# path may end in a [preemption] node below the leaf: still the exact path.
rc_check_folded() {
	local top
	top=$(sort -k2 -n -r "$1" | head -n 1 | cut -d' ' -f1)
	[ "$top" = "$2;[preemption]" ] && return 0
	expect_eq "heaviest root-cause path" "$top" "$2"
}

# rc_stop_when_out PID ERR STOP: once osprof rootcause (PID, its stderr in
# ERR) says that the result is out and it waits for CMD, stops CMD through
# its stop file STOP; returns osprof's exit status.
rc_stop_when_out() {
	local i
	for ((i = 0; i < 3000; i++)); do
		grep -q "waiting for the command" "$2" 2>/dev/null && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	touch "$3"
	wait "$1"
}

# rc_run_cmd OUT ARGS... -- PROG ARGS: runs osprof rootcause on a program
# osprof starts and stops the program (through its stop file, the last
# argument added here) once the result is out.
rc_run_cmd() {
	local out=$1 stop=$TMP/stop.$RANDOM
	shift
	timeout 300 "$OSPROF" rootcause "$@" "$stop" >"$out" 2>"$out.err" &
	local rc=0
	rc_stop_when_out $! "$out.err" "$stop" || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$out.err" >&2
		fail "osprof rootcause $* exited $rc"
	fi
}

# rc_check_json FILE PATH BACKEND: the JSON tree's main chain is PATH and
# ends in "root cause found".
rc_check_json() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "JSON path check"
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2].split(";")
assert d["finished"] and d["backend"] == sys.argv[3], d
n, path = d["tree"], []
while True:
    path.append(n["name"])
    kids = [k for k in n["children"] if k["status"] != "not a main contributor"]
    if not kids:
        break
    n = max(kids, key=lambda k: k["maxcount"])
if path == want + ["[preemption]"]:  # see rc_check_folded
    sys.exit(0)
assert path == want, path
assert n["status"] == "root cause found", n
PY
}
