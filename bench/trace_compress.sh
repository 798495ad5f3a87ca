#!/usr/bin/env bash
# Trace compression on a Postmark trace (seed 004, section 4.2): the record
# encoding alone and with a zstd pass per block, against raw fixed-size
# records, gzip -6 and zstd -3 of the same records; encode speed against
# both. One run; prints ratios. Needs root (eBPF) and postmark.
# Usage: bench/trace_compress.sh [BUILD_DIR]
set -eu
source "$(dirname "$0")/lib.sh" "${1:-}"
[ "$(id -u)" -eq 0 ] || { echo "trace_compress: needs root" >&2; exit 1; }
command -v postmark >/dev/null || { echo "trace_compress: postmark not installed" >&2; exit 1; }
make -s -C "$ROOT" BUILD="$BUILD" "$BUILD/osprof" "$BUILD/bench/trace_codec" >/dev/null
bench_tmp bench-trace
mkdir "$TMP/pm"
sed "s|@DIR@|$TMP/pm|" "$ROOT/bench/trace_postmark.cfg.in" >"$TMP/pm.cfg"
echo "== recording a Postmark trace (1000 files, 10000 transactions)"
"$OSPROF" trace record -w "$TMP/trace" -- postmark "$TMP/pm.cfg" >/dev/null
echo
echo "== in process (same events, best of 5)"
"$BUILD/bench/trace_codec" "$TMP/trace" "$TMP/raw.bin"
echo
echo "== command-line tools on the same raw records (sizes; times include process start)"
raw=$(stat -c %s "$TMP/raw.bin")
t0=$(date +%s%N); gz=$(gzip -6 -c "$TMP/raw.bin" | wc -c); t1=$(date +%s%N)
zs=$(zstd -3 -q -c "$TMP/raw.bin" | wc -c); t2=$(date +%s%N)
ours=$(du -cb "$TMP"/trace/*.ospt | tail -1 | cut -f1)
awk -v raw="$raw" -v gz="$gz" -v zs="$zs" -v ours="$ours" -v tg="$((t1 - t0))" -v tz="$((t2 - t1))" 'BEGIN {
	printf "  raw records      %10d bytes\n", raw
	printf "  gzip -6          %10d bytes  %6.2fx  %6.0f ms\n", gz, raw / gz, tg / 1e6
	printf "  zstd -3          %10d bytes  %6.2fx  %6.0f ms\n", zs, raw / zs, tz / 1e6
	printf "  trace as written %10d bytes  %6.2fx  (osprof trace record, no --zstd)\n", ours, raw / ours
}'
