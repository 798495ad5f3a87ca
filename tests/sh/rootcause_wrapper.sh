#!/usr/bin/env bash
# osprof rootcause --func with -- CMD where CMD is a shell script that starts
# the real program as a child (fork + exec, not exec): the trampoline agent
# follows into the program f0 lives in and the search finds the exact path;
# the script's own output stays out of --folded.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"
P=$PROGS/rcx_entry_o2
cat >"$TMP/wrap.sh" <<'SH'
#!/bin/sh
echo "wrapper starting"
"$@"
echo "wrapper done, status $?"
SH
chmod +x "$TMP/wrap.sh"

rc_run_cmd "$TMP/folded" --func "$P:rcx_f0_jcc" --start-ops 300 -v --folded -- \
	"$TMP/wrap.sh" "$P" jcc 0 20 1500
rc_check_folded "$TMP/folded" "rcx_f0_jcc;rcx_a;rcx_b;rcx_c;rcx_d;rcx_spin"
grep -q "f0 runs in pid [0-9]*, a descendant of CMD" "$TMP/folded.err" ||
	fail "the search did not move to the child: $(cat "$TMP/folded.err")"
grep -q "^wrapper starting" "$TMP/folded.err" || fail "the script's output is lost"
