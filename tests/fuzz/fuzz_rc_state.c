/* libFuzzer target: the osprof rootcause --state file parser
 * (rc_state_load) on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rootcause/output.h"
#include "rootcause/search.h"

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_rc_state.%d", (int)getpid());
		atexit(cleanup);
	}
	FILE *f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct rc_space space = {0};
	struct rc_params p;
	rc_params_default(&p);
	struct rc_search s;
	rc_search_init(&s, &p, NULL, &space);
	struct rc_state st;
	rc_state_load(path, &s, &st);
	rc_search_free(&s);
	return 0;
}
