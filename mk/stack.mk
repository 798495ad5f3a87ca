# The stack layer (osprof mount): a libfuse3 low-level pass-through.
FUSE3_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE3_LIBS := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)
$(BUILD)/obj/collect/stack_fs.o: CFLAGS += $(FUSE3_CFLAGS)
CLI_LIBS += $(FUSE3_LIBS)

# The netfs test's server-side delay (tests/sh/stack_netfs_sshfs.sh).
SLOW_FSYNC := $(BUILD)/tests/progs/libslow_fsync.so
tests: $(SLOW_FSYNC)
$(SLOW_FSYNC): tests/progs/lib/slow_fsync.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $(LDFLAGS) -o $@ $< -ldl
