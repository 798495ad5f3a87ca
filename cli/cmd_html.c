/* osprof html: one self-contained, offline HTML report of a profile set,
 * optionally compared with a second one. */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <osprof/views.h>
#include "cli/cli.h"

static const char html_help[] =
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
    "Options:\n"
    "  -o, --output FILE   where to write (default osprof.html; '-' = stdout)\n"
    "  -h, --help          this text\n"
    "\n"
    "Examples:\n"
    "  osprof html -o report.html run.osp\n"
    "  osprof html -o cmp.html before.osp after.osp\n"
    "\n"
    "Exit status: 0 ok, 1 failure, 2 bad usage or input.\n";

int cmd_html(int argc, char **argv)
{
	static const struct option lo[] = {{"output", required_argument, NULL, 'o'},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	const char *out = "osprof.html";
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(html_help, stdout);
			return OSP_EXIT_OK;
		default:
			return osp_usage_err("html", "unknown option");
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return osp_usage_err("html", "expects FILE and optionally a second FILE B");
	const char *fa = argv[optind], *fb = argc - optind == 2 ? argv[optind + 1] : NULL;
	struct osp_set *a = osp_cli_load(fa), *b = NULL;
	if (!a)
		return OSP_EXIT_USAGE;
	if (fb && !(b = osp_cli_load(fb))) {
		osp_set_free(a);
		return OSP_EXIT_USAGE;
	}
	int rc = OSP_EXIT_OK;
	if (b && b->r != a->r) {
		osp_err(
		    "html: %s has resolution r=%u but %s has r=%u; record both with the same -r",
		    fb, b->r, fa, a->r);
		rc = OSP_EXIT_USAGE;
		goto out;
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		osp_err("html: %s: %s", out, strerror(errno));
		rc = OSP_EXIT_FAIL;
		goto out;
	}
	if (osp_render_html(f, a, fa, b, fb) < 0) {
		osp_err("html: %s: write failed", out);
		rc = OSP_EXIT_FAIL;
	}
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
		osp_err("html: %s: %s", out, strerror(errno));
		rc = OSP_EXIT_FAIL;
	}
out:
	osp_set_free(a);
	osp_set_free(b);
	return rc;
}
