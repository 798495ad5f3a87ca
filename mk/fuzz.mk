# libFuzzer targets: tests/fuzz/fuzz_NAME.c -> $(BUILD)/fuzz/fuzz_NAME, built
# with clang together with the portable core (instrumented for coverage).
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -I. -I$(BUILD)/gen -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

.PHONY: fuzz
fuzz: $(FUZZ_BINS)

# Generated files of the core (the HTML report's assets, the Prometheus
# protobuf code, defined in later fragments: hence the second expansion)
# come first.
.SECONDEXPANSION:
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS) $$(HTML_ASSETS_H) $$(PROM_PB_C)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRCS) $(PROM_PB_C) -lprotobuf-c -lzstd -lz -lm -lpthread
