/* osprof list: what each compiled-in layer can profile on this machine and
 * the attach mode it would use (each layer's list() hook). */
#include <getopt.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "collect/layer.h"

static const char usage[] =
    "usage: osprof list [-v] [LAYER]\n\n"
    "Prints, for every layer compiled into osprof (or only LAYER), what it\n"
    "can profile here and the attach mode it would use; layers that need\n"
    "root say so when run without it.\n\n"
    "  -v, --verbose   more detail (paths, probe names)\n";

static int list_one(const struct osp_layer *l, int verbose)
{
	if (l->needs_root && geteuid() != 0)
		printf("%s: needs root (%s)\n", l->name, l->summary);
	else if (!l->list)
		printf("%s: %s\n", l->name, l->summary);
	else
		return l->list(stdout, verbose) < 0 ? OSP_EXIT_FAIL : OSP_EXIT_OK;
	return OSP_EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c, verbose = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		if (c == 'v') {
			verbose = 1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		} else {
			return osp_usage_err("list", "%s: unknown option", argv[optind - 1]);
		}
	}
	if (optind + 1 < argc)
		return osp_usage_err("list", "%s: only one LAYER may be given", argv[optind + 1]);
	if (optind < argc) {
		const struct osp_layer *l = osp_layer_find(argv[optind]);
		if (!l)
			return osp_usage_err("list", "%s: unknown layer", argv[optind]);
		return list_one(l, verbose);
	}
	int rc = OSP_EXIT_OK;
	for (int i = 0; osp_layers[i]; i++)
		if (list_one(osp_layers[i], verbose) != OSP_EXIT_OK)
			rc = OSP_EXIT_FAIL;
	return rc;
}
