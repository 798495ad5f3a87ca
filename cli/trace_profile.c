/* osprof trace profile: the profile set of a trace. Layer "syscall" with
 * op = the system call's name, so it counts what the live syscall layer
 * counts for the same run; fs and block events go to layers "fs"/"block". */
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

struct prof_ctx {
	struct osp_set *set;
	struct osp_profile *cache[OSP_TOP_NR];
	uint64_t origin;
	const char *by;
};

static int add_event(void *vctx, const struct osp_trace_event *ev)
{
	struct prof_ctx *c = vctx;
	const char *op = osp_trace_op_name(ev->op);
	char opbuf[24];
	if (!op) {
		snprintf(opbuf, sizeof(opbuf), "op%u", ev->op);
		op = opbuf;
	}
	struct osp_profile *p = NULL;
	if (!c->by && ev->op < OSP_TOP_NR)
		p = c->cache[ev->op];
	if (!p) {
		char val[32];
		struct osp_dim d = {(char *)c->by, val};
		if (c->by && !strcmp(c->by, "pid"))
			snprintf(val, sizeof(val), "%u", ev->pid);
		else if (c->by)
			snprintf(val, sizeof(val), "%s", ev->comm[0] ? ev->comm : "?");
		p = osp_set_get(c->set, osp_trace_layer_name(osp_trace_op_layer(ev->op)), op,
		                c->by ? &d : NULL, c->by ? 1 : 0);
		if (!p)
			return 1;
		if (!c->by && ev->op < OSP_TOP_NR)
			c->cache[ev->op] = p;
	}
	osp_profile_add(c->set, p, ev->lat_ns, ev->ts_ns > c->origin ? ev->ts_ns - c->origin : 0);
	return 0;
}

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
	struct trace_filter f = {0};
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
	struct trace_totals t;
	if ((rc = trace_walk("profile", path, NULL, NULL, NULL, &t)))
		return rc; /* first pass: the time origin */
	struct prof_ctx ctx = {.set = osp_set_new(r), .origin = t.first_ts, .by = by};
	if (!ctx.set)
		return OSP_EXIT_FAIL;
	ctx.set->slice_ns = slice;
	rc = trace_walk("profile", path, &f, add_event, &ctx, &t);
	if (rc) {
		osp_set_free(ctx.set);
		return rc == 1 ? OSP_EXIT_FAIL : rc;
	}
	struct osp_set *s = ctx.set;
	osp_set_meta(s, "host", t.host.hostname);
	osp_set_meta(s, "kernel", t.host.kernel);
	osp_set_metaf(s, "cpus", "%u", t.host.cpus);
	osp_set_metaf(s, "start_wall_ns", "%" PRIu64, t.host.start_wall_ns);
	osp_set_meta(s, "unit", "ns");
	osp_set_meta(s, "clock", "CLOCK_MONOTONIC");
	osp_set_meta(s, "source", "trace");
	osp_set_meta(s, "trace", path);
	osp_set_meta(s, "command", t.host.target);
	osp_set_metaf(s, "duration_ns", "%" PRIu64,
	              t.last_end > t.first_ts ? t.last_end - t.first_ts : 0);
	osp_meta_add_u64(s, "lost_events", t.dropped);
	char err[512];
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
