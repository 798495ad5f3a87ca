/* osprof peaks: the peaks of every profile, annotated with this machine's
 * characteristic times and, on request, the preemption model. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <osprof/analysis.h>

static const char usage[] =
    "usage: osprof peaks [OPTIONS] FILE\n\n"
    "Finds the peaks of every profile in FILE (ranked by total latency) and prints,\n"
    "per peak numbered from the left: bucket range b = floor(r*log2(ns)), latency\n"
    "range, count, mean latency, share of the op's count and of its latency, and\n"
    "the characteristic times of this machine the peak matches (from the\n"
    "calibration written by 'osprof calibrate'). Peaks split at empty buckets and\n"
    "at valleys of the log-scale counts; docs/analysis.md gives the method.\n"
    "FILE '-' reads standard input.\n\n"
    "Options:\n"
    "      --json             NDJSON: one object per profile with layer, op, dims\n"
    "                         and peaks (index, lo_ns, hi_ns, count, mean_ns, ...)\n"
    "      --preemption       predict, per peak, the requests forcible preemption\n"
    "                         moves there (seed 000 Eq. 3.6): the model alone says\n"
    "                         a peak could be preemption; a set recorded with\n"
    "                         --split preempt (or -l sched) says whether it was\n"
    "      --quantum DUR      scheduler time slice Q (e.g. 3ms; default: the\n"
    "                         calibration's sched_slice, else 3ms)\n"
    "      --procs N          runnable processes sharing the CPU (default 2)\n"
    "      --calibration FILE characteristic times (default $OSPROF_CALIBRATION or\n"
    "                         /var/lib/osprof/calibration-HOST.osp); 'none' skips\n"
    "      --top N            only the N profiles with the largest total latency\n";

enum { OPT_JSON = 256, OPT_PREEMPT, OPT_QUANTUM, OPT_PROCS, OPT_CALIB, OPT_TOP };

static uint64_t calib_quantum(const struct osp_set *calib)
{
	if (!calib)
		return 0;
	const struct osp_profile *p = osp_set_find(calib, OSP_CALIB_LAYER, "sched_slice", NULL, 0);
	return p ? (uint64_t)osp_calib_time(p) : 0;
}

int cmd_peaks(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, 0, OPT_JSON},
	    {"preemption", no_argument, 0, OPT_PREEMPT},
	    {"quantum", required_argument, 0, OPT_QUANTUM},
	    {"procs", required_argument, 0, OPT_PROCS},
	    {"calibration", required_argument, 0, OPT_CALIB},
	    {"top", required_argument, 0, OPT_TOP},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int c, json = 0, preempt = 0;
	uint64_t quantum = 0;
	unsigned long procs = 2, top = 0;
	const char *calib_path = NULL;
	char *end;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_PREEMPT:
			preempt = 1;
			break;
		case OPT_QUANTUM:
			if (osp_parse_duration(optarg, &quantum) || !quantum)
				return osp_usage_err("peaks", "--quantum: '%s' is not a duration",
				                     optarg);
			break;
		case OPT_PROCS:
			procs = strtoul(optarg, &end, 10);
			if (*end || !*optarg || procs < 1 || procs > 1000000)
				return osp_usage_err("peaks", "--procs: '%s' is not a count >= 1",
				                     optarg);
			break;
		case OPT_CALIB:
			calib_path = optarg;
			break;
		case OPT_TOP:
			top = strtoul(optarg, &end, 10);
			if (*end || !*optarg || !top)
				return osp_usage_err(
				    "peaks", "--top: '%s' is not a positive number", optarg);
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		case ':':
			return osp_usage_err("peaks", "%s needs an argument", argv[optind - 1]);
		default:
			return osp_usage_err("peaks", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (quantum && !preempt)
		return osp_usage_err("peaks", "--quantum needs --preemption");
	if (optind != argc - 1)
		return osp_usage_err("peaks", "expected one FILE");
	struct osp_set *s = osp_cli_load(argv[optind]);
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
