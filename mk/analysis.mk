# Analysis benchmarks (bench/diff_speed.sh), built with the rest so the
# scripts only run them.
ANALYSIS_BENCH := $(BUILD)/bench/diff_speed
all: $(ANALYSIS_BENCH)

$(BUILD)/bench/diff_speed: bench/diff_speed.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)
