/* osprof plot: per-op latency plots as SVG (drawn natively), PNG (through
 * gnuplot) or a gnuplot script. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <osprof/output.h>
#include <osprof/analysis.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/view_sets.h"

static const char usage_head[] =
    "usage: osprof plot [OPTIONS] FILE\n"
    "\n"
    "Draws the latency distribution of each profile of FILE (a .osp profile set):\n"
    "x is the log2 latency bucket labelled in ns/us/ms, y the operation count on a\n"
    "log scale; peaks are shaded and labelled with their mean and share of\n"
    "operations. Profiles are stacked by total latency, largest first. Profiles\n"
    "recorded with time slices (-i) also get a heat map: time down, latency bucket\n"
    "across, colour = count (the 3-D view of the OSprof paper).\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
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

/* The format: -f FMT, else the extension of -o (SVG for '-'). */
static int pick_format(const char *fmt_arg, const char *out, enum fmt *fmt)
{
	*fmt = FMT_SVG;
	if (fmt_arg)
		parse_fmt(fmt_arg, fmt); /* a choice of the option table */
	else if (strcmp(out, "-")) {
		const char *dot = strrchr(out, '.');
		if (!dot || parse_fmt(dot + 1, fmt) < 0)
			return osp_usage_err("plot",
			                     "-o/--output: '%s' does not end in .svg, .png or .gp "
			                     "(or give -f FMT)",
			                     out);
	}
	if (*fmt == FMT_PNG && !strcmp(out, "-"))
		return osp_usage_err("plot", "-o -: PNG cannot go to standard output");
	return 0;
}

/* FILE and --diff B, with --drop-dim applied and at a common resolution:
 * 0, or the exit status with both freed. */
static int load_sets(const char *file, const char *diff, const char *drop, int heatmap,
                     struct osp_set **a, struct osp_set **b)
{
	int rc = OSP_EXIT_USAGE;
	*b = NULL;
	if (!(*a = osp_cli_load(file)) || (diff && !(*b = osp_cli_load(diff))))
		goto fail;
	if (drop && (rc = osp_cli_drop_dims("plot", drop, a, b)))
		goto fail;
	if (osp_cli_common_resolution("plot", a, file, b, diff)) {
		rc = OSP_EXIT_FAIL;
		goto fail;
	}
	/* Checked before any output file exists, so a refused plot leaves none
	 * (the renderers check it too, but only once the file is open). */
	if (heatmap > 0 && !(*a)->slice_ns) {
		rc = osp_usage_err(
		    "plot", "--heatmap: %s is not time-sliced (record it with -i DUR)", file);
		goto fail;
	}
	return 0;
fail:
	osp_set_free(*a);
	osp_set_free(*b);
	*a = *b = NULL;
	return rc;
}

/* SVG or a gnuplot script, written natively. */
static int plot_native(const struct osp_set *a, const struct osp_plot_opts *o, enum fmt fmt,
                       const char *out)
{
	struct osp_output w;
	char err[512];
	if (osp_output_open(&w, out, err, sizeof(err)) < 0) {
		osp_err("plot: %s", err);
		return OSP_EXIT_FAIL;
	}
	int r = fmt == FMT_SVG ? osp_render_svg(w.f, a, o, err, sizeof(err))
	                       : osp_render_gnuplot(w.f, a, o, NULL, NULL, err, sizeof(err));
	if (r < 0) {
		osp_err("plot: %s", err);
		osp_output_abort(&w);
		return OSP_EXIT_USAGE;
	}
	if (osp_output_commit(&w, err, sizeof(err)) < 0) {
		osp_err("plot: %s", err);
		return OSP_EXIT_FAIL;
	}
	return OSP_EXIT_OK;
}

static const char *const formats[] = {"svg", "png", "gp", "gnuplot", NULL};

static const struct osp_opts_spec spec = {.cmd = "plot",
                                          .head = usage_head,
                                          .tail = usage_tail,
                                          OSP_ARGS(1, 1, "expects exactly one profile FILE")};

int cmd_plot(int argc, char **argv)
{
	struct osp_plot_opts o = {.top = 30};
	const char *out = "osprof.svg", *diff = NULL, *fmt_arg = NULL, *drop = NULL;
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &out, "FILE",
	                   "where to write (default osprof.svg). The extension picks\n"
	                   "the format: .svg (native), .png (runs gnuplot),\n"
	                   ".gp (a gnuplot script with the data inline); '-' writes\n"
	                   "SVG to standard output"),
	    OSP_OPT_CHOICE('f', "format", &fmt_arg, formats, "FMT",
	                   "svg, png or gp, overriding the extension"),
	    OSP_OPT_STRING(0, "op", &o.op, "OP",
	                   "only profiles of OP: an op name (read), layer:op\n"
	                   "(syscall:read) or a full label ('syscall:read pid=42')"),
	    OSP_OPT_STRING(0, "diff", &diff, "B",
	                   "overlay the matching profiles of profile set B (outlined)"),
	    OSP_OPT_STRING(0, "drop-dim", &drop, "LIST",
	                   "sum profiles over these dimensions first (e.g. pid:\n"
	                   "pids differ between runs; time slices are left out)"),
	    OSP_OPT_UINT('n', "top", &o.top, 0, 1000000, "a count", "N",
	                 "at most N profiles (default 30, 0 = all)"),
	    OSP_OPT_FLAG(0, "total", &o.total_axis,
	                 "add a right axis with the latency spent in each bucket"),
	    OSP_OPT_SET(0, "heatmap", &o.heatmap, 1,
	                "require time slices (error if FILE has none)"),
	    OSP_OPT_SET(0, "no-heatmap", &o.heatmap, -1, "never draw heat maps"),
	    OSP_OPT_END,
	};
	int next, rc;
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	enum fmt fmt;
	if ((rc = pick_format(fmt_arg, out, &fmt)))
		return rc;
	const char *file = argv[next];
	struct osp_set *a, *b;
	if ((rc = load_sets(file, diff, drop, o.heatmap, &a, &b)))
		return rc;
	o.b = b;
	o.name_a = file;
	o.name_b = diff;
	struct osp_set *calib = osp_calib_load_default();
	o.calib = calib;
	if (o.top && a->n > o.top && !o.op)
		fprintf(stderr,
		        "osprof plot: showing %u of %zu profiles, those with the most "
		        "latency (--top 0 for all)\n",
		        o.top, a->n);
	rc = fmt == FMT_PNG ? plot_png(a, &o, out) : plot_native(a, &o, fmt, out);
	osp_set_free(calib);
	osp_set_free(a);
	osp_set_free(b);
	return rc;
}
