/* osprof rootcause: the call path behind one peak of a latency histogram
 * (DARC, seed 002). The search is rootcause/search.c; this file parses the
 * command line, starts or attaches to the target and drives the phases:
 * profile f0 -> choose a peak -> search -> print. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <osprof/output.h>
#include "collect/session.h"
#include "cli/cli.h"
#include "cli/losses.h"
#include "cli/progress.h"
#include "cli/collect_opts.h"
#include "rootcause/output.h"
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
    "                       ~100x cheaper per call (default with -- CMD); a site or\n"
    "                       f0 no jump fits falls back to a breakpoint (a signal per\n"
    "                       call), shown in the output\n"
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

/* The progress line of the search: the deepest node whose callees are being
 * timed (the frontier), its depth, and how many in-peak records were used. */
static void search_progress(struct osp_progress *pg, const struct rc_search *s, int force)
{
	const struct rc_node *deep = NULL;
	unsigned nfront = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->nodes[i].status == RC_FRONTIER) {
			nfront++;
			if (!deep || s->nodes[i].depth > deep->depth)
				deep = &s->nodes[i];
		}
	if (deep)
		osp_progress_show(pg, force || !pg->last_ns,
		                  "depth %d of %u, node %s (%u branch%s open), %" PRIu64
		                  " in-peak records",
		                  deep->depth, s->p.max_depth, deep->name ? deep->name : "?",
		                  nfront, nfront == 1 ? "" : "es", s->used);
	else
		osp_progress_show(pg, force || !pg->last_ns,
		                  "search finishing, %" PRIu64 " in-peak records", s->used);
}

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

static uint64_t hist_total(const uint64_t *h)
{
	uint64_t t = 0;
	for (int i = 0; i < RC_HBUCKETS; i++)
		t += h[i];
	return t;
}

