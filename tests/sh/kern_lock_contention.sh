# lock layer: 8 threads appending through one file descriptor contend on its
# position lock (a mutex taken in fdget_pos): the lock layer shows mutex
# waits, --by caller names fdget_pos; with one thread there are none. The
# raw_tp fallback (OSPROF_ATTACH=raw_tp) sees the same waits.
# The runs allow the lock layer's rare recursion losses (KL_MAX_LOSS).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
"$OSPROF" run --max-loss $KL_MAX_LOSS -l lock -o "$TMP/l8.osp" -- "$PROGS/kl_append" "$TMP/app" 8 20000 ||
	fail "osprof run (8 threads) failed"
n8=$(kl_count "$TMP/l8.osp" lock mutex)
[ "$n8" -gt 0 ] || fail "no mutex contention with 8 threads: $("$OSPROF" report --summary "$TMP/l8.osp")"
"$OSPROF" run --max-loss $KL_MAX_LOSS -l lock --by caller -o "$TMP/l8c.osp" -- "$PROGS/kl_append" "$TMP/app" 8 20000 ||
	fail "osprof run --by caller failed"
# fdget_pos on recent kernels, __fdget_pos before 6.9 (Debian 12's 6.1)
c=$(($(kl_count "$TMP/l8c.osp" lock mutex caller=fdget_pos) + $(kl_count "$TMP/l8c.osp" lock mutex caller=__fdget_pos)))
[ "$c" -gt 0 ] || fail "--by caller: no mutex caller=fdget_pos: $("$OSPROF" report --summary "$TMP/l8c.osp")"
OSPROF_ATTACH=raw_tp "$OSPROF" run --max-loss $KL_MAX_LOSS -l lock -o "$TMP/l8r.osp" -- "$PROGS/kl_append" "$TMP/app" 8 20000 ||
	fail "osprof run (raw_tp) failed"
grep -Eq "^meta attach_modes (.*,)?lock:raw_tp(,|$)" "$TMP/l8r.osp" || fail "raw_tp fallback not used: $(grep attach_ "$TMP/l8r.osp")"
[ "$(kl_count "$TMP/l8r.osp" lock mutex)" -gt 0 ] || fail "raw_tp: no mutex contention with 8 threads"
"$OSPROF" run -l lock -o "$TMP/l1.osp" -- "$PROGS/kl_append" "$TMP/app" 1 20000 ||
	fail "osprof run (1 thread) failed"
expect_eq "mutex waits with one thread" "$(kl_count "$TMP/l1.osp" lock mutex)" 0
exit 0
