/* osprof peaks: the peaks of every profile, annotated with this machine's
 * characteristic times and, on request, the preemption model. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include <osprof/analysis.h>

static const char usage_head[] =
    "usage: osprof peaks [OPTIONS] FILE\n\n"
    "Finds the peaks of every profile in FILE (ranked by total latency) and prints,\n"
    "per peak numbered from the left: bucket range b = floor(r*log2(ns)), latency\n"
    "range, count, mean latency, share of the op's count and of its latency, and\n"
    "the characteristic times of this machine the peak matches (from the\n"
    "calibration written by 'osprof calibrate'). Peaks split at empty buckets and\n"
    "at valleys of the log-scale counts; docs/analysis.md gives the method.\n"
    "FILE '-' reads standard input.\n\n"
    "Options:\n";

static uint64_t calib_quantum(const struct osp_set *calib)
{
	if (!calib)
		return 0;
	const struct osp_profile *p = osp_set_find(calib, OSP_CALIB_LAYER, "sched_slice", NULL, 0);
	return p ? (uint64_t)osp_calib_time(p) : 0;
}

static const struct osp_opts_spec spec = {.cmd = "peaks", .head = usage_head, OSP_ARGS_ONE_FILE};

int cmd_peaks(int argc, char **argv)
{
	int json = 0, preempt = 0, next;
	uint64_t quantum = 0;
	unsigned long procs = 2, top = 0;
	const char *calib_path = NULL;
	struct osp_option opts[] = {
	    OSP_OPT_FLAG(0, "json", &json,
	                 "NDJSON: one object per profile with layer, op, dims\n"
	                 "and peaks (index, lo_ns, hi_ns, count, mean_ns, ...)"),
	    OSP_OPT_FLAG(0, "preemption", &preempt,
	                 "predict, per peak, the requests forcible preemption\n"
	                 "moves there (seed 000 Eq. 3.6): the model alone says\n"
	                 "a peak could be preemption; a set recorded with\n"
	                 "--split preempt (or -l sched) says whether it was"),
	    OSP_OPT_DURATION(0, "quantum", &quantum, "DUR",
	                     "scheduler time slice Q (e.g. 3ms; default: the\n"
	                     "calibration's sched_slice, else 3ms)"),
	    OSP_OPT_UINT(0, "procs", &procs, 1, 1000000, "a count >= 1", "N",
	                 "runnable processes sharing the CPU (default 2)"),
	    OSP_OPT_STRING(0, "calibration", &calib_path, "FILE",
	                   "characteristic times (default $OSPROF_CALIBRATION or\n"
	                   "/var/lib/osprof/calibration-HOST.osp); 'none' skips"),
	    OSP_OPT_UINT(0, "top", &top, 1, OSP_OPT_NOMAX, "a positive number", "N",
	                 "only the N profiles with the largest total latency"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	if (quantum && !preempt)
		return osp_usage_err("peaks", "--quantum needs --preemption");
	struct osp_set *s = osp_cli_load(argv[next]);
	if (!s)
		return OSP_EXIT_USAGE;
	struct osp_set *calib = NULL;
	char cpath[4096];
	if (calib_path && strcmp(calib_path, "none")) {
		calib = osp_cli_load(calib_path);
		if (!calib) {
			osp_set_free(s);
			return OSP_EXIT_USAGE;
		}
	} else if (!calib_path) {
		calib = osp_calib_load_default();
		if (!calib && !json)
			printf("(no calibration at %s: run 'osprof calibrate' to match peaks "
			       "with characteristic times)\n\n",
			       osp_calib_default_path(cpath, sizeof(cpath)));
	}
	struct osp_preempt_view pv = {quantum, (unsigned)procs, "--quantum", s};
	if (preempt && !quantum) {
		pv.quantum_ns = calib_quantum(calib);
		pv.source = "calibration";
		if (!pv.quantum_ns) {
			pv.quantum_ns = 3000000;
			pv.source = "default";
		}
	}
	osp_set_sort_by_total(s);
	size_t n = top && top < s->n ? top : s->n;
	for (size_t i = 0; i < n; i++) {
		if (json) {
			osp_print_peaks_json(stdout, s->profiles[i], calib, preempt ? &pv : NULL);
		} else {
			osp_print_peaks(stdout, s->profiles[i], calib, preempt ? &pv : NULL);
			if (i + 1 < n)
				putchar('\n');
		}
	}
	osp_set_free(calib);
	osp_set_free(s);
	return fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
}
