/* osprof list: what can be profiled here, per layer, and the attach mode
 * each layer would use on this kernel. */
#include <string.h>
#include "cli/cli.h"
#include "collect/layer.h"

static const char usage[] =
    "usage: osprof list [-v] [LAYER]\n\n"
    "Lists the collection layers compiled in, what each can profile on this\n"
    "machine and the attach mode it would use (tp_btf, raw_tp, tracepoint,\n"
    "fentry, kprobe, uprobe). With LAYER, lists that layer's operations one per\n"
    "line. Kernel layers need root to probe this kernel; without root they say\n"
    "so instead of guessing.\n"
    "  -v, --verbose   list every operation of every layer\n";

int cmd_list(int argc, char **argv)
{
	int verbose = 0;
	const char *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = 1;
		} else if (argv[i][0] == '-') {
			return osp_usage_err("list", "unknown option '%s'", argv[i]);
		} else if (!only) {
			only = argv[i];
		} else {
			return osp_usage_err("list", "unexpected argument '%s'", argv[i]);
		}
	}
	if (only && !osp_layer_find(only)) {
		char avail[256] = "";
		for (int i = 0; osp_layers[i]; i++)
			snprintf(avail + strlen(avail), sizeof(avail) - strlen(avail), "%s%s",
			         i ? ", " : "", osp_layers[i]->name);
		return osp_usage_err("list", "unknown layer '%s' (available: %s)", only, avail);
	}
	int rc = OSP_EXIT_OK;
	for (int i = 0; osp_layers[i]; i++) {
		const struct osp_layer *l = osp_layers[i];
		if (only && strcmp(only, l->name))
			continue;
		if (!l->list) {
			printf("%-8s %s\n", l->name, l->summary);
			continue;
		}
		if (l->list(stdout, verbose || only != NULL) < 0)
			rc = OSP_EXIT_FAIL;
	}
	return rc;
}
