/* osprof rootcause: the call path behind one peak of a latency histogram
 * (DARC, seed 002). This file parses the command line (rc_parse) and hands
 * the options to rootcause/'s drivers (rootcause/rootcause.h): rc_func_run
 * for --func, rc_kernel_run for --syscall; it draws their progress line and
 * owns CMD's --target-output file and the exit status. */
#include <errno.h>
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
    "Target:\n";

static const char usage_tail[] =
    "\nExit status: 0 search finished, 1 failure or unfinished search (target exited\n"
    "or interrupted; the partial tree is printed), 2 usage error or bad output path,\n"
    "3 search finished but in-peak records were lost (ring buffer full; one line\n"
    "says how many; --allow-loss: 0).\n";

static const struct osp_opts_spec spec = {
    .cmd = "rootcause", .head = usage, .tail = usage_tail, .in_order = 1};

static const char *const backends[] = {"uprobe", "trampoline", NULL};

/* --peak N|slowest */
static int parse_peak(const char *cmd, const char *flag, const char *arg, void *value)
{
	unsigned long long n;
	if (!strcmp(arg, "slowest"))
		n = 0;
	else if (osp_opt_parse_uint(arg, 1, RC_MAX_PEAKS, &n))
		return osp_usage_err(cmd, "%s: '%s' is not slowest or an integer in 1..%d", flag,
		                     arg, RC_MAX_PEAKS);
	*(int *)value = (int)n;
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

/* What the option table cannot check: one f0, one target, compatible options. -1 if
 * they are usable, else the exit status. */
static int rc_check(struct rc_opts *o, const char *target_out)
{
	if (!!o->func == !!o->syscall)
		return osp_usage_err("rootcause",
		                     "give exactly one of --func BIN:SYM, --syscall NAME");
	if (!!o->pid == !!o->cmd)
		return osp_usage_err("rootcause", "give exactly one of -p PID, -- CMD");
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

/* The command line into o; *target_out: --target-output. Returns -1 to go
 * on, else the exit status (usage error, --help). */
static int rc_parse(int argc, char **argv, struct rc_opts *o, const char **target_out)
{
	enum { TEXT, FOLDED, JSON };
	int format = TEXT, next;
	unsigned pid = 0, pct;
	rc_params_default(&o->p);
	pct = (unsigned)o->p.maxcount_pct;
	struct osp_option opts[] = {
	    OSP_OPT_STRING(0, "func", &o->func, "BIN:SYM",
	                   "f0 is function SYM of executable or library BIN"),
	    OSP_OPT_STRING(0, "syscall", &o->syscall, "NAME",
	                   "f0 is system call NAME; latency is attributed to\n"
	                   "kernel paths (off-CPU stacks + waker, on-CPU samples,\n"
	                   "preemption, IRQs): no kprobes nor fentry needed"),
	    OSP_OPT_UINT('p', "pid", &pid, 1, INT_MAX, NULL, "PID", "attach to a running process"),
	    OSP_OPT_GROUP(
	        "  -- CMD [ARGS]          start CMD and search in it; CMD may be a script\n"
	        "                         that starts the program (its processes are\n"
	        "                         followed)\n\n"
	        "Search (defaults of seed 002 Fig. 4.2):"),
	    OSP_OPT_CALL(0, "peak", &o->peak, parse_peak, "N|slowest",
	                 "peak to explain, numbered from the fastest; slowest\n"
	                 "(the default) is the slowest peak after the fastest\n"
	                 "with >= 5% of the calls, else the largest peak after\n"
	                 "the fastest"),
	    OSP_OPT_UINT(0, "start-ops", &o->p.start_ops, 1, 100000000, NULL, "N",
	                 "f0 calls profiled before the peak is chosen (100)"),
	    OSP_OPT_UINT(0, "decision-time", &o->p.decision_time, 1, 1000000, NULL, "N",
	                 "in-peak f0 calls between two decisions of a node (50)"),
	    OSP_OPT_UINT(0, "max-depth", &o->p.max_depth, 1, 30, NULL, "N",
	                 "stop paths at this depth below f0 (10)"),
	    OSP_OPT_UINT(0, "maxcount-pct", &pct, 1, 100, NULL, "P",
	                 "candidates within P% of the top maxcount are chosen\n(97)"),
	    OSP_OPT_UINT(0, "min-bucket", &o->p.min_bucket, 0, 62, NULL, "B",
	                 "stop at callees faster than 2^B ns (6)"),
	    OSP_OPT_CHOICE(0, "backend", &o->backend, backends, "KIND",
	                   "uprobe or trampoline. uprobe: BPF uprobes, works\n"
	                   "with -p (the default with -p); trampoline: patched\n"
	                   "call sites in a process osprof starts, ~100x cheaper\n"
	                   "per call (the default with -- CMD); a site no jump\n"
	                   "fits falls back to uprobes as root, else (and an f0\n"
	                   "no jump fits) to a breakpoint (a signal per call);\n"
	                   "the output says which nodes were probed how"),
	    OSP_OPT_STRING(0, "state", &o->state, "FILE",
	                   "resume from FILE if it exists (checks that f0's\n"
	                   "profile did not change, by EMD) and save the ftree to\n"
	                   "it at the end"),
	    OSP_OPT_GROUP("\nOutput (default: the ftree as indented arrow chains with each\n"
	                  "node's maxcount share and path status):"),
	    OSP_OPT_ONE_OF(0, "folded", &format, FOLDED, "folded stacks for flamegraph.pl"),
	    OSP_OPT_ONE_OF(0, "json", &format, JSON, "JSON (schema: docs/rootcause.md)"),
	    OSP_OPT_STRING('o', "output", &o->output, "FILE",
	                   "also write the paths as a profile set (.osp): one\n"
	                   "profile per path with a 'path' dimension; osprof html\n"
	                   "shows a tree"),
	    OSP_OPT_FLAG('v', "verbose", &o->verbose, "details of the search on stderr"),
	    OSP_OPT_FLAG('q', "quiet", &o->quiet,
	                 "no progress line (elapsed, depth and node being\n"
	                 "searched; shown only when stderr is a terminal)"),
	    OSP_OPT_FLAG(0, "allow-loss", &o->allow_loss,
	                 "exit 0 even when in-peak records were lost"),
	    OSP_OPT_STRING(0, "target-output", target_out, "FILE",
	                   "CMD's stdout and stderr go to FILE; without it, with\n"
	                   "--json or --folded CMD's stdout goes to osprof's\n"
	                   "stderr, so that osprof's stdout holds only the result"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &next));
	o->pid = (pid_t)pid;
	o->p.maxcount_pct = pct;
	o->folded = format == FOLDED;
	o->json = format == JSON;
	if (next < argc)
		o->cmd = argv + next;
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
	return osp_losses_finish("rootcause", &lost, o.allow_loss, 0, rc);
}
