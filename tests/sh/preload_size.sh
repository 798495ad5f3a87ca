#!/usr/bin/env bash
# libosprof-preload.so is mapped into every profiled process: it links only
# the clock and bucket code of lib/ (no analysis, renderers, trace codec or
# file-format code), needs nothing beyond libc, and its code stays small.
. "$(dirname "$0")/../lib.sh"
PL=$BUILD/libosprof-preload.so
[ -r "$PL" ] || fail "no $PL"
syms=$(nm "$PL" | awk '{print $NF}')
for bad in osp_render osp_diff osp_peaks osp_html osp_trace_ osp_set_read osp_set_write \
	osp_calib ZSTD_ deflate; do
	! echo "$syms" | grep -q "^$bad" || fail "the preload library links $bad*: $(echo "$syms" | grep "^$bad" | head -3)"
done
needed=$(readelf -d "$PL" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in $needed; do
	case $lib in libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | ld-linux*) ;;
	*) fail "the preload library needs $lib (only libc's are allowed): $needed" ;;
	esac
done
text=$(size -A "$PL" | awk '$1 == ".text" {print $2}')
strip -o "$TMP/stripped.so" "$PL" || fail "strip failed"
file=$(stat -c %s "$TMP/stripped.so")
echo "preload .text: $text bytes; stripped file: $file bytes; NEEDED: $needed"
# ~125 interposers of ~400 bytes each (the recording is one shared call)
[ "$text" -lt 65536 ] || fail ".text is $text bytes (> 64 KiB): what was linked or inlined?"
[ "$file" -lt 102400 ] || fail "the stripped library is $file bytes (> 100 KiB)"
exit 0
