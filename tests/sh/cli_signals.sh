# The signal policy of the collecting commands (collect/session.h): SIGINT
# sent to osprof alone reaches the command it started, osprof writes what
# it collected once the command has exited and exits with its status; a
# second signal kills a command that ignores the first. Child readiness is
# a file the command writes, never a sleep.
. "$(dirname "$0")/../lib.sh"
ready() { # FILE: wait (bounded) until the command has written FILE
	for _ in $(seq 600); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "the command never started ($1)"
}
finished() { # PID: osprof's exit status; fails when it does not exit in 60 s
	for _ in $(seq 600); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		pkill -KILL -P "$1"
		kill -KILL "$1"
		fail "osprof did not stop after the signal"
	fi
	wait "$1"
}

# 1. run: kill -INT to osprof alone ends CMD by SIGINT (exit 130), profile written.
"$OSPROF" run -q -l user -o "$TMP/a.osp" -- sh -c 'echo $$ >"$1"; exec sleep 600' sh "$TMP/a.ready" &
osp=$!
ready "$TMP/a.ready"
kill -INT $osp
finished $osp
expect_eq "run: exit status after SIGINT to osprof" $? 130
"$OSPROF" report "$TMP/a.osp" >/dev/null || fail "run: no readable profile after SIGINT"

# 2. run: a command that ignores SIGINT and SIGTERM is killed by the second
# signal (SIGKILL: 137), and the profile is still written.
"$OSPROF" run -q -l user -o "$TMP/b.osp" -- sh -c 'trap "" INT TERM; echo $$ >"$1"; while :; do sleep 1; done' sh "$TMP/b.ready" &
osp=$!
ready "$TMP/b.ready"
kill -INT $osp
kill -TERM $osp
finished $osp
expect_eq "run: exit status after a second signal" $? 137
"$OSPROF" report "$TMP/b.osp" >/dev/null || fail "run: no readable profile after the second signal"

# 3. trace record -- CMD: the same policy; the trace is closed and readable.
if [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	"$OSPROF" trace record -q -w "$TMP/t" -- sh -c 'echo $$ >"$1"; exec sleep 600' sh "$TMP/t.ready" 2>"$TMP/t.err" &
	osp=$!
	ready "$TMP/t.ready"
	kill -INT $osp
	finished $osp
	rc=$?
	expect_eq "trace record: exit status after SIGINT to osprof (stderr: $(cat "$TMP/t.err"))" $rc 130
	"$OSPROF" trace stats "$TMP/t" >/dev/null || fail "trace record: trace unreadable after SIGINT"
else
	[ "${CI:-}" = true ] && fail "trace record part needs root and BTF under CI"
	echo "skip: trace record part (needs root and BTF)" >&2
fi
exit 0
