#!/usr/bin/env bash
# osprof rootcause keeps the target's output out of its structured output:
# with a target that prints a line per call on stdout and stderr, --json
# parses, --folded holds only folded stacks (the flamegraph.pl pipe), the
# target's lines reach osprof's stderr instead, and --target-output FILE
# collects both of the target's streams in FILE.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"
P=$PROGS/rcx_entry_o2
export RCX_CHATTY=1

rc_run_cmd "$TMP/json" --func "$P:rcx_f0_call" --start-ops 300 --json -- "$P" call 0 20 1500
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/json" ||
	fail "--json output does not parse: $(head -c 300 "$TMP/json")"
rc_check_json "$TMP/json" "rcx_f0_call;rcx_a;rcx_b;rcx_c;rcx_d;rcx_spin" trampoline
grep -q "^rcx stdout " "$TMP/json.err" || fail "the target's stdout did not reach stderr"

rc_run_cmd "$TMP/folded" --func "$P:rcx_f0_call" --start-ops 300 --folded -o "$TMP/rc.osp" -- \
	"$P" call 0 20 1500
[ -s "$TMP/folded" ] || fail "no folded output"
bad=$(grep -cvE '^[^ ]+ [0-9]+$' "$TMP/folded" || true)
expect_eq "non-folded lines in --folded output" "$bad" 0
rc_check_folded "$TMP/folded" "rcx_f0_call;rcx_a;rcx_b;rcx_c;rcx_d;rcx_spin"
# The README's html pipe: the tree holds the path, no line of program output.
"$OSPROF" html -o "$TMP/rc.html" --rootcause "$TMP/folded" "$TMP/rc.osp" || fail "html --rootcause"
grep -q "rcx_d;rcx_spin\|rcx_spin" "$TMP/rc.html" || fail "path missing from the HTML report"
if grep -q "rcx stdout\|rcx stderr" "$TMP/rc.html"; then
	fail "program output in the HTML root-cause tree"
fi

rc_run_cmd "$TMP/tree" --func "$P:rcx_f0_call" --start-ops 300 --target-output "$TMP/target.out" \
	-- "$P" call 0 20 1500
grep -q "^rcx stdout " "$TMP/target.out" || fail "--target-output lacks the target's stdout"
grep -q "^rcx stderr " "$TMP/target.out" || fail "--target-output lacks the target's stderr"
if grep -q "^rcx std" "$TMP/tree" "$TMP/tree.err"; then
	fail "target output leaked next to --target-output"
fi
grep -q "rcx_spin" "$TMP/tree" || fail "no tree printed: $(cat "$TMP/tree")"

# Bad --target-output: one line naming the flag, exit 2, nothing started.
rc=0
"$OSPROF" rootcause --func "$P:rcx_f0_call" --target-output "$TMP/no/such/dir/out" -- "$P" call 1 0 1 \
	>"$TMP/bad" 2>&1 || rc=$?
expect_eq "exit status of a bad --target-output" "$rc" 2
grep -q -- "--target-output" "$TMP/bad" || fail "no line naming --target-output: $(cat "$TMP/bad")"
rc=0
"$OSPROF" rootcause --func "$P:rcx_f0_call" --target-output "$TMP/x" -p 1 >"$TMP/bad" 2>&1 || rc=$?
expect_eq "exit status of --target-output with -p" "$rc" 2
