#!/usr/bin/env bash
# osprof rootcause command line: --help, and one clear line plus exit status 2
# for each kind of bad input (naming the flag or file).
source "$(dirname "$0")/../lib.sh"
"$OSPROF" rootcause --help >"$TMP/help" || fail "--help exit status"
grep -q -- "--decision-time N" "$TMP/help" || fail "--help lacks the search options"

bad() { # WANT_TEXT ARGS...
	local want=$1 rc=0
	shift
	"$OSPROF" rootcause "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	expect_eq "exit status of rootcause $*" "$rc" 2
	grep -q -- "$want" "$TMP/err" || fail "rootcause $*: no '$want' in: $(cat "$TMP/err")"
}
T="$PROGS/rc_tree"
bad "exactly one of --func" -p 1
bad "exactly one of --func" --func "$T:rc_root" --syscall read -p 1
bad "exactly one of -p PID" --func "$T:rc_root"
bad "exactly one of -p PID" --func "$T:rc_root" -p 1 -- true
bad "is not BIN:SYM" --func nocolon -p 1
bad "no function 'nosuch'" --func "$T:nosuch" -p 1
bad "/nonexistent/bin" --func /nonexistent/bin:main -p 1
bad "--decision-time: 'x'" --func "$T:rc_root" --decision-time x -p 1
bad "--maxcount-pct: '101'" --func "$T:rc_root" --maxcount-pct 101 -p 1
bad "--peak: '0'" --func "$T:rc_root" --peak 0 -p 1
bad "--backend: 'kprobe'" --func "$T:rc_root" --backend kprobe -p 1
bad "--folded and --json" --func "$T:rc_root" --folded --json -p 1
bad "needs a command osprof starts" --func "$T:rc_root" --backend trampoline -p 1
bad "'nosuchcall' is not a system call" --syscall nosuchcall -p 1
# A bad state file names the file and the line.
printf 'osprof-rootcause-state 1\nbogus line\n' >"$TMP/st"
rc=0
"$OSPROF" rootcause --func "$T:rc_root" --start-ops 20 --state "$TMP/st" -- "$T" 2000 10 100 \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "exit status with a bad state file" "$rc" 2
grep -q "$TMP/st:2: unknown or malformed line" "$TMP/err" || fail "state error: $(cat "$TMP/err")"
