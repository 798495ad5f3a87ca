# Traces (trace/ in libosprof): the block codec uses zlib's crc32 and zstd, so
# programs that link libosprof.a statically need both. The preload library
# never calls into trace/ and is left alone.
$(BUILD)/tests/%: LDLIBS += -lzstd -lz
$(SHARED_LIB): LDLIBS += -lzstd -lz
