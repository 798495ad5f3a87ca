# osprof trace record -a / -p PID / -c CGROUP, stopped by SIGINT or SIGTERM:
# the events of a gated workload are all there and the segment is closed
# cleanly (no warning on reading).
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
W=$PROGS/trace_workload
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
CG=${CG2:-/nonexistent}/osprof-trace-test.$$
cleanup() {
	[ -n "${REC:-}" ] && kill "$REC" 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# wait_for FILE TEXT: the recorder prints TEXT once its programs are attached
wait_for() {
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$REC" 2>/dev/null || fail "recorder exited early: $(cat "$1")"
		sleep 0.05
	done
	fail "recorder not ready: $(cat "$1")"
}

# run_case NAME SIGNAL TARGET-ARGS...: a workload gated on a fifo (so that
# the recorder is attached before it starts) is traced until SIGNAL.
run_case() {
	local name=$1 sig=$2
	shift 2
	local dir=$TMP/$name work=$TMP/work-$name fifo=$TMP/fifo-$name
	mkdir -p "$work"
	mkfifo "$fifo"
	# the gate: a shell that (for -c) joins the cgroup, waits, then execs W
	sh -c 'if [ -n "$3" ]; then echo $$ > "$3/cgroup.procs"; fi; read x < "$1"; exec "$2" "$4"' \
		gate "$fifo" "$W" "${CGJOIN:-}" "$work" &
	local wpid=$!
	local args=("$@")
	[ "${args[0]}" = "-p" ] && args[1]=$wpid
	"$OSPROF" trace record "${args[@]}" -w "$dir" 2>"$TMP/$name.err" &
	REC=$!
	wait_for "$TMP/$name.err" "recording"
	echo go >"$fifo"
	wait "$wpid" || fail "$name: workload failed"
	kill -"$sig" "$REC"
	wait "$REC" || fail "$name: recorder exit status $? after SIG$sig: $(cat "$TMP/$name.err")"
	REC=
	grep -q "events in" "$TMP/$name.err" || fail "$name: no summary: $(cat "$TMP/$name.err")"
	"$OSPROF" trace dump --no-header --pid "$wpid" "$dir" >"$TMP/$name.dump" 2>"$TMP/$name.derr" ||
		fail "$name: dump failed"
	[ -s "$TMP/$name.derr" ] && fail "$name: segment not closed cleanly: $(cat "$TMP/$name.derr")"
	local n
	n=$(awk '$2 == "trace_workload" && $6 == "write" && $10 == 4096' "$TMP/$name.dump" | wc -l)
	expect_eq "$name: writes of the workload" "$n" 64
	n=$(awk '$2 == "trace_workload" && $6 == "fsync"' "$TMP/$name.dump" | wc -l)
	expect_eq "$name: fsync of the workload" "$n" 1
	echo "ok $name"
}

run_case all TERM -a
run_case pid INT -p PID
# -p follows the process, not other processes
others=$("$OSPROF" trace dump --no-header "$TMP/pid" | awk '{print $3}' | sort -u | wc -l)
expect_eq "-p: processes in the trace" "$others" 1
if [ -n "$CG2" ]; then
	mkdir "$CG"
	CGJOIN=$CG run_case cgroup INT -c "$CG"
	others=$("$OSPROF" trace dump --no-header "$TMP/cgroup" | awk '$2 != "trace_workload" && $2 != "gate" && $2 != "sh"' | wc -l)
	expect_eq "-c: events from outside the cgroup" "$others" 0
else
	skip "cgroup v2 not mounted (the -a and -p cases passed)"
fi
# ring buffer overflow: the recorder is stopped while the workload runs, so
# the kernel must drop; drops are counted, stored and reported, never hidden
mkfifo "$TMP/fifo-drop"
sh -c 'read x < "$1"; exec dd if=/dev/zero of=/dev/null bs=1 count=100000' gate "$TMP/fifo-drop" 2>/dev/null &
wpid=$!
"$OSPROF" trace record -p "$wpid" --buffer 1 -w "$TMP/drop" 2>"$TMP/drop.err" &
REC=$!
wait_for "$TMP/drop.err" "recording"
kill -STOP "$REC"
echo go >"$TMP/fifo-drop"
wait "$wpid"
kill -CONT "$REC"
kill -INT "$REC"
rc=0
wait "$REC" || rc=$?
[ "$rc" = 3 ] || fail "recorder after the overflow: exit $rc, want 3 (losses): $(cat "$TMP/drop.err")"
REC=
ev=$(sed -n 's/^osprof trace: \([0-9]*\) events in.*/\1/p' "$TMP/drop.err")
dr=$(sed -n 's/.*; \([0-9]*\) dropped$/\1/p' "$TMP/drop.err")
[ "${dr:-0}" -gt 0 ] || fail "no drops reported: $(cat "$TMP/drop.err")"
[ $((ev + dr)) -ge 200000 ] || fail "events $ev + dropped $dr < the 200000 system calls of dd"
stored=$("$OSPROF" trace stats "$TMP/drop" | awk '$1 == "dropped" {print $2}')
expect_eq "drops stored in the segment" "$stored" "$dr"
echo "ok overflow: $ev events, $dr dropped"

# usage errors: one line naming the flag, exit 2
"$OSPROF" trace record -w "$TMP/x" 2>"$TMP/e"
expect_eq "no target exit" $? 2
grep -q "give exactly one target" "$TMP/e" || fail "no-target message: $(cat "$TMP/e")"
"$OSPROF" trace record -a -w "$TMP/x" -C 0 2>"$TMP/e"
expect_eq "bad -C exit" $? 2
grep -q "^osprof trace record: -C: '0'" "$TMP/e" || fail "-C message: $(cat "$TMP/e")"
