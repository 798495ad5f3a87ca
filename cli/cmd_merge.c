/* osprof merge: add profile sets, e.g. the same workload on many hosts. */
#include <getopt.h>
#include <string.h>
#include "cli/cli.h"

static const char usage[] = "usage: osprof merge -o OUT FILE...\n\n"
                            "Adds the profile sets FILE... into OUT: histograms of the same\n"
                            "(layer, op, dimensions) are summed, lost and unpaired event counts\n"
                            "are added, other metadata comes from the first file. All files must\n"
                            "have the same resolution r, and either all or none are sliced (-i),\n"
                            "with one slice length. Counts that would exceed 2^64-1 are refused,\n"
                            "never wrapped: FILEs that cannot be added give status 2 and no OUT.\n";

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *out = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		} else {
			return osp_usage_err("merge", "%s: %s", argv[optind - 1],
			                     c == ':' ? "needs an argument" : "unknown option");
		}
	}
	if (!out)
		return osp_usage_err("merge", "-o OUT is required");
	if (optind >= argc)
		return osp_usage_err("merge", "no input FILE");
	struct osp_set *dst = NULL;
	int rc = OSP_EXIT_OK;
	char err[512];
	for (int i = optind; i < argc && rc == OSP_EXIT_OK; i++) {
		struct osp_set *s = osp_cli_load(argv[i]);
		if (!s) {
			rc = OSP_EXIT_USAGE;
		} else if (!dst) {
			dst = s;
			s = NULL;
		} else if (!dst->slice_ns != !s->slice_ns) {
			/* the sliced file's slices would sum to less than the merged
			 * totals, and heatmaps would silently miss the other file */
			fprintf(
			    stderr,
			    "osprof merge: %s: %s sliced (-i) and %s is not: merge files of one "
			    "kind\n",
			    argv[i], s->slice_ns ? "is" : "is not", argv[optind]);
			rc = OSP_EXIT_USAGE;
		} else if (osp_set_merge(dst, s, err, sizeof(err))) {
			fprintf(stderr, "osprof merge: %s: %s\n", argv[i], err);
			rc = OSP_EXIT_USAGE;
		}
		osp_set_free(s);
	}
	if (rc == OSP_EXIT_OK) {
		osp_set_metaf(dst, "merged_from", "%d files", argc - optind);
		if (osp_set_save(dst, out, err, sizeof(err))) {
			fprintf(stderr, "osprof merge: %s\n", err);
			rc = OSP_EXIT_FAIL;
		}
	}
	osp_set_free(dst);
	return rc;
}
