/* osprof rootcause --func: the driver of the DARC search (seed 002): finds
 * f0 in its binary, starts or attaches to the target with a backend
 * (rootcause/backend.h), then profile f0 -> choose a peak -> search -> print.
 * The search itself is rootcause/search.c. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <osprof/clock.h>
#include <osprof/status.h>
#include "collect/session.h"
#include "rootcause/driver.h"
#include "rootcause/peaks.h"

/* One --func run: f0, the backend, the target and f0's histogram. */
struct frun {
	struct rc_opts *o;
	char bin[PATH_MAX]; /* f0's binary, real path */
	const char *sym;
	char f0name[PATH_MAX + 64]; /* BIN:SYM */
	uint64_t f0off, f0vaddr;
	struct rc_space space;
	struct rc_backend *be;
	struct rc_target t;
	int tramp;
	uint64_t hist[RC_HBUCKETS];
	FILE *info; /* histogram and notes: stdout, or stderr with --json/--folded */
};

/* f0 = BIN:SYM, looked up in BIN's symbols. */
static int f0_find(struct frun *r)
{
	const char *func = r->o->func, *colon = strrchr(func, ':');
	if (!colon || colon == func || !colon[1])
		return osp_usage_err("rootcause", "--func: '%s' is not BIN:SYM", func);
	char bin[PATH_MAX], err[512];
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - func), func);
	r->sym = colon + 1;
	if (!realpath(bin, r->bin)) {
		osp_err("rootcause: --func %s: %s", bin, strerror(errno));
		return OSP_EXIT_USAGE;
	}
	struct rc_module *m = rc_space_add(&r->space, r->bin, 0, err, sizeof(err));
	if (!m) {
		osp_err("rootcause: --func: %s", err);
		return OSP_EXIT_USAGE;
	}
	const struct rc_sym *f0 = rc_elf_find(m->elf, r->sym);
	if (!f0 || f0->got || rc_elf_off(m->elf, f0->addr, &r->f0off)) {
		osp_err("rootcause: --func: %s has no function '%s'", r->bin, r->sym);
		return OSP_EXIT_USAGE;
	}
	r->f0vaddr = f0->addr;
	snprintf(r->f0name, sizeof(r->f0name), "%s:%s", r->bin, r->sym);
	return 0;
}

/* The backend, the target (started held at its gate, released once f0 is
 * instrumented) and f0's probe. */
static int target_start(struct frun *r)
{
	struct rc_opts *o = r->o;
	char **env = NULL;
	if (r->tramp) {
		if (!o->cmd) {
			osp_err("rootcause: --backend trampoline needs a command osprof starts "
			        "(-- CMD); use --backend uprobe with -p");
			return OSP_EXIT_USAGE;
		}
		r->be = rc_tramp_new();
		if (!r->be || rc_tramp_env(r->be, &env))
			return OSP_EXIT_FAIL;
	}
	if (rc_target_start(&r->t, o, env)) {
		osp_err("rootcause: fork: %s", strerror(errno));
		return OSP_EXIT_FAIL;
	}
	if (r->tramp)
		rc_tramp_set_pid(r->be, o->pid);
	if (!r->be)
		r->be = rc_uprobe_new(o->pid, r->t.is_child);
	if (!r->be)
		return OSP_EXIT_FAIL;
	r->be->pid = o->pid;
	/* A PIE not yet running: its run-time address is known after exec. */
	int rc = r->be->ops->attach_f0(r->be, r->bin, r->f0off, r->f0vaddr);
	if (rc) {
		osp_err("rootcause: cannot instrument %s: %s", r->f0name, strerror(-rc));
		return OSP_EXIT_FAIL;
	}
	rc_target_release(&r->t);
	return 0;
}

static int read_hist(void *ctx, uint64_t *hist)
{
	struct rc_backend *be = ctx;
	return be->ops->read_hist(be, hist);
}

/* The address space f0 runs in and f0's run-time address there. CMD may
 * be a shell or a wrapper that starts the program f0 lives in: the space
 * is the one of the process the backend saw running f0. */
