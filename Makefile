# osprof build. `make` builds into build/; `make SAN=1` builds an
# AddressSanitizer+UBSan variant into build-asan/. Area-specific rules live in
# mk/*.mk so each part of the tree owns its own build fragment.
SAN ?= 0
ifeq ($(SAN),1)
BUILD ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
OPT ?= -O2
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC $(SANFLAGS) \
	-Iinclude -I. -I$(BUILD)/gen -MMD -MP
LDFLAGS += $(SANFLAGS)
LDLIBS += -lm -lpthread

# Portable core: goes into libosprof.a / libosprof.so.
LIB_DIRS := lib analysis render trace
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)

# The osprof command: CLI, collectors (eBPF), root-cause search.
CLI_DIRS := cli collect rootcause
CLI_SRCS := $(foreach d,$(CLI_DIRS),$(wildcard $(d)/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_LIBS := -lbpf -lelf -lz -lzstd -lcapstone -lncursesw

PRELOAD_SRCS := $(wildcard preload/*.c)
PRELOAD_OBJS := $(PRELOAD_SRCS:%.c=$(BUILD)/obj/%.o)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRCS := $(wildcard tests/progs/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/progs/%.c=$(BUILD)/tests/progs/%)

STATIC_LIB := $(BUILD)/libosprof.a
SHARED_LIB := $(BUILD)/libosprof.so
OSPROF := $(BUILD)/osprof
PRELOAD := $(BUILD)/libosprof-preload.so

.PHONY: all tests clean format format-check
all: $(STATIC_LIB) $(SHARED_LIB) $(OSPROF) $(PRELOAD) tests

tests: $(UNIT_BINS) $(HELPER_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OSPROF): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(STATIC_LIB) $(CLI_LIBS) $(LDLIBS)

# The preload library carries its own copy of the few core objects it uses
# (clocks and bucket thresholds: it is loaded into every profiled process,
# which should not map the analysis, renderers and trace code) and has no
# run-time dependency beyond libc; --no-undefined makes a missing one a
# link error. tests/sh/preload_size.sh keeps it small.
PRELOAD_LIB_OBJS := $(addprefix $(BUILD)/obj/lib/,clock.o tsc.o log_table.o)
$(PRELOAD): $(PRELOAD_OBJS) $(PRELOAD_LIB_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=preload/exports.map -Wl,--no-undefined \
		-o $@ $(PRELOAD_OBJS) $(PRELOAD_LIB_OBJS) -ldl $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

$(BUILD)/tests/progs/%: tests/progs/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

-include mk/*.mk

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
