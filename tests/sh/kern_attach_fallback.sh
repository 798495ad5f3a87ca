#!/usr/bin/env bash
# The raw_tp fallback (used where tp_btf cannot load; forced here with
# OSPROF_ATTACH=raw_tp) counts exactly like tp_btf, follows forks, reads the
# file's fs through CO-RE, and records the mode in attach_modes and with -v.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kern.bash"
need_root
need_btf
N=1000
OSPROF_ATTACH=raw_tp "$OSPROF" run -v -l syscall -o "$TMP/r.osp" -- "$PROGS/kern_sys" count $N 2 1 \
	2>"$TMP/err" || fail "raw_tp run failed: $(cat "$TMP/err")"
expect_eq "getppid via raw_tp" "$(prof_count "$TMP/r.osp" "syscall getppid")" $((4 * N))
expect_eq "attach_modes" "$(awk '$1 == "meta" && $2 == "attach_modes" { print $3 }' "$TMP/r.osp")" \
	"common:raw_tp,syscall:raw_tp"
grep -q 'syscall: sys_enter via raw_tp' "$TMP/err" || fail "-v does not name raw_tp"
head -c 4096 /dev/zero >"$TMP/f"
OSPROF_ATTACH=raw_tp "$OSPROF" run -l syscall --by fs -o "$TMP/f.osp" -- "$PROGS/kern_sys" read "$TMP/f" 100 \
	2>/dev/null || fail "raw_tp --by fs"
grep -q '^profile syscall pread64 dev=.* fs=ext4$' "$TMP/f.osp" || fail "raw_tp --by fs found no ext4 pread64"
"$OSPROF" list | grep -q '^syscall .* via tp_btf' || fail "list does not show tp_btf"
OSPROF_ATTACH=raw_tp "$OSPROF" list syscall | grep -q '^syscall .* via raw_tp' || fail "list ignores the fallback"
echo ok
