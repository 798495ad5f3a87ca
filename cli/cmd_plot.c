/* osprof plot: per-op latency plots as SVG (drawn natively), PNG (through
 * gnuplot) or a gnuplot script. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <osprof/output.h>
#include <osprof/analysis.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/view_sets.h"

static const char plot_help[] =
    "usage: osprof plot [OPTIONS] FILE\n"
    "\n"
    "Draws the latency distribution of each profile of FILE (a .osp profile set):\n"
    "x is the log2 latency bucket labelled in ns/us/ms, y the operation count on a\n"
    "log scale; peaks are shaded and labelled with their mean and share of\n"
    "operations. Profiles are stacked by total latency, largest first. Profiles\n"
    "recorded with time slices (-i) also get a heat map: time down, latency bucket\n"
    "across, colour = count (the 3-D view of the OSprof paper).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   where to write (default osprof.svg). The extension picks\n"
    "                      the format: .svg (native), .png (runs gnuplot),\n"
    "                      .gp (a gnuplot script with the data inline); '-' writes\n"
    "                      SVG to standard output\n"
    "  -f, --format FMT    svg, png or gp, overriding the extension\n"
    "      --op OP         only profiles of OP: an op name (read), layer:op\n"
    "                      (syscall:read) or a full label ('syscall:read pid=42')\n"
    "      --diff B        overlay the matching profiles of profile set B (outlined)\n"
    "      --drop-dim LIST sum profiles over these dimensions first (e.g. pid:\n"
    "                      pids differ between runs; time slices are left out)\n"
    "  -n, --top N         at most N profiles (default 30, 0 = all)\n"
    "      --total         add a right axis with the latency spent in each bucket\n"
    "      --heatmap       require time slices (error if FILE has none)\n"
    "      --no-heatmap    never draw heat maps\n"
    "  -h, --help          this text\n"
    "\n"
    "Examples:\n"
    "  osprof plot -o read.svg --op syscall:read run.osp\n"
    "  osprof plot -o cmp.png --diff after.osp before.osp\n"
    "  osprof plot -o all.gp --top 0 run.osp && gnuplot -p all.gp\n"
    "\n"
    "Exit status: 0 ok, 1 failure (e.g. gnuplot failed), 2 bad usage or input.\n";

enum fmt { FMT_SVG, FMT_PNG, FMT_GP };

static int parse_fmt(const char *s, enum fmt *f)
{
	if (!strcmp(s, "svg"))
		*f = FMT_SVG;
	else if (!strcmp(s, "png"))
		*f = FMT_PNG;
	else if (!strcmp(s, "gp") || !strcmp(s, "gnuplot"))
		*f = FMT_GP;
	else
		return -1;
	return 0;
}

/* gnuplot writes the PNG to this descriptor of its own ("/dev/fd/3"), the
 * stream of our output, so that it never opens the target by name. */
enum { GNUPLOT_OUT_FD = 3 };

/* Runs gnuplot on script with out_fd as its GNUPLOT_OUT_FD; 0 or 1 after
 * printing why not. */
