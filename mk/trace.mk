# Traces (trace/ in libosprof): the block codec uses zlib's crc32 and zstd, so
# programs that link libosprof statically need both.
$(BUILD)/tests/%: LDLIBS += -lzstd -lz
$(SHARED_LIB): LDLIBS += -lzstd -lz
# The preload library carries the core objects but never calls into trace/:
# leave those out of its link (a target-specific value, used by its recipe),
# so that it keeps no undefined zstd/zlib symbols (LD_BIND_NOW would fail)
# and no dependency beyond libc.
$(PRELOAD): LIB_OBJS := $(filter-out $(BUILD)/obj/trace/%,$(LIB_OBJS))

# bench/trace_codec.c: codec against raw records, gzip -6 and zstd -3.
TRACE_BENCH := $(BUILD)/bench/trace_codec
$(TRACE_BENCH): bench/trace_codec.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) -lzstd -lz $(LDLIBS)
all: $(TRACE_BENCH)
