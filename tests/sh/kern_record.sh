#!/usr/bin/env bash
# osprof record -p PID: SIGINT (and SIGTERM) writes a valid profile set holding the target's
# calls (and only its process); INTERVAL COUNT prints each interval and stops.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
"$PROGS/kern_sys" loop >"$TMP/target" &
target=$!
"$PROGS/kern_sys" loop >"$TMP/other" &
other=$!
shpid=""
trap 'kill $target $other $shpid 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
wait_ready "$TMP/target"
wait_ready "$TMP/other"

"$OSPROF" record -l syscall -p $target --by pid -o "$TMP/r.osp" 2>"$TMP/err" &
rec=$!
# Recording has started once osprof says so.
for _ in $(seq 400); do grep -q recording "$TMP/err" && break; sleep 0.05; done
grep -q recording "$TMP/err" || fail "record did not start: $(cat "$TMP/err")"
sigint_wait $rec || fail "record exited with $?: $(cat "$TMP/err")"
"$OSPROF" report "$TMP/r.osp" >/dev/null || fail "written file does not read back"
n=$(prof_count "$TMP/r.osp" "syscall getpgid pid=$target")
[ "$n" -gt 0 ] || fail "no getpgid of pid $target"
expect_eq "profiles of other processes" "$(grep -c "^profile syscall .* pid=$other" "$TMP/r.osp")" 0
grep -q '^meta attach_modes .*syscall:' "$TMP/r.osp" || fail "attach_modes not recorded"
# recorded; 0 when calibration cannot tell the probe from noise (under emulation)
grep -q '^meta probe_cost_ns [0-9]' "$TMP/r.osp" || fail "probe_cost_ns not recorded"

# SIGTERM writes the profile too.
"$OSPROF" record -l syscall -p $target -o "$TMP/t.osp" 2>"$TMP/err.term" &
rec=$!
for _ in $(seq 400); do grep -q recording "$TMP/err.term" && break; sleep 0.05; done
sigint_wait $rec TERM || fail "record exited with $? on SIGTERM"
[ "$(prof_count "$TMP/t.osp" "syscall getpgid")" -gt 0 ] || fail "SIGTERM: no getpgid recorded"

# Intervals: 2 intervals of 200 ms, each printed in bcc style.
"$OSPROF" record -l syscall -p $target -o "$TMP/i.osp" 200ms 2 >"$TMP/out" 2>"$TMP/err" ||
	fail "record INTERVAL COUNT: $(cat "$TMP/err")"
expect_eq "intervals printed" "$(grep -c '^[0-9:]* interval [0-9]' "$TMP/out")" 2
grep -q 'syscall:getpgid' "$TMP/out" || fail "interval output lacks syscall:getpgid"
"$OSPROF" report "$TMP/i.osp" >/dev/null || fail "interval file does not read back"

# -p follows processes the target forks after recording started: a shell
# waits on a fifo, then runs a child making exactly 500 getpgid calls.
mkfifo "$TMP/go"
sh -c "read x <'$TMP/go'; '$PROGS/kern_sys' count 500 0 0; echo done >'$TMP/done'; exec sleep 30" &
shpid=$!
"$OSPROF" record -l syscall -p $shpid -o "$TMP/f.osp" 2>"$TMP/err.fork" &
rec=$!
for _ in $(seq 400); do grep -q recording "$TMP/err.fork" && break; sleep 0.05; done
echo go >"$TMP/go"
for _ in $(seq 400); do [ -s "$TMP/done" ] && break; sleep 0.05; done
sigint_wait $rec || fail "record -p (fork) exited with $?"
kill $shpid 2>/dev/null
expect_eq "getpgid of the forked child" "$(prof_count "$TMP/f.osp" "syscall getpgid")" 500

# -d stops by itself; a usage error exits 2.
"$OSPROF" record -l syscall -p $target -d 100ms -o "$TMP/d.osp" 2>/dev/null || fail "record -d"
"$OSPROF" record -a -p 1 2>/dev/null
expect_eq "exit status of -a with -p" $? 2
echo ok