static int space_load(struct frun *r, uint64_t *f0rt)
{
	pid_t pid = r->be->ops->f0_pid(r->be);
	if (pid <= 0)
		pid = r->o->pid;
	if (pid != r->o->pid && r->o->verbose)
		fprintf(stderr, "osprof rootcause: f0 runs in pid %d, a descendant of CMD\n",
		        (int)pid);
	char err[512];
	if (rc_space_load(&r->space, pid, err, sizeof(err))) {
		osp_err("rootcause: %s", err);
		return -1;
	}
	*f0rt = 0;
	for (size_t i = 0; i < r->space.n; i++)
		if (!strcmp(r->space.mods[i].elf->path, r->bin))
			*f0rt = r->f0vaddr + r->space.mods[i].bias;
	return 0;
}

/* --state FILE that exists: the saved ftree, if f0 and its profile are the
 * same (EMD of at most one bucket). */
static int state_resume(struct frun *r, struct rc_search *s, struct rc_info *in)
{
	const char *path = r->o->state;
	struct rc_state st;
	if (rc_state_load(path, s, &st))
		return OSP_EXIT_USAGE;
	if (strcmp(st.f0, r->f0name)) {
		osp_err("rootcause: %s is a search of %s, not %s", path, st.f0, r->f0name);
		return OSP_EXIT_USAGE;
	}
	double d = rc_emd(st.hist, r->hist, RC_HBUCKETS);
	fprintf(r->info, "resuming %s: EMD between saved and current f0 profile %.3f buckets\n",
	        path, d);
	if (d > 1.0) {
		osp_err("rootcause: f0's profile changed since %s was saved (EMD %.2f > 1.0 "
		        "bucket); remove the file to start over",
		        path, d);
		return OSP_EXIT_FAIL;
	}
	in->blo = st.blo;
	in->bhi = st.bhi;
	in->peak = 0;
	struct rc_peak pk[RC_MAX_PEAKS];
	int np = rc_find_peaks(r->hist, RC_HBUCKETS, pk, RC_MAX_PEAKS);
	for (int i = 0; i < np; i++)
		if (pk[i].lo <= st.blo && st.bhi <= pk[i].hi)
			in->peak = i + 1;
	return 0;
}

/* The progress line of the search: the deepest node whose callees are being
 * timed (the frontier), its depth, and how many in-peak records were used. */
static void search_progress(const struct rc_opts *o, const struct rc_search *s, int force)
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
		rc_progress(o, force,
		            "depth %d of %u, node %s (%u branch%s open), %" PRIu64
		            " in-peak records",
		            deep->depth, s->p.max_depth, deep->name ? deep->name : "?", nfront,
		            nfront == 1 ? "" : "es", s->used);
	else
		rc_progress(o, force, "search finishing, %" PRIu64 " in-peak records", s->used);
}

/* Votes on in-peak f0 calls until the search is done, the target exits or
 * a stop signal comes; then removes the probes. */
static void search_loop(struct frun *r, struct rc_search *s, struct rc_info *in)
{
	struct rc_backend *be = r->be;
	uint64_t t0 = osp_now_ns(), calls0 = rc_hist_total(r->hist);
	/* Records wake the wait; a backend without an fd (the trampolines'
	 * shared memory) is looked at every ms. */
	uint64_t tick = be->fd >= 0 ? 100000000ull : 1000000ull;
	enum rc_target_state st = RC_RUNNING;
	while (st == RC_RUNNING && !s->done) {
		search_progress(r->o, s, 0);
		st = rc_wait(&r->t, be->fd, osp_now_ns() + tick);
		be->ops->poll(be, rc_search_event, s);
	}
	if (st == RC_EXITED && !s->done && r->t.w.signal)
		osp_err("rootcause: target killed by signal %d before the search finished",
		        r->t.w.signal);
	else if (st == RC_EXITED && !s->done)
		osp_err("rootcause: target exited before the search finished");
	/* forced: a search shorter than the redraw interval still shows once */
	search_progress(r->o, s, 1);
	rc_progress(r->o, 1, NULL);
	rc_search_stop(s);
	be->ops->read_hist(be, r->hist);
	in->search_ns = osp_now_ns() - t0;
	in->f0_calls = rc_hist_total(r->hist);
	in->search_calls = in->f0_calls - calls0;
}

