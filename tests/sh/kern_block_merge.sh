#!/usr/bin/env bash
# block layer against bpftrace in the same run: two fio jobs write the
# alternate 4 KiB blocks of a loop device under mq-deadline (O_DIRECT, 16 in
# flight each), where a write that fills a gap may merge with its
# neighbours (0-2 request merges and 0-4 bio merges in 8,192 writes, run to
# run: printed). osprof's write requests on the device equal the write
# issues bpftrace counts there. Then, with the target idle and none of its
# requests in flight (the block programs skip their map lookups), another
# process reads the device: none of those reads is the target's.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/kl_lib.sh"
need_root
need_btf
command -v bpftrace >/dev/null || skip "needs bpftrace (ground truth)"
command -v fio >/dev/null || skip "needs fio (scripts/install-deps.sh)"
kl_tracefs
truncate -s 64M "$TMP/disk.img" || fail "cannot create the image"
KL_LOOP=$(losetup -f --show --direct-io=on "$TMP/disk.img") || skip "no free loop device"
D=$(basename "$KL_LOOP")
echo mq-deadline >"/sys/block/$D/queue/scheduler" 2>/dev/null || skip "no mq-deadline scheduler"
DEVT=$(($(cut -d: -f1 "/sys/block/$D/dev") << 20 | $(cut -d: -f2 "/sys/block/$D/dev")))
cat >"$TMP/w.fio" <<FIO
[global]
filename=$KL_LOOP
bs=4k
size=32M
iodepth=16
ioengine=libaio
direct=1
rw=write:4k
[a]
offset=0
[b]
offset=4k
FIO
cat >"$TMP/truth.bt" <<BT
tracepoint:block:block_rq_issue /args->dev == $DEVT && strncmp(args->rwbs, "W", 1) == 0/ { @w = count(); }
tracepoint:block:block_rq_merge /args->dev == $DEVT/ { @rq_merges = count(); }
BT
kl_bpftrace "$TMP/truth.bt" "$TMP/truth.out"
mkfifo "$TMP/go"
"$OSPROF" run -l block -o "$TMP/b.osp" -- sh -c \
	"fio --output=/dev/null '$TMP/w.fio' && touch '$TMP/wrote' && read x <'$TMP/go'" 2>"$TMP/err" &
run=$!
for _ in $(seq 1200); do
	[ -e "$TMP/wrote" ] && break
	kill -0 $run 2>/dev/null || fail "osprof run ended early: $(cat "$TMP/err")"
	sleep 0.1
done
[ -e "$TMP/wrote" ] || fail "fio did not finish within 120 s"
dd if="$KL_LOOP" of=/dev/null bs=4k count=2000 iflag=direct status=none || fail "outsider reads"
echo go >"$TMP/go"
wait $run || fail "osprof run failed: $(cat "$TMP/err")"
kl_bpftrace_end
truth=$(sed -n 's/^@w: //p' "$TMP/truth.out")
echo "bpftrace: ${truth:-0} write requests issued, $(sed -n 's/^@rq_merges: //p' "$TMP/truth.out") request merges"
[ "${truth:-0}" -gt 0 ] || fail "bpftrace saw no write request: $(cat "$TMP/truth.out")"
expect_eq "write requests on $D (osprof vs bpftrace)" "$(kl_count "$TMP/b.osp" block device "dev=$D;type=write")" "$truth"
expect_eq "another process's reads counted" "$(kl_count "$TMP/b.osp" block device "dev=$D;type=read")" 0
exit 0
