# irq layer: disk reads that bypass the page cache raise device interrupts;
# the layer (system-wide) times some hard-IRQ handler by name and soft-IRQs
# by vector name.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
kl_ext4 16
"$OSPROF" run -l irq -o "$TMP/i.osp" -- \
	dd if="$KL_LOOP" of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null || fail "osprof run failed"
"$OSPROF" report --csv "$TMP/i.osp" >"$TMP/i.csv"
grep -q '^"irq","hardirq","irq=[0-9]*;name=' "$TMP/i.csv" || fail "no named hard-IRQ handler: $(cut -d, -f1-5 "$TMP/i.csv")"
grep -Eq '^"irq","softirq","name=(block|timer|rcu|sched|net_rx|tasklet|hrtimer|hi|net_tx|irq_poll)",' "$TMP/i.csv" ||
	fail "no named soft-IRQ: $(cut -d, -f1-5 "$TMP/i.csv")"
exit 0
