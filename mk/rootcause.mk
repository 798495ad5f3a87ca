# osprof rootcause (DARC): test programs whose root cause is known by
# construction are built as the dissertation's targets would be: -O1 without
# inlining and with frame pointers, non-PIE (rc_NAME) and PIE (rc_NAME_pie).
RC_PROG_CFLAGS := -O1 -g -fno-inline -fno-omit-frame-pointer -Wall -Wextra -Werror -std=gnu11
RC_PROG_SRCS := $(wildcard tests/progs/rc_*.c)
RC_PIE_BINS := $(RC_PROG_SRCS:tests/progs/%.c=$(BUILD)/tests/progs/%_pie)

# A call chain inside a shared library, called through the PLT (rc_libmain).
$(BUILD)/tests/progs/librc_lib.so: tests/progs/lib/rc_lib.c
	@mkdir -p $(dir $@)
	$(CC) $(RC_PROG_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/progs/rc_libmain $(BUILD)/tests/progs/rc_libmain_pie: $(BUILD)/tests/progs/librc_lib.so
$(BUILD)/tests/progs/rc_libmain: tests/progs/rc_libmain.c
	@mkdir -p $(dir $@)
	$(CC) $(RC_PROG_CFLAGS) -fno-pie -no-pie -o $@ $< -L$(dir $@) -lrc_lib -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/progs/rc_libmain_pie: tests/progs/rc_libmain.c
	@mkdir -p $(dir $@)
	$(CC) $(RC_PROG_CFLAGS) -fPIE -pie -o $@ $< -L$(dir $@) -lrc_lib -Wl,-rpath,'$$ORIGIN'

$(BUILD)/tests/progs/rc_%: tests/progs/rc_%.c
	@mkdir -p $(dir $@)
	$(CC) $(RC_PROG_CFLAGS) -fno-pie -no-pie -o $@ $< -lpthread

$(BUILD)/tests/progs/rc_%_pie: tests/progs/rc_%.c
	@mkdir -p $(dir $@)
	$(CC) $(RC_PROG_CFLAGS) -fPIE -pie -o $@ $< -lpthread

tests: $(RC_PIE_BINS)

# The in-process agent of the trampoline backend (LD_PRELOADed into CMD).
# Built without sanitizers: it runs inside arbitrary programs.
DARC_AGENT := $(BUILD)/libosprof-darc-agent.so
DARC_AGENT_SRCS := $(wildcard rootcause/agent/*.c) $(wildcard rootcause/agent/*.S)
$(DARC_AGENT): $(DARC_AGENT_SRCS) $(wildcard rootcause/agent/*.h) rootcause/bpf/rootcause.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -I. -fno-omit-frame-pointer \
		-o $@ $(DARC_AGENT_SRCS) -lpthread -lrt
all: $(DARC_AGENT)

# System call names -> numbers for --syscall, from the installed headers.
RC_UNISTD := $(firstword $(wildcard /usr/include/x86_64-linux-gnu/asm/unistd_64.h /usr/include/asm/unistd_64.h))
$(BUILD)/gen/rc_syscalls.h: $(RC_UNISTD)
	@mkdir -p $(dir $@)
	sed -n 's/^#define __NR_\([a-z0-9_]*\)[ \t]\+\([0-9]\+\)$$/{"\1", \2},/p' $< > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/rootcause/kernel.o: $(BUILD)/gen/rc_syscalls.h

# The search engine's unit test links the rootcause objects and is compiled
# like the test programs (its own functions are the call tree it searches).
RC_ENGINE_OBJS := $(addprefix $(BUILD)/obj/rootcause/,search.o callsites.o elfsym.o procmaps.o \
	output.o peaks.o)
$(BUILD)/tests/test_rc_search: tests/unit/test_rc_search.c $(RC_ENGINE_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 -fno-inline -fno-omit-frame-pointer $(LDFLAGS) -o $@ $< \
		$(RC_ENGINE_OBJS) $(STATIC_LIB) -lelf -lcapstone $(LDLIBS)

# Fuzz target of the --state parser (run by tests/sh/fuzz_smoke.sh): the
# rootcause sources on top of the portable core.
RC_FUZZ_SRCS := $(addprefix rootcause/,output.c search.c peaks.c elfsym.c callsites.c procmaps.c)
$(BUILD)/fuzz/fuzz_rc_state: tests/fuzz/fuzz_rc_state.c $(RC_FUZZ_SRCS) $(LIB_SRCS) $$(HTML_ASSETS_H) \
		$$(PROM_PB_C)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(RC_FUZZ_SRCS) $(LIB_SRCS) $(PROM_PB_C) -lprotobuf-c -lelf \
		-lcapstone -lzstd -lz -lm -lpthread

# The relocator's unit test: osprof's planner and the agent's emitter.
$(BUILD)/tests/test_rc_reloc: tests/unit/test_rc_reloc.c $(BUILD)/obj/rootcause/reloc.o \
		rootcause/agent/reloc_emit.c rootcause/agent/reloc.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/obj/rootcause/reloc.o \
		rootcause/agent/reloc_emit.c -lcapstone $(LDLIBS)

# Entry cases of the trampoline relocator (tests/sh/rootcause_entry.sh):
# optimised as distributions build, without and with CET's endbr64.
RCX_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=gnu11
$(BUILD)/tests/progs/rcx_entry_o2: tests/progs/rcx_entry.c
	@mkdir -p $(dir $@)
	$(CC) $(RCX_CFLAGS) -fcf-protection=none -o $@ $<
$(BUILD)/tests/progs/rcx_entry_cet: tests/progs/rcx_entry.c
	@mkdir -p $(dir $@)
	$(CC) $(RCX_CFLAGS) -fcf-protection=full -o $@ $<
tests: $(BUILD)/tests/progs/rcx_entry_o2 $(BUILD)/tests/progs/rcx_entry_cet

# Debian's zlib as distributed (libz.a of zlib1g-dev, -O2, unmodified) under
# a small driver: the coverage test of the trampoline backend on ordinary
# optimised code (tests/sh/rootcause_zlib.sh). Static so that zlib's own
# static functions keep their symbols.
$(BUILD)/tests/progs/rcz_deflate: tests/progs/rcz_deflate.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -Wl,-Bstatic -Wl,--whole-archive -lz \
		-Wl,--no-whole-archive -Wl,-Bdynamic

# How the trampoline backend would instrument each function of a binary
# (tests/sh/rootcause_zlib.sh).
$(BUILD)/tests/rc_coverage: tests/tools/rc_coverage.c $(BUILD)/obj/rootcause/reloc.o \
		$(BUILD)/obj/rootcause/elfsym.o $(BUILD)/obj/rootcause/callsites.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.o,$^) -lelf -lcapstone $(LDLIBS)
tests: $(BUILD)/tests/rc_coverage $(BUILD)/tests/progs/rcz_deflate

# Patches every call site of a binary's functions under the agent at once
# (tests/sh/rootcause_zlib.sh).
RC_PATCH_ALL_OBJS := $(addprefix $(BUILD)/obj/,rootcause/be_tramp.o rootcause/reloc.o \
	rootcause/elfsym.o rootcause/callsites.o rootcause/procmaps.o collect/helper_path.o \
	rootcause/tramp_uprobe.o rootcause/uprobe_sites.o)
$(BUILD)/tests/rc_patch_all: tests/tools/rc_patch_all.c $(RC_PATCH_ALL_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(RC_PATCH_ALL_OBJS) $(STATIC_LIB) -lbpf -lelf -lcapstone -lrt \
		$(LDLIBS)
tests: $(BUILD)/tests/rc_patch_all
