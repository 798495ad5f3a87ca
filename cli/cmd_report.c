/* osprof report: histograms of a profile set, ops ranked by total latency. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include <osprof/render.h>
#include <osprof/analysis.h>

static const char usage_head[] =
    "usage: osprof report [OPTIONS] FILE\n\n"
    "Prints a profile set: a summary of every profile ranked by total latency\n"
    "in one section per layer (count, total, share and cumulative share of the\n"
    "layer's latency, mean, min, max), then one histogram per profile in the\n"
    "layout of bcc's print_log2_hist.\n"
    "FILE '-' reads standard input.\n\n"
    "Options:\n";

/* Analysis under the text report: measured nesting, then count matches
 * (marked as guesses) where nothing was measured, after the summary, the peaks (with
 * characteristic-time matches from the default calibration) under each histogram. */
static void report_hints(FILE *out, const struct osp_set *s, void *ctx)
{
	struct osp_nest_hint *h;
	long n = osp_nesting_hints(s, -1, &h);
	(void)ctx;
	osp_print_nesting_measured(out, s);
	if (n > 0)
		osp_print_nest_hints(out, h, (size_t)n);
	if (n >= 0)
		free(h);
}

static void report_peaks(FILE *out, const struct osp_profile *p, void *ctx)
{
	osp_print_peak_table(out, p, ctx, NULL);
}

enum { FORMAT_JSON = 1, FORMAT_CSV };

static int add_pct(const char *item, void *ctx)
{
	struct osp_report_opts *o = ctx;
	if (o->npcts == OSP_MAX_PCTS || osp_opt_parse_double(item, 0, 100, &o->pcts[o->npcts]))
		return osp_usage_err("report", "--pct: '%s' is not a percentile in 0..100", item);
	o->npcts++;
	return 0;
}

static int parse_pcts(const char *cmd, const char *flag, const char *arg, void *o)
{
	(void)cmd;
	(void)flag;
	return osp_opt_each(arg, add_pct, o);
}

static const struct osp_opts_spec spec = {.cmd = "report", .head = usage_head, OSP_ARGS_ONE_FILE};

int cmd_report(int argc, char **argv)
{
	struct osp_report_opts o = {0};
	int format = 0, nesting = 0, next;
	struct osp_option opts[] = {
	    OSP_OPT_SET('n', "nsecs", &o.unit_div, 1, "histograms in nanoseconds"),
	    OSP_OPT_SET('u', "usecs", &o.unit_div, 1000, "histograms in microseconds"),
	    OSP_OPT_SET('m', "msecs", &o.unit_div, 1000000,
	                "histograms in milliseconds (default: per profile, the\n"
	                "largest unit its fastest bucket reads >= 1 in)"),
	    OSP_OPT_CALL(0, "pct", &o, parse_pcts, "LIST", "percentile columns, e.g. 50,90,99"),
	    OSP_OPT_UINT(0, "top", &o.top, 1, OSP_OPT_NOMAX, "a positive number", "N",
	                 "only the N profiles with the largest total latency"),
	    OSP_OPT_FLAG(0, "slices", &o.slices,
	                 "also print time slices (profiles recorded with -i)"),
	    OSP_OPT_FLAG(0, "summary", &o.no_hist, "summary table only"),
	    OSP_OPT_ONE_OF(0, "json", &format, FORMAT_JSON,
	                   "NDJSON: a first {\"type\":\"meta\"} object (the file's\n"
	                   "metadata), then one {\"type\":\"profile\"} per profile"),
	    OSP_OPT_ONE_OF(0, "csv", &format, FORMAT_CSV,
	                   "CSV: one row per profile, one column per bucket (with\n"
	                   "--slices, one more row per time slice)"),
	    OSP_OPT_FLAG(0, "nesting", &nesting,
	                 "only which operation ran inside which: measured (the\n"
	                 "operation in flight at the layer above, recorded by the\n"
	                 "kernel layers) and, where nothing was measured, guessed\n"
	                 "from equal counts. With --json, one object per line:\n"
	                 "outer, inner ({layer, op, dims}; outer op null = outside\n"
	                 "any op of that layer), calls, inner_calls, evidence\n"
	                 "(\"measured\" or \"count\")"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	if (format && o.no_hist)
		return osp_usage_err("report", "--summary is a text layout: not with %s",
		                     format == FORMAT_JSON ? "--json" : "--csv");
	if (nesting && format == FORMAT_CSV)
		return osp_usage_err("report", "--nesting is text or --json, not --csv");
	struct osp_set *s = osp_cli_load(argv[next]);
	if (!s)
		return OSP_EXIT_USAGE;
	if (nesting) {
		struct osp_nest_hint *h;
		long n = osp_nesting_hints(s, -1, &h);
		if (n < 0) {
			osp_set_free(s);
			osp_err("report: out of memory");
			return OSP_EXIT_FAIL;
		}
		if (format == FORMAT_JSON) {
			osp_render_nesting_json(stdout, s, h, (size_t)n);
		} else {
			osp_print_nesting_measured(stdout, s);
			osp_print_nest_hints(stdout, h, (size_t)n);
		}
		free(h);
	} else if (format == FORMAT_JSON)
		osp_render_json(stdout, s, &o);
	else if (format == FORMAT_CSV)
		osp_render_csv(stdout, s, &o);
	else {
		struct osp_set *calib = osp_calib_load_default();
		o.after_summary = report_hints;
		o.after_hist = report_peaks;
		o.ctx = calib;
		osp_render_text(stdout, s, &o);
		osp_set_free(calib);
	}
	osp_set_free(s);
	return fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
}
