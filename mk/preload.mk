# Benchmark helpers of the user-level profilers (bench/preload_overhead.sh,
# bench/profile_memory.sh), built with the rest so the scripts only run them.
PRELOAD_BENCH := $(BUILD)/bench/read_loop $(BUILD)/bench/profile_memory
all: $(PRELOAD_BENCH)

$(PRELOAD_BENCH): $(BUILD)/bench/%: bench/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)
