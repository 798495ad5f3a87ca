#!/usr/bin/env bash
# osprof rootcause, trampoline backend on functions that start with what a
# plain prologue copy cannot run elsewhere (tests/progs/rcx_entry.c, -O2 and
# -O2 -fcf-protection): f0 starting with (a) a call, (b) a tail jump, (c)
# cmp + jcc, (d) a RIP-relative load, (e) endbr64 + each, and a slow path
# through the same cases. The default backend must find the exact path with
# every node on a trampoline. rcx_f0_back (a loop into its first bytes, an
# indirect call) must still find it, with f0 on a breakpoint and that call
# on the uprobe fallback (osprof as root), or on a breakpoint when osprof is
# not root (run as nobody: the output says why), the nodes below it on
# trampolines either way.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"

CHAIN="rcx_a;rcx_b;rcx_c;rcx_d;rcx_spin"
# check_probes JSON WANT_F0 WANT_BREAK_NODES [WANT_UPROBE_NODES]: how f0 and
# each node were probed
check_probes() {
	python3 - "$@" <<'PY' || fail "probes of $1"
import json, sys
d = json.load(open(sys.argv[1]))
want_f0 = sys.argv[2]
want = {"breakpoint": set(sys.argv[3].split(",")) - {""},
        "uprobe": set((sys.argv[4] if len(sys.argv) > 4 else "").split(",")) - {""}}
assert d["tree"]["probe"] == want_f0, d["tree"]["probe"]
got = {"breakpoint": set(), "uprobe": set()}
def walk(n):
    if n["kind"] == "call" and n["probe"] in got:
        got[n["probe"]].add(n["name"].split(" ")[0])
    for k in n["children"]:
        walk(k)
walk(d["tree"])
assert got == want, (got, want)
for how in want:
    assert want[how] or d["probes"].get(how, 0) == 0, d["probes"]
PY
}

# back_path JSON: rcx_f0_back's main chain is the slow path.
back_path() {
	python3 - "$1" <<'PY' || fail "rcx_f0_back path"
import json, sys
d = json.load(open(sys.argv[1]))
n, path = d["tree"], []
while n:
    path.append(n["name"].split(" ")[0])
    kids = [k for k in n["children"] if k["status"] != "not a main contributor"]
    n = max(kids, key=lambda k: k["maxcount"]) if kids else None
assert path[:6] == "rcx_f0_back rcx_a rcx_b rcx_c rcx_d rcx_spin".split(), path
PY
}

# first_insns BIN FUNC: the mnemonics (and operands) of FUNC's first two
# instructions after an endbr64, from objdump.
first_insns() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { on = 1; next }
		on && /^$/ { exit }
		on && $2 != "endbr64" { n++; printf "%s %s;", $2, $3; if (n == 2) exit }'
}

for build in o2 cet; do
	P=$PROGS/rcx_entry_$build
	if [ "$build" = cet ]; then
		objdump -d "$P" | grep -A1 "<rcx_f0_call>:" | grep -q endbr64 ||
			fail "$P: no endbr64 at f0"
	fi
	# Each case is what the function starts with (after endbr64 in cet).
	for want in "rcx_f0_call:^call " "rcx_f0_jmp:^jmp " "rcx_f0_jcc:^cmp [^;]*;j[a-z]+ " \
		"rcx_f0_rip:^mov [^;]*\(%rip\)" "rcx_a:^call " "rcx_b:^jmp " \
		"rcx_c:^cmp [^;]*;j[a-z]+ " "rcx_d:^mov [^;]*\(%rip\)"; do
		got=$(first_insns "$P" "${want%%:*}")
		[[ $got =~ ${want#*:} ]] || fail "$P: ${want%%:*} starts with '$got'"
	done
	for f0 in call jmp jcc rip; do
		out=$TMP/$build.$f0
		rc_run_cmd "$out" --func "$P:rcx_f0_$f0" --start-ops 300 --json -- "$P" "$f0" 0 20 1500
		path="rcx_f0_$f0;$CHAIN"
		[ "$f0" = jmp ] && path="rcx_f0_jmp;rcx_f0_call;$CHAIN"
		rc_check_json "$out" "$path" trampoline
		check_probes "$out" trampoline ""
	done
	out=$TMP/$build.back
	rc_run_cmd "$out" --func "$P:rcx_f0_back" --start-ops 300 --json -- "$P" back 0 20 1500
	grep -q "f0 hooked with a breakpoint.*branches into the first" "$out.err" ||
		fail "no reason for f0's breakpoint: $(cat "$out.err")"
	back_path "$out"
	if [ "$(id -u)" -eq 0 ]; then
		check_probes "$out" breakpoint "" rcx_a
		grep -q '"fallback":"uprobe"' "$out" || fail "no uprobe fallback in $out"
	else
		check_probes "$out" breakpoint rcx_a
	fi
done

# Not root: the breakpoint fallback, and the output says why.
if [ "$(id -u)" -eq 0 ]; then
	chmod 711 "$TMP" # the program's stop file, seen by nobody
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %s "$@"\n' \
		"$OSPROF" >"$TMP/osprof-nobody"
	chmod 755 "$TMP/osprof-nobody"
	out=$TMP/nobody.back
	OSPROF=$TMP/osprof-nobody rc_run_cmd "$out" --func "$PROGS/rcx_entry_o2:rcx_f0_back" \
		--start-ops 300 --json -- "$PROGS/rcx_entry_o2" back 0 20 1500
	back_path "$out"
	check_probes "$out" breakpoint rcx_a
	grep -q '"fallback":"breakpoint: uprobes need root"' "$out" ||
		fail "no reason for the breakpoints in $out"
fi
