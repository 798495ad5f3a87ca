#!/usr/bin/env bash
# -i keeps per-slice histograms: a workload with a getpgid phase followed by a
# getsid phase shows each phase in its own slices, and every profile's slices
# add up to its count.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
"$OSPROF" run -l syscall -i 100ms -o "$TMP/s.osp" -- "$PROGS/kern_sys" phases 400 || fail "run -i"
grep -q '^slice_ns 100000000$' "$TMP/s.osp" || fail "slice_ns not recorded"
for p in getpgid getsid; do
	total=$(prof_slices "$TMP/s.osp" "syscall $p" | awk '{ n += $2 } END { print n + 0 }')
	expect_eq "$p: sum of slices" "$total" "$(prof_count "$TMP/s.osp" "syscall $p")"
	n=$(prof_slices "$TMP/s.osp" "syscall $p" | wc -l)
	[ "$n" -ge 3 ] || fail "$p spans $n slices, want >= 3 of a 400 ms phase"
done
a_last=$(prof_slices "$TMP/s.osp" "syscall getpgid" | tail -1 | cut -d' ' -f1)
b_first=$(prof_slices "$TMP/s.osp" "syscall getsid" | head -1 | cut -d' ' -f1)
# Phase one ends where phase two starts: at most the boundary slice is shared.
[ "$a_last" -le "$b_first" ] || fail "phases overlap: getpgid until slice $a_last, getsid from $b_first"
"$OSPROF" report --slices "$TMP/s.osp" >/dev/null || fail "report --slices"
echo ok
