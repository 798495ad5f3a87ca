#!/usr/bin/env bash
# osprof top on the live system under tmux: the syscall layer (eBPF, root +
# BTF) follows one dd process; its read and write rows appear and the 'w'
# key writes a profile set whose read count matches what top shows. Losses
# (a histogram map made too small) show in the header and end top with the
# loss line and exit status 3, as they end run and record.
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
command -v tmux >/dev/null || skip "tmux not installed (scripts/install-deps.sh)"
"$OSPROF" list syscall >/dev/null 2>&1 || skip "syscall layer not built in"
S=live
SOCK=osprof-views-live-$$
tm() { tmux -L "$SOCK" "$@"; } # a private tmux server
DD=
cleanup() {
	tm kill-server 2>/dev/null
	[ -n "$DD" ] && kill "$DD" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
pane() { tm capture-pane -p -t "$S"; }
wait_for() {
	for _ in $(seq 200); do
		pane | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	pane | sed 's/^/    | /' >&2
	fail "pane never showed /$1/"
}

# A steady stream of 1-byte reads and writes from one known process.
dd if=/dev/zero of=/dev/null bs=1 count=2000000000 2>/dev/null &
DD=$!
tm new-session -d -s "$S" -x 150 -y 45 \
	"$OSPROF top -l syscall -p $DD -i 300ms -o $TMP/live.osp 2>$TMP/stderr; echo \$? >$TMP/rc; sleep 60"
wait_for 'live: syscall, pid'
wait_for '^syscall +read +[0-9]+ +[1-9][0-9]* '
wait_for '^syscall +write +[0-9]+ '
# Pause so the numbers hold still, then write and compare.
tm send-keys -t "$S" p
wait_for '\[PAUSED\]'
shown=$(pane | awk '$1 == "syscall" && $2 == "read" {print $3}')
tm send-keys -t "$S" w
wait_for "wrote [0-9]+ profiles to $TMP/live.osp"
got=$("$OSPROF" report --csv "$TMP/live.osp" | awk -F, '$1 == "\"syscall\"" && $2 == "\"read\"" {print $5}')
expect_eq "read count written vs shown" "$got" "$shown"
[ "$got" -gt 1000 ] || fail "only $got reads seen from dd"
tm send-keys -t "$S" q
for _ in $(seq 100); do [ -s "$TMP/rc" ] && break; sleep 0.1; done
expect_eq "top exit status" "$(cat "$TMP/rc" 2>/dev/null)" 0

# a full histogram map: the header says so, the end says so
rm -f "$TMP/rc"
tm new-session -d -s lossy -x 150 -y 45 \
	"OSPROF_HIST_ENTRIES=4 $OSPROF top -l syscall --by pid -a -i 300ms 2>$TMP/stderr2; echo \$? >$TMP/rc; sleep 60"
S=lossy
wait_for 'LOSSES: [1-9][0-9]* lost'
tm send-keys -t "$S" q
for _ in $(seq 100); do [ -s "$TMP/rc" ] && break; sleep 0.1; done
expect_eq "top exit status after losses" "$(cat "$TMP/rc" 2>/dev/null)" 3
grep -q "^osprof top: finished with losses: [0-9]* lost events" "$TMP/stderr2" ||
	fail "no loss line at the end of top: $(cat "$TMP/stderr2")"