/* The tree (or folded stacks, JSON) on stdout, the profile set, the state. */
static int report(struct frun *r, struct rc_search *s, struct rc_info *in)
{
	struct rc_opts *o = r->o;
	o->lost = r->be->ops->lost(r->be);
	if (o->json)
		rc_print_json(stdout, s, in);
	else if (o->folded)
		rc_print_folded(stdout, s);
	else
		rc_print_tree(stdout, s, in);
	fflush(stdout);
	int wrote = !o->output || !rc_write_osp(o->output, s, in);
	int rc = o->state ? rc_state_save(o->state, s, in) : 0;
	if (rc)
		osp_err("rootcause: %s: %s", o->state, strerror(-rc));
	return s->done && wrote ? OSP_EXIT_OK : OSP_EXIT_FAIL;
}

/* Phase 2 and 3: the search of the chosen peak (or of the saved one) and
 * its result. */
static int search(struct frun *r)
{
	struct rc_opts *o = r->o;
	uint64_t f0rt;
	if (space_load(r, &f0rt))
		return OSP_EXIT_FAIL;
	struct rc_search s;
	rc_search_init(&s, &o->p, r->be, &r->space);
	s.verbose = o->verbose;
	struct rc_info in = {.f0 = r->f0name,
	                     .backend = r->be->ops->name,
	                     .hist = r->hist,
	                     .f0_break = r->be->f0_break,
	                     .fallback = r->be->fallback};
	if (r->be->f0_break)
		fprintf(r->info, "f0 hooked with a breakpoint (a signal per call): %s\n",
		        r->be->f0_note);
	int resumed = o->state && access(o->state, F_OK) == 0, ret = OSP_EXIT_FAIL;
	if (resumed) {
		if ((ret = state_resume(r, &s, &in)))
			goto out;
		s.nodes[0].callee = f0rt;
		ret = OSP_EXIT_FAIL;
	} else if (rc_choose_peak(o, r->hist, &in)) {
		ret = OSP_EXIT_USAGE;
		goto out;
	} else if (rc_search_root(&s, r->sym, f0rt)) {
		goto out;
	}
	fprintf(r->info, "searching peak %d (buckets %d-%d) with %s probes\n", in.peak, in.blo,
	        in.bhi, r->be->ops->name);
	fflush(r->info); /* progress, also when stdout is a file or a pipe */
	uint64_t lo = 1ull << in.blo, hi = (2ull << in.bhi) - 1;
	int rc = resumed ? rc_search_resume(&s, lo, hi) : rc_search_start(&s, lo, hi);
	if (rc) {
		osp_err("rootcause: instrumenting f0's callees: %s", strerror(-rc));
		goto out;
	}
	search_loop(r, &s, &in);
	ret = report(r, &s, &in);
out:
	rc_search_free(&s);
	return ret;
}

int rc_func_run(struct rc_opts *o)
{
	struct frun r = {.o = o,
	                 .t = {.gate = -1},
	                 .tramp = !strcmp(o->backend, "trampoline"),
	                 .info = (o->json || o->folded) ? stderr : stdout};
	int ret = f0_find(&r);
	if (!ret && !(ret = target_start(&r))) {
		ret = OSP_EXIT_FAIL;
		int rc = rc_profile_f0(o, &r.t, read_hist, r.be, r.hist);
		/* Interrupted while profiling f0: what was collected is its histogram. */
		if (!rc || osp_signals_stop())
			rc_print_hist(r.info, r.f0name, r.hist, RC_HBUCKETS);
		if (!rc && !osp_signals_stop())
			ret = search(&r);
	}
	if (r.be)
		r.be->ops->destroy(r.be);
	rc_target_finish(&r.t);
	rc_space_free(&r.space);
	return ret;
}
