# libFuzzer targets: tests/fuzz/fuzz_NAME.c -> $(BUILD)/fuzz/fuzz_NAME, built
# with clang together with the portable core (instrumented for coverage).
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -I. -fsanitize=fuzzer,address,undefined

.PHONY: fuzz
fuzz: $(FUZZ_BINS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRCS) -lzstd -lz -lm -lpthread
