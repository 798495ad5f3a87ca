/* osprof report: histograms of a profile set, ops ranked by total latency. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <osprof/render.h>
#include <osprof/analysis.h>

static const char usage[] =
    "usage: osprof report [OPTIONS] FILE\n\n"
    "Prints a profile set: a summary of every profile ranked by total latency\n"
    "in one section per layer (count, total, share and cumulative share of the\n"
    "layer's latency, mean, min, max), then one histogram per profile in the\n"
    "layout of bcc's print_log2_hist.\n"
    "FILE '-' reads standard input.\n\n"
    "Options:\n"
    "  -n, --nsecs        histograms in nanoseconds\n"
    "  -u, --usecs        histograms in microseconds\n"
    "  -m, --msecs        histograms in milliseconds (default: per profile, the\n"
    "                     largest unit its fastest bucket reads >= 1 in)\n"
    "      --pct LIST     percentile columns, e.g. 50,90,99\n"
    "      --top N        only the N profiles with the largest total latency\n"
    "      --slices       also print time slices (profiles recorded with -i)\n"
    "      --summary      summary table only\n"
    "      --json         NDJSON: a first {\"type\":\"meta\"} object (the file's\n"
    "                     metadata), then one {\"type\":\"profile\"} per profile\n"
    "      --csv          CSV: one row per profile, one column per bucket (with\n"
    "                     --slices, one more row per time slice)\n"
    "      --nesting      only which operation ran inside which: measured (the\n"
    "                     operation in flight at the layer above, recorded by the\n"
    "                     kernel layers) and, where nothing was measured, guessed\n"
    "                     from equal counts. With --json, one object per line:\n"
    "                     outer, inner ({layer, op, dims}; outer op null = outside\n"
    "                     any op of that layer), calls, inner_calls, evidence\n"
    "                     (\"measured\" or \"count\")\n";

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

enum { OPT_PCT = 256, OPT_TOP, OPT_SLICES, OPT_JSON, OPT_CSV, OPT_SUMMARY, OPT_NESTING };

static int parse_pcts(const char *arg, struct osp_report_opts *o)
{
	char *copy = strdup(arg), *save, *tok;
	int rc = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v = strtod(tok, &end);
		if (*end || end == tok || v < 0 || v > 100 || o->npcts == OSP_MAX_PCTS)
			rc = osp_usage_err("report", "--pct: '%s' is not a percentile in 0..100",
			                   tok);
		else
			o->pcts[o->npcts++] = v;
	}
	free(copy);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"nsecs", no_argument, 0, 'n'},
	    {"usecs", no_argument, 0, 'u'},
	    {"msecs", no_argument, 0, 'm'},
	    {"pct", required_argument, 0, OPT_PCT},
	    {"top", required_argument, 0, OPT_TOP},
	    {"slices", no_argument, 0, OPT_SLICES},
	    {"json", no_argument, 0, OPT_JSON},
	    {"csv", no_argument, 0, OPT_CSV},
	    {"summary", no_argument, 0, OPT_SUMMARY},
	    {"nesting", no_argument, 0, OPT_NESTING},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct osp_report_opts o = {0};
	int c, format = 0, nesting = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":numh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.unit_div = 1;
			break;
		case 'u':
			o.unit_div = 1000;
			break;
		case 'm':
			o.unit_div = 1000000;
			break;
		case OPT_PCT:
			if (parse_pcts(optarg, &o))
				return OSP_EXIT_USAGE;
			break;
		case OPT_TOP: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0)
				return osp_usage_err(
				    "report", "--top: '%s' is not a positive number", optarg);
			o.top = (size_t)v;
			break;
		}
		case OPT_SLICES:
			o.slices = 1;
			break;
		case OPT_SUMMARY:
			o.no_hist = 1;
			break;
		case OPT_NESTING:
			nesting = 1;
			break;
		case OPT_JSON:
		case OPT_CSV:
			/* One output format per run: a second one is a mistake,
			 * not a choice to make silently. */
			if (format && format != c)
				return osp_usage_err("report",
				                     "--json and --csv exclude each other");
			format = c;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		case ':':
			return osp_usage_err("report", "%s needs an argument", argv[optind - 1]);
		default:
			return osp_usage_err("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (format && o.no_hist)
		return osp_usage_err("report", "--summary is a text layout: not with %s",
		                     format == OPT_JSON ? "--json" : "--csv");
	if (optind != argc - 1)
		return osp_usage_err("report", "expected one FILE");
	if (nesting && format == OPT_CSV)
		return osp_usage_err("report", "--nesting is text or --json, not --csv");
	struct osp_set *s = osp_cli_load(argv[optind]);
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
		if (format == OPT_JSON) {
			osp_render_nesting_json(stdout, s, h, (size_t)n);
		} else {
			osp_print_nesting_measured(stdout, s);
			osp_print_nest_hints(stdout, h, (size_t)n);
		}
		free(h);
	} else if (format == OPT_JSON)
		osp_render_json(stdout, s, &o);
	else if (format == OPT_CSV)
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
