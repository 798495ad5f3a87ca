/* osprof trace profile: the profile set of a trace (trace/profile.c) into a
 * file. */
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
    "Options:\n";

static const char *const by_choices[] = {"pid", "comm", NULL};

static const struct osp_opts_spec spec = {.cmd = "trace profile", .head = usage, TRACE_ONE_PATH};

int trace_cmd_profile(int argc, char **argv)
{
	struct osp_trace_filter f;
	struct osp_option filters[TRACE_FILTER_NOPTS];
	trace_filter_options(filters, &f);
	const char *out = "trace.osp", *by = NULL;
	unsigned r = 1;
	uint64_t slice = 0;
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &out, "FILE",
	                   "where to write (default trace.osp; '-' = stdout)"),
	    OSP_OPT_RESOLUTION(&r),
	    OSP_OPT_DURATION('i', "interval", &slice, "DUR",
	                     "also keep time slices of DUR (e.g. 1s)"),
	    OSP_OPT_CHOICE(0, "by", &by, by_choices, "pid|comm",
	                   "one profile per process id or command name"),
	    OSP_OPT_GROUP(""),
	    OSP_OPT_INCLUDE(filters),
	    OSP_OPT_END,
	};
	int optind, rc = OSP_EXIT_OK;
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
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
