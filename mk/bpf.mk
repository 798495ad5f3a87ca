# eBPF objects: ROOM/bpf/NAME.bpf.c -> $(BUILD)/gen/NAME.skel.h (bpftool
# skeleton, CO-RE against the running kernel's BTF). Collectors and rootcause
# include "NAME.skel.h"; every CLI object waits for all skeletons. The shared
# BPF headers are collect/bpf's (rootcause/bpf includes them: collect is
# below rootcause).
BPF_DIRS := collect/bpf rootcause/bpf
BPF_SRCS := $(foreach d,$(BPF_DIRS),$(wildcard $(d)/*.bpf.c))
BPF_OBJS := $(patsubst %.bpf.c,$(BUILD)/gen/%.bpf.o,$(notdir $(BPF_SRCS)))
BPF_SKELS := $(patsubst %.bpf.c,$(BUILD)/gen/%.skel.h,$(notdir $(BPF_SRCS)))
VMLINUX_H := $(BUILD)/gen/vmlinux.h
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BUILD)/gen -Icollect/bpf -Iinclude \
	-Wall -Wno-unused-function

$(VMLINUX_H):
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.bpf.o: collect/bpf/%.bpf.c $(VMLINUX_H) $(wildcard collect/bpf/*.h)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/gen/%.bpf.o: rootcause/bpf/%.bpf.c $(VMLINUX_H) $(wildcard collect/bpf/*.h) \
		$(wildcard rootcause/bpf/*.h)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/gen/%.skel.h: $(BUILD)/gen/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(CLI_OBJS): $(BPF_SKELS)

# Keep the objects: without this make deletes them as intermediates and every
# build regenerates the skeletons and recompiles the CLI.
.SECONDARY: $(BPF_OBJS)
