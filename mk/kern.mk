# Kernel layers (eBPF): the syscall name table generated at build time from
# the system headers, and the floor loader of bench/syscall_overhead.sh.
SYSCALL_NAMES := $(BUILD)/gen/syscall_names.h

# "#define __NR_read 0" -> "[0] = \"read\"," (the C library's syscall.h
# pulls in the architecture's asm/unistd_64.h).
$(SYSCALL_NAMES): mk/kern.mk
	@mkdir -p $(dir $@)
	echo '#include <sys/syscall.h>' | $(CC) -E -dM - | \
		awk '$$1 == "#define" && $$2 ~ /^__NR_[a-z0-9_]+$$/ && $$3 ~ /^[0-9]+$$/ \
			{ printf "\t[%s] = \"%s\",\n", $$3, substr($$2, 6) }' | sort -u > $@.tmp
	test -s $@.tmp && mv $@.tmp $@

$(BUILD)/obj/collect/syscall.o: $(SYSCALL_NAMES)

FLOOR := $(BUILD)/bench/osp_floor
$(FLOOR): bench/osp_floor.c $(BUILD)/gen/osp_floor.skel.h $(BUILD)/gen/osp_timed.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -lbpf -lelf -lz

all: $(FLOOR)

READLOOP := $(BUILD)/bench/readloop
$(READLOOP): bench/readloop.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

all: $(READLOOP)

# The kernel-layer test workload issues exact numbers of system calls; a
# sanitizer runtime would add its own (LSan's exit-time scan calls getppid and
# nanosleep), so it is built without sanitizers even in SAN=1 builds.
$(BUILD)/tests/progs/kern_sys: SANFLAGS :=