static int run_gnuplot(const char *script, int out_fd)
{
	pid_t pid = fork();
	if (pid < 0) {
		osp_err("plot: fork: %s", strerror(errno));
		return OSP_EXIT_FAIL;
	}
	if (pid == 0) {
		if (out_fd == GNUPLOT_OUT_FD)
			fcntl(out_fd, F_SETFD, 0);
		else if (dup2(out_fd, GNUPLOT_OUT_FD) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		fprintf(stderr,
		        "osprof plot: cannot run gnuplot (%s): PNG output needs it "
		        "(apt-get install gnuplot-nox); use -o FILE.svg instead\n",
		        strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return OSP_EXIT_FAIL;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 127)
			osp_err("plot: gnuplot failed on %s (status %d)", script,
			        WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return OSP_EXIT_FAIL;
	}
	return OSP_EXIT_OK;
}

static int plot_png(const struct osp_set *a, const struct osp_plot_opts *o, const char *out)
{
	char script[] = "/tmp/osprof-plot-XXXXXX";
	int fd = mkstemp(script);
	if (fd < 0) {
		osp_err("plot: temporary file: %s", strerror(errno));
		return OSP_EXIT_FAIL;
	}
	FILE *f = fdopen(fd, "w");
	char err[512], gp_out[32];
	snprintf(gp_out, sizeof(gp_out), "/dev/fd/%d", GNUPLOT_OUT_FD);
	int rc = OSP_EXIT_FAIL;
	struct osp_output w;
	if (!f) {
		close(fd);
	} else if (osp_render_gnuplot(f, a, o, "pngcairo", gp_out, err, sizeof(err)) < 0) {
		fclose(f);
		osp_err("plot: %s", err);
		rc = OSP_EXIT_USAGE;
	} else if (fclose(f) == 0) {
		if (osp_output_open(&w, out, err, sizeof(err)) < 0) {
			osp_err("plot: %s", err);
		} else {
			fflush(w.f);
			rc = run_gnuplot(script, fileno(w.f));
			if (rc != OSP_EXIT_OK) {
				osp_output_abort(&w);
			} else if (osp_output_commit(&w, err, sizeof(err)) < 0) {
				osp_err("plot: %s", err);
				rc = OSP_EXIT_FAIL;
			}
		}
	}
	unlink(script);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option lo[] = {{"output", required_argument, NULL, 'o'},
	                                   {"format", required_argument, NULL, 'f'},
	                                   {"op", required_argument, NULL, 1},
	                                   {"diff", required_argument, NULL, 2},
	                                   {"top", required_argument, NULL, 'n'},
	                                   {"total", no_argument, NULL, 3},
	                                   {"heatmap", no_argument, NULL, 4},
	                                   {"drop-dim", required_argument, NULL, 6},
	                                   {"no-heatmap", no_argument, NULL, 5},
	                                   {"help", no_argument, NULL, 'h'},
	                                   {NULL, 0, NULL, 0}};
	struct osp_plot_opts o = {.top = 30};
	const char *out = "osprof.svg", *diff = NULL, *fmt_arg = NULL, *drop = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:f:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			fmt_arg = optarg;
			break;
		case 1:
			o.op = optarg;
			break;
		case 2:
			diff = optarg;
			break;
		case 'n': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v > 1000000)
				return osp_usage_err("plot", "-n/--top: '%s' is not a count",
				                     optarg);
			o.top = (unsigned)v;
			break;
		}
		case 3:
			o.total_axis = 1;
			break;
		case 4:
			o.heatmap = 1;
			break;
		case 5:
			o.heatmap = -1;
			break;
		case 6:
			drop = optarg;
			break;
		case 'h':
			fputs(plot_help, stdout);
			return OSP_EXIT_OK;
		default:
			return osp_usage_err("plot", "unknown option");
		}
	}
	if (optind != argc - 1)
		return osp_usage_err("plot", "expects exactly one profile FILE");
	enum fmt fmt = FMT_SVG;
	if (fmt_arg) {
		if (parse_fmt(fmt_arg, &fmt) < 0)
			return osp_usage_err("plot", "-f/--format: '%s' is not svg, png or gp",
			                     fmt_arg);
	} else if (strcmp(out, "-")) {
		const char *dot = strrchr(out, '.');
		if (!dot || parse_fmt(dot + 1, &fmt) < 0)
			return osp_usage_err("plot",
			                     "-o/--output: '%s' does not end in .svg, .png or .gp "
			                     "(or give -f FMT)",
			                     out);
	}
	if (fmt == FMT_PNG && !strcmp(out, "-"))
		return osp_usage_err("plot", "-o -: PNG cannot go to standard output");
	const char *file = argv[optind];
	struct osp_set *a = osp_cli_load(file), *b = NULL;
	if (!a)
		return OSP_EXIT_USAGE;
	if (diff && !(b = osp_cli_load(diff))) {
		osp_set_free(a);
		return OSP_EXIT_USAGE;
	}
	int drc = drop ? osp_cli_drop_dims("plot", drop, &a, &b) : 0;
	if (drc) {
		osp_set_free(a);
		osp_set_free(b);
		return drc;
	}
	if (osp_cli_common_resolution("plot", &a, file, &b, diff)) {
		osp_set_free(a);
		osp_set_free(b);
		return OSP_EXIT_FAIL;
	}
	/* Checked before any output file exists, so a refused plot leaves none
	 * (the renderers check it too, but only once the file is open). */
	if (o.heatmap > 0 && !a->slice_ns) {
		osp_set_free(a);
		osp_set_free(b);
		return osp_usage_err(
		    "plot", "--heatmap: %s is not time-sliced (record it with -i DUR)", file);
	}
	o.b = b;
	o.name_a = file;
	o.name_b = diff;
	struct osp_set *calib = osp_calib_load_default();
	o.calib = calib;
	int rc = OSP_EXIT_OK;
	if (o.top && a->n > o.top && !o.op)
		fprintf(stderr,
		        "osprof plot: showing %u of %zu profiles, those with the most "
		        "latency (--top 0 for all)\n",
		        o.top, a->n);
	if (fmt == FMT_PNG) {
		rc = plot_png(a, &o, out);
	} else {
		struct osp_output w;
		char err[512];
		if (osp_output_open(&w, out, err, sizeof(err)) < 0) {
			osp_err("plot: %s", err);
			rc = OSP_EXIT_FAIL;
		} else {
			int r = fmt == FMT_SVG
			            ? osp_render_svg(w.f, a, &o, err, sizeof(err))
			            : osp_render_gnuplot(w.f, a, &o, NULL, NULL, err, sizeof(err));
			if (r < 0) {
				osp_err("plot: %s", err);
				osp_output_abort(&w);
				rc = OSP_EXIT_USAGE;
			} else if (osp_output_commit(&w, err, sizeof(err)) < 0) {
				osp_err("plot: %s", err);
				rc = OSP_EXIT_FAIL;
			}
		}
	}
	osp_set_free(calib);
	osp_set_free(a);
	osp_set_free(b);
	return rc;
}
