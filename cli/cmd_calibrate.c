/* osprof calibrate: measure this machine's characteristic times and store
 * them where `osprof peaks` and `osprof report` find them. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cli.h"
#include "cli/options.h"
#include <osprof/analysis.h>
#include "collect/calibrate.h"

static const char usage_head[] =
    "usage: osprof calibrate [OPTIONS]\n\n"
    "Measures this machine's characteristic times (OSprof's \"prior knowledge\"):\n"
    "null system call, page-cache 4 KiB read, O_DIRECT 4 KiB random read,\n"
    "O_DIRECT 64 KiB sequential read, 4 KiB write + fsync, context switch (pipe\n"
    "ping-pong on one CPU), thread wake-up, futex hand-off, timer interrupt and\n"
    "tick period, scheduler time slice under contention, loopback TCP round trip.\n"
    "Each is profiled into a histogram (layer 'calib'); its median is the\n"
    "characteristic time 'osprof peaks' and 'osprof report' match peaks against.\n"
    "Takes about two seconds.\n\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "SIGINT/SIGTERM stop the measurement; the items measured so far are saved\n"
    "and the exit status is 1.\n";

static void on_signal(int sig)
{
	(void)sig;
	osp_calibrate_stop();
}

static int mkdir_parent(const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			rc = -errno;
	}
	free(dir);
	return rc;
}

static const struct osp_opts_spec spec = {
    .cmd = "calibrate", .head = usage_head, .tail = usage_tail};

int cmd_calibrate(int argc, char **argv)
{
	const char *out = NULL, *dir = NULL;
	int quiet = 0, optind;
	char path[4096], err[512];
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &out, "FILE",
	                   "where to store it (default $OSPROF_CALIBRATION, else\n"
	                   "/var/lib/osprof/calibration-HOST.osp)"),
	    OSP_OPT_STRING(0, "dir", &dir, "DIR",
	                   "directory for the disk test file; must be on a real\n"
	                   "disk, not tmpfs (default /var/tmp)"),
	    OSP_OPT_FLAG('q', "quiet", &quiet, "do not print the table"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
	if (optind != argc)
		return osp_usage_err("calibrate", "unexpected argument '%s'", argv[optind]);
	if (dir) {
		struct stat st;
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			return osp_usage_err("calibrate", "--dir: '%s' is not a directory", dir);
	}
	if (!out) {
		out = osp_calib_default_path(path, sizeof(path));
		if (!getenv("OSPROF_CALIBRATION") && mkdir_parent(out)) {
			osp_err("calibrate: cannot create the directory of %s: %s (use -o FILE)",
			        out, strerror(errno));
			return OSP_EXIT_FAIL;
		}
	}
	/* SIGINT/SIGTERM: stop measuring, save and show what was measured.
	 * No SA_RESTART, so blocking reads in the items return EINTR. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct osp_set *s = osp_calibrate(dir, stderr);
	if (!s) {
		osp_err("calibrate: out of memory");
		return OSP_EXIT_FAIL;
	}
	if (osp_get_meta(s, "interrupted"))
		osp_err("calibrate: interrupted; saving the items measured so far");
	if (osp_set_save(s, out, err, sizeof(err))) {
		osp_err("calibrate: %s", err);
		osp_set_free(s);
		return OSP_EXIT_FAIL;
	}
	if (!quiet) {
		printf("%-22s %-34s %10s %11s %11s %11s\n", "OP", "CHARACTERISTIC TIME", "SAMPLES",
		       "P10", "MEDIAN", "P90");
		for (size_t i = 0; i < s->n; i++) {
			const struct osp_profile *p = s->profiles[i];
			char a[32], b[32], m[32];
			const char *label = osp_calib_label(p->op);
			if (!p->hist.count)
				continue;
			printf("%-22s %-34s %10" PRIu64 " %11s %11s %11s\n", p->op,
			       label ? label : "", p->hist.count,
			       osp_format_ns(osp_hist_quantile(&p->hist, 0.1), a, sizeof(a)),
			       osp_format_ns((uint64_t)osp_calib_time(p), m, sizeof(m)),
			       osp_format_ns(osp_hist_quantile(&p->hist, 0.9), b, sizeof(b)));
		}
		printf("written to %s\n", out);
	}
	int interrupted = osp_get_meta(s, "interrupted") != NULL;
	osp_set_free(s);
	return interrupted ? OSP_EXIT_FAIL : OSP_EXIT_OK;
}
