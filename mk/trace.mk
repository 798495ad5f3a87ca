# Traces (trace/ in libosprof): the block codec uses zlib's crc32 and zstd, so
# programs that link libosprof.a statically need both. The preload library
# never calls into trace/ and is left alone.
$(BUILD)/tests/%: LDLIBS += -lzstd -lz
$(SHARED_LIB): LDLIBS += -lzstd -lz

# bench/trace_codec.c: codec against raw records, gzip -6 and zstd -3.
TRACE_BENCH := $(BUILD)/bench/trace_codec
$(TRACE_BENCH): bench/trace_codec.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) -lzstd -lz $(LDLIBS)
all: $(TRACE_BENCH)
