# System-call records are batched per CPU in the kernel (32 per ring-buffer
# record): a trickle of events smaller than a batch still reaches the trace
# while recording goes on (the recorder flushes the batches every 100 ms),
# and the count is exact once recording stops. Both flavours: tp_btf and the
# raw_tp fallback.
. "$(dirname "$0")/../lib.sh"
need_root
need_btf
cleanup() {
	[ -n "${REC:-}" ] && kill "$REC" 2>/dev/null
	[ -n "${TGT:-}" ] && kill "$TGT" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# writes FILE DIR: writes to FILE recorded in DIR so far
writes() {
	"$OSPROF" trace dump --no-header --op write --path-inode "$1" "$2" 2>/dev/null | wc -l
}

run_case() {
	local name=$1 out=$TMP/$1.out fifo=$TMP/$1.fifo dir=$TMP/$1
	: >"$out"
	mkfifo "$fifo"
	# The target appends one line to out per line read from the fifo.
	bash -c 'exec 3<>"$1"; while read -r x <&3; do [ "$x" = q ] && exit 0; echo "$x" >>"$2"; done' \
		target "$fifo" "$out" &
	TGT=$!
	"$OSPROF" trace record -p "$TGT" -w "$dir" 2>"$TMP/$name.err" &
	REC=$!
	for _ in $(seq 200); do
		grep -q recording "$TMP/$name.err" && break
		kill -0 "$REC" 2>/dev/null || fail "$name: recorder exited early: $(cat "$TMP/$name.err")"
		sleep 0.05
	done
	grep -q recording "$TMP/$name.err" || fail "$name: recorder not ready"
	printf 'a\nb\nc\n' >"$fifo"
	# Three writes, a dozen events in all: far from a full batch. They must
	# show up while recording goes on (blocks are written within ~1 s).
	local n=0
	for _ in $(seq 100); do
		n=$(writes "$out" "$dir")
		[ "$n" -ge 3 ] && break
		sleep 0.1
	done
	expect_eq "$name: writes visible while recording" "$n" 3
	printf 'd\n' >"$fifo"
	for _ in $(seq 100); do
		[ "$(wc -l <"$out")" -ge 4 ] && break
		sleep 0.05
	done
	kill -INT "$REC"
	wait "$REC" || fail "$name: recorder exit status $?: $(cat "$TMP/$name.err")"
	REC=
	echo q >"$fifo"
	wait "$TGT"
	TGT=
	expect_eq "$name: writes after stop" "$(writes "$out" "$dir")" 4
	echo "ok $name"
}

run_case tp_btf
OSPROF_ATTACH=raw_tp run_case raw_tp
