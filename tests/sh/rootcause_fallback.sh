#!/usr/bin/env bash
# osprof rootcause's trampoline backend where no jump fits
# (tests/progs/rcx_entry.c back: f0 loops into its first bytes, and calls
# rcx_a through a register). f0 gets a breakpoint; the indirect call gets the
# uprobe fallback when osprof is root (its times reach the agent through the
# BPF cells) and a breakpoint when it is not (run as nobody: the output says
# why); either way the search finds the exact path, with the nodes below the
# uprobe-timed call on trampolines (the nesting holds across both kinds of
# probe).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"
need_root
need_btf
P=$PROGS/rcx_entry_o2

# check JSON F0_PROBE RCX_A_PROBE FALLBACK: the exact path, how f0 and rcx_a
# were probed (the chain below rcx_a on trampolines) and the fallback note.
check() {
	python3 - "$@" <<'PY' || fail "$1 (its stderr: $1.err)"
import json, sys
path, want_f0, want_a, fallback = sys.argv[1:]
d = json.load(open(path))
assert d["finished"] and d["backend"] == "trampoline", d["finished"]
assert d["fallback"] == fallback, d["fallback"]
n, names, probes = d["tree"], [], []
while n:
    names.append(n["name"].split(" ")[0])
    probes.append(n["probe"])
    kids = [k for k in n["children"] if k["status"] != "not a main contributor"]
    n = max(kids, key=lambda k: k["maxcount"]) if kids else None
assert names[:6] == "rcx_f0_back rcx_a rcx_b rcx_c rcx_d rcx_spin".split(), (names, d["peak"])
assert probes[:6] == [want_f0, want_a] + ["trampoline"] * 4, probes
other = "breakpoint" if want_a == "uprobe" else "uprobe"
assert d["probes"][want_a] >= 1 and d["probes"][other] == 0, d["probes"]
PY
}

# -O2, and -O2 -fcf-protection (endbr64 first).
for build in o2 cet; do
	out=$TMP/root.$build
	rc_run_cmd "$out" --func "$PROGS/rcx_entry_$build:rcx_f0_back" --start-ops 300 --json -- \
		"$PROGS/rcx_entry_$build" back 0 20 1500
	grep -q "f0 hooked with a breakpoint.*branches into the first" "$out.err" ||
		fail "no reason for f0's breakpoint: $(cat "$out.err")"
	check "$out" breakpoint uprobe uprobe
done

# The tree marks the node and counts the probes by kind.
rc_run_cmd "$TMP/tree" --func "$P:rcx_f0_back" --start-ops 300 -- "$P" back 0 20 1500
grep -q "^   -> rcx_a .*(at rcx_f0_back+0x[0-9a-f]*, uprobe)" "$TMP/tree" ||
	fail "rcx_a not marked uprobe: $(cat "$TMP/tree")"
grep -q "^call sites timed: [0-9]* by trampoline, [1-9][0-9]* by uprobe, 0 by breakpoint; f0 by breakpoint; where no jump fits: uprobe$" "$TMP/tree" ||
	fail "no probe counts: $(cat "$TMP/tree")"

# Not root: breakpoints, and why.
chmod 711 "$TMP" # the program's stop file, seen by nobody
printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %s "$@"\n' \
	"$OSPROF" >"$TMP/osprof-nobody"
chmod 755 "$TMP/osprof-nobody"
OSPROF=$TMP/osprof-nobody rc_run_cmd "$TMP/nobody" --func "$P:rcx_f0_back" --start-ops 300 \
	--json -- "$P" back 0 20 1500
check "$TMP/nobody" breakpoint breakpoint "breakpoint: uprobes need root"
