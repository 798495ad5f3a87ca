# libosprof carries the trace codec (zstd, zlib); the preload library, built
# from the same core objects, must not: no undefined zstd/zlib symbols, so it
# loads even with LD_BIND_NOW and needs nothing beyond libc.
. "$(dirname "$0")/../lib.sh"
[ -f "$PRELOAD" ] || fail "$PRELOAD not built"
bad=$(nm -D --undefined-only "$PRELOAD" | grep -E ' (ZSTD_|crc32)' || true)
[ -z "$bad" ] && [ -z "$(ldd "$PRELOAD" | grep -E 'zstd|libz\.')" ] ||
	fail "preload library depends on zstd/zlib: $bad"
LD_BIND_NOW=1 LD_PRELOAD=$PRELOAD /bin/true || fail "preload library does not load with LD_BIND_NOW"
