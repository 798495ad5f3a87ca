# The bundled demo workload (scripts/demo.sh).
DEMO := $(BUILD)/osprof-demo
all: $(DEMO)
$(DEMO): workloads/demo.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<
