# Helpers of the kernel-layer tests (tests/sh/kern_*.sh); source after lib.sh.
# A profile is named by its "profile ..." line without the keyword, e.g.
# "syscall getppid" or "syscall pread64 dev=loop0 fs=ext4".

# prof_stats FILE PROFILE -> "COUNT TOTAL MIN MAX" (empty if absent)
prof_stats() {
	awk -v want="profile $2" '$0 == want { f = 1; next }
		f && /^stats / { print $2, $3, $4, $5; exit }
		f && /^profile / { exit }' "$1"
}
# prof_count FILE PROFILE -> COUNT (0 if absent)
prof_count() {
	local s
	s=$(prof_stats "$1" "$2")
	echo "${s%% *}" | sed 's/^$/0/'
}
# prof_buckets FILE PROFILE -> "IDX N" lines
prof_buckets() {
	awk -v want="profile $2" '$0 == want { f = 1; next }
		f && /^buckets / { for (i = 2; i <= NF; i++) { split($i, a, ":"); print a[1], a[2] } exit }
		f && /^profile / { exit }' "$1"
}
# prof_slices FILE PROFILE -> "SLICE COUNT" lines
prof_slices() {
	awk -v want="profile $2" '$0 == want { f = 1; next }
		f && /^slice / { n = 0; for (i = 3; i <= NF; i++) { split($i, a, ":"); n += a[2] } print $2, n }
		f && (/^profile / || /^end /) { exit }' "$1"
}
# sum_buckets FILE PROFILE LO HI -> samples in buckets LO..HI
sum_buckets() {
	prof_buckets "$1" "$2" | awk -v lo="$3" -v hi="$4" '$1 >= lo && $1 <= hi { n += $2 } END { print n + 0 }'
}
# wait_ready FIFO_FILE: waits (bounded) until the file has a line "ready"
wait_ready() {
	for _ in $(seq 400); do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "helper did not start"
}
# sigint_wait PID [SIGNAL]: sends SIGINT (or SIGNAL) to a background osprof
# and waits (bounded) for it to exit; returns its exit status, fails the test
# if it does not stop.
sigint_wait() {
	kill -"${2:-INT}" "$1"
	for _ in $(seq 400); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		fail "osprof did not stop on SIG${2:-INT}"
	fi
	wait "$1"
}
