#!/usr/bin/env bash
# osprof rootcause --func --backend uprobe with -- CMD where CMD is a shell
# script that starts the real program as a child (fork + exec): the uprobes
# are attached by binary and the BPF side follows CMD's forks and execs (the
# follow map of `osprof run`), so the search runs in the program's address
# space and finds the exact path (rc_tail -> tail_mid -> slow_leaf, as in
# rootcause_tail); a second copy of the program that is not a descendant of
# CMD runs f0 meanwhile and is not counted.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
need_root
need_btf
P=$PROGS/rc_misc_pie
cat >"$TMP/wrap.sh" <<'SH'
#!/bin/sh
echo "wrapper starting"
"$@"
echo "wrapper done, status $?"
SH
chmod +x "$TMP/wrap.sh"
# The outsider: the same binary calling f0 (never slowly), started first, at
# the lowest priority; followed, it would be the process searched (another
# PIE bias) and its calls would fill the histogram.
nice -n 19 "$P" tail 0 1500 "$TMP/outsider.stop" >/dev/null 2>&1 &
outsider=$!
trap 'touch "$TMP/outsider.stop"; kill "$outsider" 2>/dev/null; wait "$outsider" 2>/dev/null
rm -rf "$TMP"' EXIT

rc_run_cmd "$TMP/j" --func "$P:rc_tail" --backend uprobe --start-ops 300 -v --json -- \
	"$TMP/wrap.sh" "$P" tail 10 1500
rc_check_json "$TMP/j" "rc_tail;tail_mid;slow_leaf" uprobe
grep -q "f0 runs in pid [0-9]*, a descendant of CMD" "$TMP/j.err" ||
	fail "the search did not move to the child: $(cat "$TMP/j.err")"
grep -q "^wrapper starting" "$TMP/j.err" || fail "the script's output is lost"
