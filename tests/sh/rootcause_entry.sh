#!/usr/bin/env bash
# osprof rootcause, trampoline backend on functions that start with what a
# plain prologue copy cannot run elsewhere (tests/progs/rcx_entry.c, -O2 and
# -O2 -fcf-protection): f0 starting with (a) a call, (b) a tail jump, (c)
# cmp + jcc, (d) a RIP-relative load, (e) endbr64 + each, and a slow path
# through the same cases. The default backend must find the exact path with
# every node on a trampoline. rcx_f0_back (a loop into its first bytes, an
# indirect call: the fallbacks) is tests/sh/rootcause_fallback.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib/rootcause.sh"
[ -r "$BUILD/libosprof-darc-agent.so" ] || fail "agent not built"

CHAIN="rcx_a;rcx_b;rcx_c;rcx_d;rcx_spin"
# all_trampolines JSON: f0 and every node probed by trampoline
all_trampolines() {
	python3 - "$1" <<'PY' || fail "probes of $1"
import json, sys
d = json.load(open(sys.argv[1]))
def walk(n):
    assert n["probe"] == "trampoline", (n["name"], n["probe"])
    for k in n["children"]:
        walk(k)
walk(d["tree"])
assert d["probes"]["breakpoint"] == 0 and d["probes"]["uprobe"] == 0, d["probes"]
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
		all_trampolines "$out"
	done
done
