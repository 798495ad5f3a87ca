/* osprof rootcause: the call path behind one peak of a latency histogram
 * (DARC, seed 002). This file parses the command line (rc_parse) and hands
 * the options to rootcause/'s drivers (rootcause/rootcause.h): rc_func_run
 * for --func, rc_kernel_run for --syscall; it draws their progress line and
 * owns CMD's --target-output file and the exit status. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/output.h>
#include "collect/session.h"
#include "cli/cli.h"
#include "cli/losses.h"
#include "cli/progress.h"
#include "cli/collect_opts.h"
#include "rootcause/peaks.h"
#include "rootcause/rootcause.h"

static const char usage[] =
    "usage: osprof rootcause (--func BIN:SYM | --syscall NAME) (-p PID | -- CMD [ARGS])\n"
    "                        [OPTIONS]\n\n"
    "Finds the call paths that cause one peak of an operation's latency histogram\n"
    "(DARC: seed 002). It first profiles f0 (the function or system call) and prints\n"
    "its histogram with numbered peaks; once --start-ops calls were seen it picks the\n"
    "peak (--peak), times f0's callees on the calls that land in that peak, keeps the\n"
    "callees that dominate them (maxcount voting) and descends, several branches at\n"
    "once, until each path ends in a root cause, a leaf, --max-depth or --min-bucket.\n\n"
    "Target:\n"
    "  --func BIN:SYM       f0 is function SYM of executable or library BIN\n"
    "  --syscall NAME       f0 is system call NAME; latency is attributed to kernel\n"
    "                       paths (off-CPU stacks + waker, on-CPU samples, preemption,\n"
    "                       IRQs) since this kernel allows neither kprobes nor fentry\n"
    "  -p, --pid PID        attach to a running process\n"
    "  -- CMD [ARGS]        start CMD and search in it; CMD may be a script that\n"
    "                       starts the program (its processes are followed)\n\n"
    "Search (defaults of seed 002 Fig. 4.2):\n"
    "  --peak N|slowest     peak to explain, numbered from the fastest; slowest (the\n"
    "                       default) is the slowest peak after the fastest with >= 5%\n"
    "                       of the calls, else the largest peak after the fastest\n"
    "  --start-ops N        f0 calls profiled before the peak is chosen (100)\n"
    "  --decision-time N    in-peak f0 calls between two decisions of a node (50)\n"
    "  --max-depth N        stop paths at this depth below f0 (10)\n"
    "  --maxcount-pct P     candidates within P% of the top maxcount are chosen (97)\n"
    "  --min-bucket B       stop at callees faster than 2^B ns (6)\n"
    "  --backend uprobe|trampoline\n"
    "                       uprobe: BPF uprobes, works with -p (default with -p);\n"
    "                       trampoline: patched call sites in a process osprof starts,\n"
    "                       ~100x cheaper per call (default with -- CMD); a site\n"
    "                       no jump fits falls back to uprobes as root, else (and an\n"
    "                       f0 no jump fits) to a breakpoint (a signal per call);\n"
    "                       the output says which nodes were probed how\n"
    "  --state FILE         resume from FILE if it exists (checks that f0's profile\n"
    "                       did not change, by EMD) and save the ftree to it at the end\n\n"
    "Output:\n"
    "  (default)            the ftree as indented arrow chains with each node's\n"
    "                       maxcount share and path status\n"
    "  --folded             folded stacks for flamegraph.pl\n"
    "  --json               JSON (schema: docs/rootcause.md)\n"
    "  -o, --output FILE    also write the paths as a profile set (.osp): one profile\n"
    "                       per path with a 'path' dimension; osprof html shows a tree\n"
    "  -v, --verbose        details of the search on stderr\n"
    "  -q, --quiet          no progress line (elapsed, depth and node being searched;\n"
    "                       shown only when stderr is a terminal)\n"
    "  --allow-loss         exit 0 even when in-peak records were lost\n"
    "  --target-output FILE CMD's stdout and stderr go to FILE; without it, with\n"
    "                       --json or --folded CMD's stdout goes to osprof's stderr,\n"
    "                       so that osprof's stdout holds only the result\n\n"
    "Exit status: 0 search finished, 1 failure or unfinished search (target exited\n"
    "or interrupted; the partial tree is printed), 2 usage error or bad output path,\n"
    "3 search finished but in-peak records were lost (ring buffer full; one line\n"
    "says how many; --allow-loss: 0).\n";

enum {
	O_FUNC = 256,
	O_SYSCALL,
	O_PEAK,
	O_START,
	O_DT,
	O_DEPTH,
	O_PCT,
	O_MINB,
	O_STATE,
	O_FOLDED,
	O_JSON,
	O_BACKEND,
	O_ALLOW_LOSS,
	O_TARGET_OUT
};

static int num(const char *flag, const char *arg, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v < lo || v > hi)
		return osp_usage_err("rootcause", "%s: '%s' is not an integer in %u..%u", flag, arg,
		                     lo, hi);
	*out = (unsigned)v;
	return 0;
}

/* rootcause/'s progress lines on the terminal (cli/progress.c). */
static void show_progress(void *ctx, int force, const char *line)
{
	struct osp_progress *pg = ctx;
	if (line)
		osp_progress_show(pg, force || !pg->last_ns, "%s", line);
	else
		osp_progress_end(pg);
}

/* What getopt cannot check: one f0, one target, compatible options. -1 if
 * they are usable, else the exit status. */
