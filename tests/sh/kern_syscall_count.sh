#!/usr/bin/env bash
# The syscall layer counts exactly the system calls of the profiled process
# tree (main thread, threads, forked children) and nothing of other processes
# issuing the same call at the same time.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
N=2000
"$PROGS/kern_sys" loop >"$TMP/outsider" &
outsider=$!
trap 'kill $outsider 2>/dev/null; wait $outsider 2>/dev/null; rm -rf "$TMP"' EXIT
wait_ready "$TMP/outsider"

"$OSPROF" run -l syscall -o "$TMP/a.osp" -- "$PROGS/kern_sys" count $N 3 2 ||
	fail "osprof run failed"
expect_eq "getpgid count (1 main + 3 threads + 2 children)" "$(prof_count "$TMP/a.osp" "syscall getpgid")" $((6 * N))
expect_eq "unpaired events" "$(awk '$1 == "meta" && $2 == "unpaired_events" { print $3 }' "$TMP/a.osp")" 0

# --by pid: three processes (main + 2 children); --by tid: six threads.
"$OSPROF" run -l syscall --by pid -o "$TMP/p.osp" -- "$PROGS/kern_sys" count $N 3 2 || fail "run --by pid"
pids=$(grep -c '^profile syscall getpgid pid=' "$TMP/p.osp")
expect_eq "processes with getpgid" "$pids" 3
counts=$(grep -A1 '^profile syscall getpgid pid=' "$TMP/p.osp" | awk '/^stats/ { print $2 }' | sort -n | tr '\n' ' ')
expect_eq "getpgid per process" "$counts" "$N $N $((4 * N)) "
"$OSPROF" run -l syscall --by tid -o "$TMP/t.osp" -- "$PROGS/kern_sys" count $N 3 2 || fail "run --by tid"
expect_eq "threads with getpgid" "$(grep -c '^profile syscall getpgid tid=' "$TMP/t.osp")" 6
# The command is found in PATH before the held child runs: its one execve is
# the command's own, not osprof's search through the directories before it.
mkdir -p "$TMP/bin" && ln -s "$PROGS/kern_sys" "$TMP/bin/kern_sys"
PATH="$TMP/no1:$TMP/no2:$TMP/bin:$PATH" "$OSPROF" run -l syscall -o "$TMP/e.osp" -- kern_sys count 1 0 0 ||
	fail "run of a command found in PATH"
expect_eq "execve calls of a command found in PATH" "$(prof_count "$TMP/e.osp" "syscall execve")" 1
echo ok
