/* osprof export: a profile set in another program's format. */
#include <stdlib.h>
#include <string.h>
#include <osprof/output.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/options.h"

static const char usage_head[] =
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
    "Options:\n";

static const struct osp_opts_spec spec = {.cmd = "export", .head = usage_head, OSP_ARGS_ONE_FILE};

int cmd_export(int argc, char **argv)
{
	struct osp_prom_opts po = {0, NULL};
	const char *out = "-";
	int prom = 0, next;
	char err[512];
	struct osp_option opts[] = {
	    OSP_OPT_FLAG(0, "prometheus", &prom, "the format (the only one so far; required)"),
	    OSP_OPT_STRING('o', "output", &out, "OUT", "write OUT instead of stdout"),
	    OSP_OPT_UINT(0, "max-series", &po.max_series, 0, OSP_OPT_NOMAX, "a count", "N",
	                 "export the first N profiles of the file only (0 = all,\n"
	                 "the default); the rest are counted in the overflow\n"
	                 "counters"),
	    OSP_OPT_STRING(0, "host", &po.host, "NAME",
	                   "host label of profiles that have no host dimension"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	if (!prom)
		return osp_usage_err("export", "the format is required: --prometheus");
	if (osp_output_check(out, err, sizeof(err)))
		return osp_usage_err("export", "-o %s", err);
	struct osp_set *s = osp_cli_load(argv[next]);
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
