/* osprof trace profile: the profile set of a trace (trace/profile.c) into a
 * file. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/trace_cmds.h"
#include "cli/trace_common.h"

static const char usage[] =
    "usage: osprof trace profile [-o OUT.osp] [-r N] [-i DUR] [--by pid|comm]\n"
    "                            [FILTERS] DIR|FILE\n\n"
    "Builds the latency profile set of a trace: one log2 histogram per (layer,\n"
    "operation), the layers being syscall (op = system call name, the same keys and\n"
    "counts as 'osprof run -l syscall' of the same run), fs and block. Events\n"
    "dropped while recording are stored as lost_events. Read the result with\n"
    "'osprof report OUT.osp'.\n\n"
    "  -o, --output FILE    where to write (default trace.osp; '-' = stdout)\n"
    "  -r, --resolution N   buckets per power of two: 1, 2, 4, 8, 16 (default 1)\n"
    "  -i, --interval DUR   also keep time slices of DUR (e.g. 1s)\n"
    "      --by pid|comm    one profile per process id or command name\n\n" TRACE_FILTER_HELP;

int trace_cmd_profile(int argc, char **argv)
{
	static const struct option longopts[] = {
	    TRACE_FILTER_LONGOPTS,
	    {"output", required_argument, NULL, 'o'},
	    {"resolution", required_argument, NULL, 'r'},
	    {"interval", required_argument, NULL, 'i'},
	    {"by", required_argument, NULL, 1},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct osp_trace_filter f = {0};
	const char *out = "trace.osp", *by = NULL;
	unsigned r = 1;
	uint64_t slice = 0;
	int c, rc;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:r:i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if ((rc = osp_cli_resolution("trace profile", optarg, &r)))
				return rc;
			break;
		case 'i':
			if (osp_parse_duration(optarg, &slice) || !slice)
				return osp_usage_err("trace profile", "-i: '%s' is not a duration",
				                     optarg);
			break;
		case 1:
			if (strcmp(optarg, "pid") && strcmp(optarg, "comm"))
				return osp_usage_err("trace profile",
				                     "--by: '%s' is not pid or comm", optarg);
			by = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		case ':':
			return osp_usage_err("trace profile", "option %s needs a value",
			                     argv[optind - 1]);
		default:
			if (c >= 1000) {
				if ((rc = trace_filter_opt("trace profile", &f, c, optarg)))
					return rc;
				break;
			}
			return osp_usage_err("trace profile", "unknown option '%s'",
			                     argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return osp_usage_err("trace profile", "give one trace directory or segment file");
	const char *path = argv[optind];
	struct osp_trace_totals t;
	char err[600];
	trace_warn_as("profile");
	struct osp_set *s =
	    osp_trace_profile(path, &f, r, slice, by, trace_warn, &t, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "osprof trace profile: %s\n", err);
		return OSP_EXIT_USAGE;
	}
	if (!strcmp(out, "-")) {
		rc = osp_set_write(s, stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
	} else if (osp_set_save(s, out, err, sizeof(err))) {
		osp_err("trace profile: %s", err);
		rc = OSP_EXIT_FAIL;
	} else {
		fprintf(stderr, "osprof: %zu profiles (%" PRIu64 " events) written to %s\n", s->n,
		        t.matched, out);
	}
	osp_set_free(s);
	return rc;
}