static int rc_check(struct rc_opts *o, const char *target_out)
{
	if (!!o->func == !!o->syscall)
		return osp_usage_err("rootcause",
		                     "give exactly one of --func BIN:SYM, --syscall NAME");
	if (!!o->pid == !!o->cmd)
		return osp_usage_err("rootcause", "give exactly one of -p PID, -- CMD");
	if (o->folded && o->json)
		return osp_usage_err("rootcause", "--folded and --json exclude each other");
	if (!o->backend)
		o->backend = o->cmd && o->func ? "trampoline" : "uprobe";
	if (o->syscall && !strcmp(o->backend, "trampoline"))
		return osp_usage_err("rootcause", "--backend trampoline applies to --func only");
	int rc = osp_collect_check_output("rootcause", o->output);
	if (rc)
		return rc;
	if (target_out && !o->cmd)
		return osp_usage_err("rootcause", "--target-output needs a command (-- CMD)");
	return -1;
}

/* The command line into o (getopt_long); *target_out: --target-output.
 * Returns -1 to go on, else the exit status (usage error, --help). */
static int rc_parse(int argc, char **argv, struct rc_opts *o, const char **target_out)
{
	static const struct option longopts[] = {
	    {"func", required_argument, 0, O_FUNC},
	    {"syscall", required_argument, 0, O_SYSCALL},
	    {"pid", required_argument, 0, 'p'},
	    {"peak", required_argument, 0, O_PEAK},
	    {"start-ops", required_argument, 0, O_START},
	    {"decision-time", required_argument, 0, O_DT},
	    {"max-depth", required_argument, 0, O_DEPTH},
	    {"maxcount-pct", required_argument, 0, O_PCT},
	    {"min-bucket", required_argument, 0, O_MINB},
	    {"state", required_argument, 0, O_STATE},
	    {"output", required_argument, 0, 'o'},
	    {"folded", no_argument, 0, O_FOLDED},
	    {"json", no_argument, 0, O_JSON},
	    {"backend", required_argument, 0, O_BACKEND},
	    {"verbose", no_argument, 0, 'v'},
	    {"quiet", no_argument, 0, 'q'},
	    {"allow-loss", no_argument, 0, O_ALLOW_LOSS},
	    {"target-output", required_argument, 0, O_TARGET_OUT},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	rc_params_default(&o->p);
	int c;
	unsigned u;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case O_FUNC:
			o->func = optarg;
			break;
		case O_SYSCALL:
			o->syscall = optarg;
			break;
		case 'p':
			if (num("-p", optarg, 1, INT_MAX, &u))
				return OSP_EXIT_USAGE;
			o->pid = (pid_t)u;
			break;
		case O_PEAK:
			if (!strcmp(optarg, "slowest"))
				o->peak = 0;
			else if (num("--peak", optarg, 1, RC_MAX_PEAKS, &u))
				return OSP_EXIT_USAGE;
			else
				o->peak = (int)u;
			break;
		case O_START:
			if (num("--start-ops", optarg, 1, 100000000, &o->p.start_ops))
				return OSP_EXIT_USAGE;
			break;
		case O_DT:
			if (num("--decision-time", optarg, 1, 1000000, &o->p.decision_time))
				return OSP_EXIT_USAGE;
			break;
		case O_DEPTH:
			if (num("--max-depth", optarg, 1, 30, &o->p.max_depth))
				return OSP_EXIT_USAGE;
			break;
		case O_PCT:
			if (num("--maxcount-pct", optarg, 1, 100, &u))
				return OSP_EXIT_USAGE;
			o->p.maxcount_pct = u;
			break;
		case O_MINB:
			if (num("--min-bucket", optarg, 0, 62, &o->p.min_bucket))
				return OSP_EXIT_USAGE;
			break;
		case O_STATE:
			o->state = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case O_FOLDED:
			o->folded = 1;
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_BACKEND:
			if (strcmp(optarg, "uprobe") && strcmp(optarg, "trampoline"))
				return osp_usage_err("rootcause",
				                     "--backend: '%s' is not uprobe or trampoline",
				                     optarg);
			o->backend = optarg;
			break;
		case O_ALLOW_LOSS:
			o->allow_loss = 1;
			break;
		case O_TARGET_OUT:
			*target_out = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		default:
			return osp_usage_err("rootcause", "unknown option");
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return rc_check(o, *target_out);
}

int cmd_rootcause(int argc, char **argv)
{
	struct rc_opts o = {.target_fd = -1};
	const char *target_out = NULL;
	int rc = rc_parse(argc, argv, &o, &target_out);
	if (rc >= 0)
		return rc;
	struct osp_output tout = {0};
	if (target_out) {
		char err[512];
		if (osp_output_open(&tout, target_out, err, sizeof(err)) < 0) {
			osp_err("rootcause: --target-output %s", err);
			return OSP_EXIT_USAGE;
		}
		fflush(tout.f);
		o.target_fd = fileno(tout.f);
		o.target_both = 1;
	} else if (o.cmd && (o.json || o.folded)) {
		o.target_fd = 2; /* the terminal the user reads, not the pipe */
	}
	/* The shared handlers, without osp_signals_child: a signal ends the
	 * search (its results so far are printed) and the search then ends the
	 * command it started with SIGTERM. */
	osp_signals_install();
	struct osp_progress pg;
	osp_progress_init(&pg, "rootcause", o.quiet);
	o.progress = (struct rc_progress){show_progress, &pg};
	rc = o.func ? rc_func_run(&o) : rc_kernel_run(&o);
	if (target_out) {
		char err[512];
		if (osp_output_commit(&tout, err, sizeof(err)) < 0) {
			osp_err("rootcause: --target-output %s", err);
			if (rc == OSP_EXIT_OK)
				rc = OSP_EXIT_FAIL;
		}
	}
	struct osp_losses lost = {.lost_events = o.lost};
	return osp_losses_finish("rootcause", &lost, o.allow_loss, rc);
}
