/* osprof html: one self-contained, offline HTML report of a profile set,
 * optionally compared with a second one. */
#include <errno.h>
#include <stdlib.h>
#include <osprof/output.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/view_sets.h"

static const char usage_head[] =
    "usage: osprof html [OPTIONS] FILE [B]\n"
    "\n"
    "Writes one HTML file that works offline (no external script, style or font)\n"
    "with five views of the profile set FILE:\n"
    "  grid      every profile in a sortable, filterable table: layer, op,\n"
    "            dimensions, count, total latency, share, mean, p50, p99, peaks\n"
    "  graph     the histogram of the selected profile with its peaks and\n"
    "            characteristic-time annotations; log/linear count axis\n"
    "  heat map  time slice x latency bucket, colour = count (files recorded -i)\n"
    "  tree      layers nested per process: user -> system call -> file system\n"
    "            -> block, with counts and latency; root-cause call paths\n"
    "  diff      with a second set B: profiles ranked by how much they differ,\n"
    "            with A and B histograms overlaid\n"
    "Keys in the report: 1-5 switch views, Up/Down or j/k select, Enter opens the\n"
    "graph, l toggles log/linear, / filters, Esc returns to the grid.\n"
    "\n"
    "Options:\n";

static const char usage_tail[] = "\n"
                                 "Examples:\n"
                                 "  osprof html -o report.html run.osp\n"
                                 "  osprof html -o cmp.html before.osp after.osp\n"
                                 "\n"
                                 "Exit status: 0 ok, 1 failure, 2 bad usage or input.\n";

static const struct osp_opts_spec spec = {
    .cmd = "html",
    .head = usage_head,
    .tail = usage_tail,
    OSP_ARGS(1, 2, "expects FILE and optionally a second FILE B")};

int cmd_html(int argc, char **argv)
{
	const char *out = "osprof.html", *rcfile = NULL, *drop = NULL;
	unsigned heatmaps = 100;
	int optind;
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &out, "FILE",
	                   "where to write (default osprof.html; '-' = stdout)"),
	    OSP_OPT_STRING(0, "drop-dim", &drop, "LIST",
	                   "sum profiles over these dimensions first (e.g. pid:\n"
	                   "pids differ between runs; time slices are left out)"),
	    OSP_OPT_UINT(0, "heatmaps", &heatmaps, 0, 1000000, "a count", "N",
	                 "embed the time slices (heat maps) of the N sliced\n"
	                 "profiles with the most latency (default 100, 0 = all)"),
	    OSP_OPT_STRING(0, "rootcause", &rcfile, "FOLDED",
	                   "add a root-cause tree from folded call stacks\n"
	                   "('frame;frame;... COUNT' lines, as written by\n"
	                   "'osprof rootcause --folded' or for flamegraph.pl)"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
	const char *fa = argv[optind], *fb = argc - optind == 2 ? argv[optind + 1] : NULL;
	struct osp_set *a = osp_cli_load(fa), *b = NULL;
	if (!a)
		return OSP_EXIT_USAGE;
	if (fb && !(b = osp_cli_load(fb))) {
		osp_set_free(a);
		return OSP_EXIT_USAGE;
	}
	int rc = OSP_EXIT_OK;
	struct osp_folded_set folded = {0};
	if (rcfile) {
		char err[512];
		FILE *rf = fopen(rcfile, "r");
		if (!rf) {
			osp_err("html: --rootcause %s: %s", rcfile, strerror(errno));
			rc = OSP_EXIT_USAGE;
			goto out;
		}
		int r = osp_folded_read(rf, rcfile, &folded, err, sizeof(err));
		fclose(rf);
		if (r < 0) {
			fprintf(stderr, "%s\n", err);
			rc = OSP_EXIT_USAGE;
			goto out;
		}
	}
	if (drop && (rc = osp_cli_drop_dims("html", drop, &a, &b)))
		goto out;
	if (osp_cli_common_resolution("html", &a, fa, &b, fb)) {
		rc = OSP_EXIT_FAIL;
		goto out;
	}
	struct osp_output o;
	char err2[512];
	if (osp_output_open(&o, out, err2, sizeof(err2)) < 0) {
		osp_err("html: %s", err2);
		rc = OSP_EXIT_FAIL;
		goto out;
	}
	FILE *f = o.f;
	struct osp_set *calib = osp_calib_load_default();
	struct osp_html_opts ho = {.name_a = fa,
	                           .b = b,
	                           .name_b = fb,
	                           .rootcause = rcfile ? &folded : NULL,
	                           .rootcause_name = rcfile,
	                           .max_heatmaps = heatmaps,
	                           .calib = calib};
	if (osp_render_html(f, a, &ho) < 0) {
		osp_err("html: %s: write failed", out);
		osp_output_abort(&o);
		rc = OSP_EXIT_FAIL;
	} else if (osp_output_commit(&o, err2, sizeof(err2)) < 0) {
		osp_err("html: %s", err2);
		rc = OSP_EXIT_FAIL;
	}
	osp_set_free(calib);
out:
	osp_folded_free(&folded);
	osp_set_free(a);
	osp_set_free(b);
	return rc;
}
