#!/usr/bin/env bash
# --probe-time: the kernel times osprof's programs (BPF run-time statistics,
# on only while the session holds them) and the file keeps their run count
# and time per layer. Every system call of the target fires the syscall
# layer twice (enter, exit), so its runs are at least twice the calls in the
# file; other processes' calls are filtered by the same programs and add
# runs. The end-of-run line gives the same numbers, report shows them, and
# merge adds them up. Without the option (and with the sysctl off) nothing
# is timed.
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
"$OSPROF" list syscall >/dev/null 2>&1 || skip "syscall layer not built in"
N=20000
"$OSPROF" run --probe-time -l syscall,block -o "$TMP/t.osp" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=$N 2>"$TMP/err" || fail "osprof run: $(cat "$TMP/err")"
meta() { sed -n "s/^meta $2 //p" "$1"; }
runs=$(meta "$TMP/t.osp" probe_runs)
sys_runs=$(meta "$TMP/t.osp" probe_runs.syscall)
sys_ns=$(meta "$TMP/t.osp" probe_ns.syscall)
calls=$("$OSPROF" report --csv "$TMP/t.osp" | awk -F, '$1 == "\"syscall\"" { n += $5 } END { print n + 0 }')
[ "$calls" -ge $((2 * N)) ] || fail "only $calls system calls recorded for dd's $((2 * N)) reads and writes"
[ "${sys_runs:-0}" -ge $((2 * calls)) ] || fail "syscall layer ran ${sys_runs:-0} times for $calls calls"
[ "${sys_ns:-0}" -gt 0 ] || fail "no syscall run time: $(grep '^meta probe' "$TMP/t.osp")"
expect_eq "total runs = sum of the layers'" "$runs" $((sys_runs + $(meta "$TMP/t.osp" probe_runs.block)))
grep -q "^osprof: probes ran $runs times for .*; syscall " "$TMP/err" || fail "end line: $(cat "$TMP/err")"
"$OSPROF" report "$TMP/t.osp" | grep -Eq "^  probe_runs +$runs$" || fail "report lacks probe_runs"
"$OSPROF" merge -o "$TMP/m.osp" "$TMP/t.osp" "$TMP/t.osp" 2>/dev/null || fail "merge"
expect_eq "merged runs" "$(meta "$TMP/m.osp" probe_runs.syscall)" $((2 * sys_runs))
if [ "$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)" = 0 ]; then
	"$OSPROF" run -l syscall -o "$TMP/n.osp" -- true 2>"$TMP/err" || fail "osprof run: $(cat "$TMP/err")"
	! grep -q "^meta probe_runs" "$TMP/n.osp" || fail "programs timed without --probe-time"
	! grep -q "probes ran" "$TMP/err" || fail "probe line without --probe-time"
	# the statistics were the session's: off again after it
	expect_eq "kernel.bpf_stats_enabled after the run" "$(cat /proc/sys/kernel/bpf_stats_enabled)" 0
fi
exit 0
