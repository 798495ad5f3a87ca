#!/usr/bin/env bash
# osprof rootcause flushes what it collected on SIGINT/SIGTERM: interrupted
# while profiling f0 it prints f0's histogram; interrupted during the search
# it prints the partial ftree (status "in progress") and exits 1.
source "$(dirname "$0")/../lib.sh"
T="$PROGS/rc_tree"
# Profiling phase: --start-ops is never reached.
"$OSPROF" rootcause --func "$T:rc_root" --start-ops 100000000 -- "$T" 0 10 1500 \
	>"$TMP/a" 2>"$TMP/a.err" &
pid=$!
# osprof handles signals from before it forks the command.
for ((i = 0; i < 300; i++)); do
	pgrep -P "$pid" >/dev/null && break
	sleep 0.1
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "exit status after SIGINT while profiling" "$rc" 1
grep -q "^f0 $T:rc_root: [0-9]* calls" "$TMP/a" || fail "no histogram flushed: $(cat "$TMP/a" "$TMP/a.err")"
# Search phase: a decision time no run reaches keeps it in progress.
"$OSPROF" rootcause --func "$T:rc_root" --start-ops 200 --decision-time 1000000 -- "$T" 0 10 1500 \
	>"$TMP/b" 2>"$TMP/b.err" &
pid=$!
for ((i = 0; i < 600; i++)); do
	grep -q "^searching peak" "$TMP/b" 2>/dev/null && break
	sleep 0.1
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "exit status after SIGTERM while searching" "$rc" 1
grep -q "^rc_root  \[in progress\]" "$TMP/b" || fail "no partial tree: $(cat "$TMP/b")"
