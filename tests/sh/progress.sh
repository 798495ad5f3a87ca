#!/usr/bin/env bash
# Progress lines on stderr: shown when stderr is a terminal (script(1) gives
# the command a pseudo-terminal), absent when it is a pipe or a file and
# with -q. run (elapsed, CMD), trace record (events, events/s, drops, bytes
# written; as root with BTF), rootcause (depth and node of the search).
. "$(dirname "$0")/../lib.sh"
command -v script >/dev/null || skip "script missing (util-linux)"
# tty CMD...: runs CMD on a pseudo-terminal; its output (stdout and stderr,
# as the terminal saw them) goes to $TMP/tty.
tty() {
	local q=()
	for a in "$@"; do q+=("$(printf '%q' "$a")"); done
	script -qec "${q[*]}" /dev/null </dev/null >"$TMP/tty" 2>&1
}

# run: the line on a terminal, erased (ESC[K) before the final message.
tty "$OSPROF" run -l user -o "$TMP/a.osp" -- cat /etc/hostname || fail "run on a terminal exited $?"
grep -aq 'osprof run: [0-9.]*s elapsed, profiling cat (pid [0-9]*)' "$TMP/tty" ||
	fail "no progress line on a terminal: $(od -c "$TMP/tty" | head)"
grep -aq $'\r\033\\[Kosprof: [0-9]* profiles written' "$TMP/tty" || fail "progress line not erased"
# A pipe, a file, -q: none.
"$OSPROF" run -l user -o "$TMP/a.osp" -- cat /etc/hostname 2>&1 >/dev/null | cat >"$TMP/pipe"
grep -aq 'elapsed' "$TMP/pipe" && fail "progress on a pipe: $(cat "$TMP/pipe")"
grep -aq $'\r' "$TMP/pipe" && fail "carriage return on a pipe"
grep -q 'profiles written' "$TMP/pipe" || fail "final message missing on a pipe"
tty "$OSPROF" run -q -l user -o "$TMP/a.osp" -- cat /etc/hostname || fail "run -q exited $?"
grep -aq 'elapsed' "$TMP/tty" && fail "progress despite -q: $(cat "$TMP/tty")"

# rootcause (trampoline backend, no root): the search shows depth and node.
RC=$PROGS/rc_tree
if [ -x "$RC" ] && [ -r "$BUILD/libosprof-darc-agent.so" ]; then
	tty "$OSPROF" rootcause --func "$RC:rc_root" --max-depth 2 --start-ops 300 --backend trampoline -- "$RC" 5000 10 1500 || true
	grep -aq 'osprof rootcause: [0-9.]*s elapsed, profiling f0: [0-9]* of [0-9]* calls' "$TMP/tty" ||
		fail "no f0 progress: $(tail -c 600 "$TMP/tty")"
	grep -aEq 'osprof rootcause: [0-9.]*s elapsed, (depth [0-9]+ of 2, node [^ ]+|search finishing)' "$TMP/tty" ||
		fail "no search progress: $(tail -c 600 "$TMP/tty")"
	"$OSPROF" rootcause --func "$RC:rc_root" --max-depth 2 --start-ops 300 --backend trampoline -- "$RC" 5000 10 1500 2>"$TMP/rcerr" >/dev/null || true
	grep -aq 'elapsed' "$TMP/rcerr" && fail "rootcause progress on a file"
fi

# trace record (root, BTF): events, rate, drops and bytes written.
if [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	tty "$OSPROF" trace record -w "$TMP/t" -- cat /etc/hostname || fail "trace record exited $?"
	grep -aEq 'osprof trace record: [0-9.]+s elapsed, [0-9]+ events \([0-9]+/s\), [0-9]+ dropped, [0-9.]+ (B|KiB|MiB) written' "$TMP/tty" ||
		fail "no trace progress: $(od -c "$TMP/tty" | head -20)"
	"$OSPROF" trace record -w "$TMP/t2" -- cat /etc/hostname 2>"$TMP/terr" >/dev/null || fail "trace record (file)"
	grep -aq 'elapsed' "$TMP/terr" && fail "trace progress on a file"
	tty "$OSPROF" trace record -q -w "$TMP/t3" -- cat /etc/hostname || fail "trace record -q"
	grep -aq 'elapsed' "$TMP/tty" && fail "trace progress despite -q"
elif [ "${CI:-}" = true ]; then
	fail "trace record progress needs root and BTF under CI"
fi
true
