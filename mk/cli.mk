# The option layer's unit test links cli/options.o, which the generic test
# rule (library objects only) does not.
$(BUILD)/tests/test_cli_options: tests/unit/test_cli_options.c $(BUILD)/obj/cli/options.o \
		$(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/obj/cli/options.o $(STATIC_LIB) $(LDLIBS)