static int run_func(struct rc_opts *o)
{
	char bin[PATH_MAX];
	const char *colon = strrchr(o->func, ':');
	if (!colon || colon == o->func || !colon[1])
		return osp_usage_err("rootcause", "--func: '%s' is not BIN:SYM", o->func);
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - o->func), o->func);
	const char *symname = colon + 1;
	char rbin[PATH_MAX];
	if (!realpath(bin, rbin)) {
		osp_err("rootcause: --func %s: %s", bin, strerror(errno));
		return OSP_EXIT_USAGE;
	}
	struct rc_space space = {0};
	char err[512];
	struct rc_module *f0m = rc_space_add(&space, rbin, 0, err, sizeof(err));
	if (!f0m) {
		osp_err("rootcause: --func: %s", err);
		return OSP_EXIT_USAGE;
	}
	const struct rc_sym *f0 = rc_elf_find(f0m->elf, symname);
	uint64_t f0off = 0;
	if (!f0 || f0->got || rc_elf_off(f0m->elf, f0->addr, &f0off)) {
		osp_err("rootcause: --func: %s has no function '%s'", rbin, symname);
		rc_space_free(&space);
		return OSP_EXIT_USAGE;
	}
	uint64_t f0vaddr = f0->addr;
	int is_child = o->cmd != NULL, gate = -1, ret = OSP_EXIT_FAIL;
	int tramp = !strcmp(o->backend, "trampoline");
	struct rc_backend *be = NULL;
	char **env = NULL;
	if (tramp) {
		if (!is_child) {
			osp_err("rootcause: --backend trampoline needs a command osprof starts "
			        "(-- CMD); use --backend uprobe with -p");
			rc_space_free(&space);
			return OSP_EXIT_USAGE;
		}
		be = rc_tramp_new();
		if (!be || rc_tramp_env(be, &env)) {
			rc_space_free(&space);
			return OSP_EXIT_FAIL;
		}
	}
	if (is_child) {
		o->pid = rc_child_start(o, env, &gate);
		if (o->pid < 0) {
			osp_err("rootcause: fork: %s", strerror(errno));
			goto out;
		}
		if (tramp)
			rc_tramp_set_pid(be, o->pid);
	}
	if (!be)
		be = rc_uprobe_new(o->pid);
	if (!be)
		goto out;
	be->pid = o->pid;
	/* A PIE not yet running: its run-time address is known after exec. */
	int rc = be->ops->attach_f0(be, rbin, f0off, f0vaddr);
	if (rc) {
		osp_err("rootcause: cannot instrument %s:%s: %s", rbin, symname, strerror(-rc));
		goto out;
	}
	if (is_child) {
		rc_child_release(gate);
		gate = -1;
	}
	uint64_t hist[RC_HBUCKETS] = {0};
	int status = 0;
	struct osp_progress pg;
	osp_progress_init(&pg, "rootcause", o->quiet);
	/* Phase 1: profile f0 until --start-ops calls. */
	while (!osp_signals_stop()) {
		be->ops->poll(be, 50, NULL, NULL);
		if (be->ops->read_hist(be, hist))
			goto out;
		osp_progress_show(&pg, !pg.last_ns, "profiling f0: %" PRIu64 " of %u calls",
		                  hist_total(hist), o->p.start_ops);
		if (hist_total(hist) >= o->p.start_ops)
			break;
		if (!rc_target_alive(o->pid, is_child, &status)) {
			osp_progress_end(&pg);
			osp_err("rootcause: target exited after %" PRIu64
			        " of %u f0 calls (--start-ops)",
			        hist_total(hist), o->p.start_ops);
			goto out;
		}
	}
	osp_progress_end(&pg);
	char f0name[PATH_MAX + 64];
	snprintf(f0name, sizeof(f0name), "%s:%s", rbin, symname);
	FILE *info = (o->json || o->folded) ? stderr : stdout;
	/* Interrupted while profiling f0: what was collected is its histogram. */
	rc_print_hist(info, f0name, hist, RC_HBUCKETS);
	if (osp_signals_stop())
		goto out;
	/* Phase 2: the address space and the search. */
	/* CMD may be a shell or a wrapper that starts the program f0 lives in:
	 * the address space is the one of the process whose agent claimed the
	 * channel. */
	pid_t space_pid = tramp ? rc_tramp_claimed(be) : o->pid;
	if (space_pid <= 0)
		space_pid = o->pid;
	if (space_pid != o->pid && o->verbose)
		fprintf(stderr, "osprof rootcause: f0 runs in pid %d, a descendant of CMD\n",
		        (int)space_pid);
	if (rc_space_load(&space, space_pid, err, sizeof(err))) {
		osp_err("rootcause: %s", err);
		goto out;
	}
	uint64_t f0rt = 0;
	for (size_t i = 0; i < space.n; i++)
		if (!strcmp(space.mods[i].elf->path, rbin))
			f0rt = f0vaddr + space.mods[i].bias;
	struct rc_search s;
	rc_search_init(&s, &o->p, be, &space);
	s.verbose = o->verbose;
	struct rc_info in = {
	    .f0 = f0name, .backend = be->ops->name, .hist = hist, .f0_break = be->f0_break};
	if (be->f0_break)
		fprintf(info, "f0 hooked with a breakpoint (a signal per call): %s\n", be->f0_note);
	int resumed = 0;
	if (o->state && access(o->state, F_OK) == 0) {
		struct rc_state st;
		if (rc_state_load(o->state, &s, &st)) {
			ret = OSP_EXIT_USAGE;
			goto out_search;
		}
		if (strcmp(st.f0, f0name)) {
			osp_err("rootcause: %s is a search of %s, not %s", o->state, st.f0, f0name);
			ret = OSP_EXIT_USAGE;
			goto out_search;
		}
		double d = rc_emd(st.hist, hist, RC_HBUCKETS);
		fprintf(info,
		        "resuming %s: EMD between saved and current f0 profile %.3f buckets\n",
		        o->state, d);
		if (d > 1.0) {
			osp_err(
			    "rootcause: f0's profile changed since %s was saved (EMD %.2f > 1.0 "
			    "bucket); remove the file to start over",
			    o->state, d);
			goto out_search;
		}
		in.blo = st.blo;
		in.bhi = st.bhi;
		in.peak = 0;
		struct rc_peak pk[RC_MAX_PEAKS];
		int np = rc_find_peaks(hist, RC_HBUCKETS, pk, RC_MAX_PEAKS);
		for (int i = 0; i < np; i++)
			if (pk[i].lo <= st.blo && st.bhi <= pk[i].hi)
				in.peak = i + 1;
		s.nodes[0].callee = f0rt;
		resumed = 1;
	} else {
		struct rc_peak pk[RC_MAX_PEAKS];
		int np = rc_find_peaks(hist, RC_HBUCKETS, pk, RC_MAX_PEAKS);
		int want = o->peak ? o->peak : rc_auto_peak(pk, np);
		if (want < 1 || want > np) {
			osp_err("rootcause: --peak %d: f0's histogram has %d peak%s", o->peak, np,
			        np == 1 ? "" : "s");
			ret = OSP_EXIT_USAGE;
			goto out_search;
		}
		in.peak = want;
		in.blo = pk[want - 1].lo;
		in.bhi = pk[want - 1].hi;
		if (rc_search_root(&s, symname, f0rt))
			goto out_search;
	}
	fprintf(info, "searching peak %d (buckets %d-%d) with %s probes\n", in.peak, in.blo, in.bhi,
	        be->ops->name);
	fflush(info); /* progress, also when stdout is a file or a pipe */
	uint64_t lo = 1ull << in.blo, hi = (2ull << in.bhi) - 1;
	rc = resumed ? rc_search_resume(&s, lo, hi) : rc_search_start(&s, lo, hi);
	if (rc) {
		osp_err("rootcause: instrumenting f0's callees: %s", strerror(-rc));
		goto out_search;
	}
	uint64_t t_search = osp_now_ns(), calls0 = hist_total(hist);
	while (!osp_signals_stop() && !s.done) {
		search_progress(&pg, &s, 0);
		be->ops->poll(be, 100, rc_search_event, &s);
		if (!rc_target_alive(o->pid, is_child, &status)) {
			be->ops->poll(be, 0, rc_search_event, &s);
			if (!s.done && is_child && WIFSIGNALED(status))
				osp_err("rootcause: target killed by signal %d before the search "
				        "finished",
				        WTERMSIG(status));
			else if (!s.done)
				osp_err("rootcause: target exited before the search finished");
			break;
		}
	}
	/* forced: a search shorter than the redraw interval still shows once */
	search_progress(&pg, &s, 1);
	osp_progress_end(&pg);
	rc_search_stop(&s);
	be->ops->read_hist(be, hist);
	in.search_ns = osp_now_ns() - t_search;
	in.f0_calls = hist_total(hist);
	in.search_calls = in.f0_calls - calls0;
	o->lost = be->ops->lost(be);
	if (o->json)
		rc_print_json(stdout, &s, &in);
	else if (o->folded)
		rc_print_folded(stdout, &s);
	else
		rc_print_tree(stdout, &s, &in);
	fflush(stdout);
	int wrote = !o->output || !rc_write_osp(o->output, &s, &in);
	if (o->state && (rc = rc_state_save(o->state, &s, &in)))
		osp_err("rootcause: %s: %s", o->state, strerror(-rc));
	ret = s.done && wrote ? OSP_EXIT_OK : OSP_EXIT_FAIL;
