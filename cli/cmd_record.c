/* osprof record: profile the live system (or some of its processes) until
 * Ctrl-C, SIGTERM or -d; with INTERVAL, print each interval's histograms. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <osprof/render.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include "collect/session.h"

static const char usage_head[] =
    "usage: osprof record [OPTIONS] [-a | -p PID[,PID] | -c CGROUP | --comm NAME]\n"
    "                     [INTERVAL [COUNT]]\n\n"
    "Profiles the live system with no restart: every process (-a, the default),\n"
    "some processes with their threads and the processes they fork from then on\n"
    "(-p), a cgroup and its sub-cgroups (-c, a cgroup v2 directory), or processes\n"
    "by command name (--comm). Runs until Ctrl-C, SIGTERM or -d DUR, then writes\n"
    "the profile set to -o FILE (default osprof.osp); nothing collected is lost\n"
    "on a signal.\n"
    "With INTERVAL (e.g. 1s), prints the histograms of each interval to stdout\n"
    "(bcc style) and stops after COUNT intervals if given; -o still gets the\n"
    "whole run. -i DUR keeps per-slice histograms in the file instead.\n\n"
    "Exit status: 0 written; 3 written, but events were lost (a BPF map or buffer\n"
    "was full), after one line naming each count (--allow-loss: 0); calls in\n"
    "flight when the probes attached end unpaired, are counted in the file and\n"
    "are not a loss; 2 bad option, value or output path (nothing attached); 1\n"
    "profiling cannot start here or FILE cannot be written.\n"
    "\nOptions:\n";

static int parse_positional(int argc, char **argv, int next, uint64_t *interval, long *count)
{
	*interval = 0;
	*count = -1;
	if (next < argc) {
		char arg[64];
		/* A bare number is seconds, as in vmstat/iostat and bcc tools. */
		snprintf(arg, sizeof(arg), "%s", argv[next]);
		if (osp_parse_duration(arg, interval) || !*interval)
			return osp_usage_err("record", "INTERVAL: '%s' is not a duration",
			                     argv[next]);
	}
	if (next + 1 < argc) {
		char *end;
		*count = strtol(argv[next + 1], &end, 10);
		if (*end || *count <= 0)
			return osp_usage_err("record", "COUNT: '%s' is not a positive number",
			                     argv[next + 1]);
	}
	if (next + 2 < argc)
		return osp_usage_err("record", "unexpected argument '%s'", argv[next + 2]);
	return 0;
}

static void print_interval(struct osp_set *iv, unsigned n)
{
	char ts[32];
	time_t t = time(NULL);
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	printf("\n%s interval %u\n", ts, n);
	struct osp_report_opts ro;
	memset(&ro, 0, sizeof(ro));
	osp_render_text(stdout, iv, &ro);
	fflush(stdout);
}

int cmd_record(int argc, char **argv)
{
	struct osp_collect_opts o;
	const struct osp_collect_spec spec = {"record", usage_head, 1, NULL, 1};
	int next, rc;
	OSP_PARSE_OR_RETURN(osp_collect_parse(&spec, argc, argv, &o, &next));
	uint64_t interval;
	long count;
	if ((rc = parse_positional(argc, argv, next, &interval, &count)))
		goto out_opts;
	if ((rc = osp_collect_one_target("record", &o)))
		goto out_opts;
	const struct osp_layer *layers[OSP_MAX_LAYERS];
	int nlayers;
	if ((rc = osp_collect_layers("record", &o, layers, &nlayers)))
		goto out_opts;
	struct osp_session s;
	if (osp_collect_session(&s, &o, layers, nlayers)) {
		rc = OSP_EXIT_FAIL;
		goto out_opts;
	}
	osp_set_meta(s.set, "command", "record");
	struct osp_waiter wt;
	osp_signals_install();
	osp_waiter_init(&wt, 0, -1);

	int n = nlayers;
	if ((rc = osp_session_prepare("record", &s, layers, &n)) ||
	    (rc = osp_session_attach("record", &s, layers, &n)))
		goto out;
	rc = OSP_EXIT_FAIL;
	nlayers = n;
	uint64_t start = s.start_ns, end = o.duration_ns ? start + o.duration_ns : UINT64_MAX;
	fprintf(stderr, "osprof: recording%s; Ctrl-C to stop\n",
	        o.duration_ns ? " for the given duration" : "");
	struct osp_set *total = s.set;
	unsigned k = 0;
	if (interval) {
		for (uint64_t tick = start + interval;; tick += interval) {
			int sig = osp_wait(&wt, tick < end ? tick : end) == OSP_WAKE_STOP;
			struct osp_set *iv = osp_set_new(s.r);
			if (!iv)
				goto out;
			iv->slice_ns = total->slice_ns;
			s.set = iv;
			osp_session_collect("record", &s, layers, nlayers, 1);
			s.set = total;
			print_interval(iv, ++k);
			char err[256];
			if (osp_set_merge(total, iv, err, sizeof(err)))
				osp_err("record: %s", err);
			for (size_t m = 0; m < iv->nmeta; m++)
				if (!osp_get_meta(total, iv->meta[m].key))
					osp_set_meta(total, iv->meta[m].key, iv->meta[m].value);
			osp_set_free(iv);
			if (sig || tick >= end || (count > 0 && (long)k >= count))
				break;
		}
	} else {
		osp_wait(&wt, end);
		osp_session_collect("record", &s, layers, nlayers, 0);
	}
	if (osp_signals_stop())
		fprintf(stderr, "osprof: %s: stopping\n", strsignal(osp_signals_stop()));
	osp_set_metaf(s.set, "duration_ns", "%llu", (unsigned long long)(osp_now_ns() - start));
	rc = osp_collect_finish("record", s.set, o.output, &o, OSP_EXIT_OK);
out:
	if (s.bad_input)
		rc = OSP_EXIT_USAGE;
	osp_session_end(&s, layers, n);
out_opts:
	free(o.pids.v);
	return rc;
}
