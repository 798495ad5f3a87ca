# irq layer: disk reads that bypass the page cache raise device interrupts;
# the layer (system-wide) times some hard-IRQ handler by name and soft-IRQs
# by vector name.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
# O_DIRECT reads of a file on a disk file system bypass the page cache, so
# the device must do the I/O and interrupt when it completes.
dd if=/dev/urandom of="$TMP/data" bs=64k count=16 conv=fsync 2>/dev/null || fail "dd setup"
"$OSPROF" run -l irq -o "$TMP/i.osp" -- \
	dd if="$TMP/data" of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null ||
	fail "osprof run failed (O_DIRECT needs $TMP on a disk file system)"
"$OSPROF" report --csv "$TMP/i.osp" >"$TMP/i.csv"
grep -q '^"irq","hardirq","irq=[0-9]*;name=' "$TMP/i.csv" || fail "no named hard-IRQ handler: $(cut -d, -f1-5 "$TMP/i.csv")"
grep -Eq '^"irq","softirq","name=(block|timer|rcu|sched|net_rx|tasklet|hrtimer|hi|net_tx|irq_poll)",' "$TMP/i.csv" ||
	fail "no named soft-IRQ: $(cut -d, -f1-5 "$TMP/i.csv")"
exit 0
