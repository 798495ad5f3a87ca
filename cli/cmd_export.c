/* osprof export: a profile set in another program's format. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/output.h>
#include <osprof/render.h>
#include "cli/cli.h"

static const char usage[] =
    "usage: osprof export --prometheus [-o OUT] [--max-series N] [--host NAME] FILE\n\n"
    "Writes the profile set FILE in the Prometheus text exposition format 0.0.4\n"
    "(to stdout, or to OUT, replaced atomically: what node_exporter's textfile\n"
    "collector expects of a NAME.prom file in its directory).\n"
    "Every profile is a histogram series: family osprof_LAYER_latency_seconds\n"
    "(osprof_LAYER_bytes, osprof_LAYER_value for other units), labels op, the\n"
    "profile's dimensions and host (the file's host when the profile has no host\n"
    "dimension), `le` buckets at osprof's own bucket bounds (exact: values are\n"
    "integer nanoseconds), _sum in seconds and _count. Then the counters\n"
    "osprof_lost_events_total, osprof_dropped_events_total,\n"
    "osprof_unpaired_events_total and osprof_series_overflow_total (profiles over\n"
    "the cap) with osprof_series_overflow_calls_total. docs/prometheus.md has the\n"
    "details.\n\n"
    "Options:\n"
    "  --prometheus     the format (the only one so far; required)\n"
    "  -o, --output OUT write OUT instead of stdout\n"
    "  --max-series N   export the first N profiles of the file only (0 = all,\n"
    "                   the default); the rest are counted in the overflow\n"
    "                   counters\n"
    "  --host NAME      host label of profiles that have no host dimension\n";

int cmd_export(int argc, char **argv)
{
	enum { OPT_PROM = 256, OPT_MAX, OPT_HOST };
	static const struct option longopts[] = {{"prometheus", no_argument, 0, OPT_PROM},
	                                         {"output", required_argument, 0, 'o'},
	                                         {"max-series", required_argument, 0, OPT_MAX},
	                                         {"host", required_argument, 0, OPT_HOST},
	                                         {"help", no_argument, 0, 'h'},
	                                         {0, 0, 0, 0}};
	struct osp_prom_opts po = {0, NULL};
	const char *out = "-";
	int c, prom = 0;
	char *end, err[512];
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PROM:
			prom = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_MAX:
			po.max_series = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-')
				return osp_usage_err("export", "--max-series: '%s' is not a count",
				                     optarg);
			break;
		case OPT_HOST:
			po.host = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		default:
			return osp_usage_err("export", "%s: %s", argv[optind - 1],
			                     c == ':' ? "needs an argument" : "unknown option");
		}
	}
	if (!prom)
		return osp_usage_err("export", "the format is required: --prometheus");
	if (optind != argc - 1)
		return osp_usage_err("export", "expected one FILE");
	if (osp_output_check(out, err, sizeof(err)))
		return osp_usage_err("export", "-o %s", err);
	struct osp_set *s = osp_cli_load(argv[optind]);
	if (!s)
		return OSP_EXIT_USAGE;
	struct osp_output w;
	int rc = OSP_EXIT_FAIL;
	if (osp_output_open(&w, out, err, sizeof(err)) < 0) {
		osp_err("export: %s", err);
	} else if (osp_render_prometheus(w.f, s, &po) < 0) {
		osp_err("export: %s: write error or out of memory", out);
		osp_output_abort(&w);
	} else if (osp_output_commit(&w, err, sizeof(err)) < 0) {
		osp_err("export: %s", err);
	} else {
		rc = OSP_EXIT_OK;
	}
	osp_set_free(s);
	return rc;
}