out_search:
	rc_search_free(&s);
out:
	if (be)
		be->ops->destroy(be);
	if (gate >= 0)
		close(gate);
	if (is_child && o->pid > 0) {
		/* The target keeps running without probes; wait for it. */
		if (rc_target_alive(o->pid, 1, &status)) {
			if (!osp_signals_stop())
				fprintf(stderr,
				        "osprof rootcause: probes removed; waiting for the command "
				        "(pid %d) to exit\n",
				        (int)o->pid);
			int killed = 0;
			for (;;) {
				if (osp_signals_stop() && !killed++)
					kill(o->pid, SIGTERM);
				if (waitpid(o->pid, &status, 0) >= 0 || errno != EINTR)
					break;
			}
		}
	}
	rc_space_free(&space);
	return ret;
}

int cmd_rootcause(int argc, char **argv)
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
	struct rc_opts o = {.target_fd = -1};
	const char *target_out = NULL;
	rc_params_default(&o.p);
	int c;
	unsigned u;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case O_FUNC:
			o.func = optarg;
			break;
		case O_SYSCALL:
			o.syscall = optarg;
			break;
		case 'p':
			if (num("-p", optarg, 1, INT_MAX, &u))
				return OSP_EXIT_USAGE;
			o.pid = (pid_t)u;
			break;
		case O_PEAK:
			if (!strcmp(optarg, "slowest"))
				o.peak = 0;
			else if (num("--peak", optarg, 1, RC_MAX_PEAKS, &u))
				return OSP_EXIT_USAGE;
			else
				o.peak = (int)u;
			break;
		case O_START:
			if (num("--start-ops", optarg, 1, 100000000, &o.p.start_ops))
				return OSP_EXIT_USAGE;
			break;
		case O_DT:
			if (num("--decision-time", optarg, 1, 1000000, &o.p.decision_time))
				return OSP_EXIT_USAGE;
			break;
		case O_DEPTH:
			if (num("--max-depth", optarg, 1, 30, &o.p.max_depth))
				return OSP_EXIT_USAGE;
			break;
		case O_PCT:
			if (num("--maxcount-pct", optarg, 1, 100, &u))
				return OSP_EXIT_USAGE;
			o.p.maxcount_pct = u;
			break;
		case O_MINB:
			if (num("--min-bucket", optarg, 0, 62, &o.p.min_bucket))
				return OSP_EXIT_USAGE;
			break;
		case O_STATE:
			o.state = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case O_FOLDED:
			o.folded = 1;
			break;
		case O_JSON:
			o.json = 1;
			break;
		case O_BACKEND:
			if (strcmp(optarg, "uprobe") && strcmp(optarg, "trampoline"))
				return osp_usage_err("rootcause",
				                     "--backend: '%s' is not uprobe or trampoline",
				                     optarg);
			o.backend = optarg;
			break;
		case O_ALLOW_LOSS:
			o.allow_loss = 1;
			break;
		case O_TARGET_OUT:
			target_out = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		default:
			return osp_usage_err("rootcause", "unknown option");
		}
	}
	if (optind < argc)
		o.cmd = argv + optind;
	if (!!o.func == !!o.syscall)
		return osp_usage_err("rootcause",
		                     "give exactly one of --func BIN:SYM, --syscall NAME");
	if (!!o.pid == !!o.cmd)
		return osp_usage_err("rootcause", "give exactly one of -p PID, -- CMD");
	if (o.folded && o.json)
		return osp_usage_err("rootcause", "--folded and --json exclude each other");
	if (!o.backend)
		o.backend = o.cmd && o.func ? "trampoline" : "uprobe";
	if (o.syscall && !strcmp(o.backend, "trampoline"))
		return osp_usage_err("rootcause", "--backend trampoline applies to --func only");
	int rc = osp_collect_check_output("rootcause", o.output);
	if (rc)
		return rc;
	if (target_out && !o.cmd)
		return osp_usage_err("rootcause", "--target-output needs a command (-- CMD)");
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
	rc = o.func ? run_func(&o) : rc_kernel_run(&o);
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
