/* fs layer: the start/end tracepoint pairs of the file systems of this kernel,
 * discovered in tracefs (collect/fs_events.c) and timed per thread by one BPF
 * program attached to every event with a cookie naming the pair and side;
 * plus kernel functions by name with --func (collect/kfunc.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/fs_events.h"
#include "collect/kfunc.h"
#include "fs.skel.h"

struct fs_state {
	struct fs_pairs pairs;
	struct fs_bpf *skel;
	struct bpf_link **links;
	size_t nlinks;
	struct kfuncs *kfuncs;
	struct osp_bpf_stats stats;
	int acquired;
};

/* OSPROF_FS_SUBSYS=ext4,jbd2 narrows discovery (fewer probes, e.g. tests). */
static const char *only(void)
{
	const char *e = getenv("OSPROF_FS_SUBSYS");
	return e && *e ? e : NULL;
}

static void fs_destroy(struct osp_session *s, int slot)
{
	struct fs_state *st = s->layer_state[slot];
	if (!st)
		return;
	for (size_t i = 0; i < st->nlinks; i++)
		bpf_link__destroy(st->links[i]);
	free(st->links);
	fs_bpf__destroy(st->skel);
	kfuncs_free(st->kfuncs);
	fs_pairs_free(&st->pairs);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

static int fs_prepare(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("fs");
	if (rc)
		return rc;
	struct fs_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	const char *tfs = osp_tracefs();
	if (!tfs)
		return -ENOENT;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if ((rc = fs_discover(tfs, only(), &st->pairs)))
		return rc;
	if (s->funcs && (rc = kfuncs_prepare(s, s->funcs, (unsigned)st->pairs.n, &st->kfuncs)))
		return rc;
	if (st->pairs.n == 0) {
		if (st->kfuncs)
			return 0;
		fprintf(stderr, "osprof: fs: no file-system tracepoint pairs in %s/events%s%s\n",
		        tfs, only() ? " for OSPROF_FS_SUBSYS=" : "", only() ? only() : "");
		return -ENOENT;
	}
	if (!(st->skel = fs_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: fs: cannot open the BPF object: %s\n", strerror(errno));
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(st->skel, s)))
		return rc;
	if ((rc = fs_bpf__load(st->skel))) {
		fprintf(stderr, "osprof: fs: cannot load the BPF object: %s\n", strerror(-rc));
		return rc;
	}
	return 0;
}

static int attach_event(struct fs_state *st, const char *subsys, const char *event, __u64 cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = cookie);
	struct bpf_link *l =
	    bpf_program__attach_tracepoint_opts(st->skel->progs.fs_event, subsys, event, &o);
	if (!l) {
		int rc = -errno;
		fprintf(stderr, "osprof: fs: cannot attach to tracepoint %s:%s: %s\n", subsys,
		        event, strerror(errno));
		return rc;
	}
	st->links[st->nlinks++] = l;
	return 0;
}

static int fs_attach(struct osp_session *s, int slot)
{
	struct fs_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if (st->pairs.n) {
		st->links = calloc(2 * st->pairs.n, sizeof(*st->links));
		if (!st->links)
			return -ENOMEM;
	}
	/* Ends first: a start seen before its end's probe exists would be
	 * left open forever. */
	for (size_t i = 0; i < st->pairs.n && !rc; i++)
		rc = attach_event(st, st->pairs.v[i].subsys, st->pairs.v[i].end, i | KL_COOKIE_END);
	for (size_t i = 0; i < st->pairs.n && !rc; i++)
		rc = attach_event(st, st->pairs.v[i].subsys, st->pairs.v[i].start, i);
	if (rc)
		return rc;
	for (size_t i = 0; i < st->pairs.n; i++) {
		char t[256];
		snprintf(t, sizeof(t), "%s:%s..%s", st->pairs.v[i].subsys, st->pairs.v[i].start,
		         st->pairs.v[i].end);
		osp_bpf_note_attach(s, "fs", t, OSP_ATTACH_TRACEPOINT);
	}
	if (s->verbose && st->pairs.n)
		fprintf(stderr,
		        "osprof: fs: %zu tracepoint pairs, one program, cookies name the pair\n",
		        st->pairs.n);
	return st->kfuncs ? kfuncs_attach(s, st->kfuncs) : 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct fs_state *st = ctx;
	if (k->op >= st->pairs.n)
		return 1;
	d->op = st->pairs.v[k->op].op;
	d->dims[d->ndims++] = (struct osp_dim){"fs", (char *)st->pairs.v[k->op].subsys};
	if (k->flags & OSP_HK_PREEMPTED)
		d->dims[d->ndims++] = (struct osp_dim){"state", "preempted"};
	return 0;
}

static int fs_collect(struct osp_session *s, int slot, int reset)
{
	struct fs_state *st = s->layer_state[slot];
	int rc = 0;
	if (st->skel) {
		rc = osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.fs_hist), "fs", desc, st,
		                        reset);
		if (!rc)
			rc = osp_bpf_read_stats(s, bpf_map__fd(st->skel->maps.osp_stats),
			                        &st->stats);
	}
	if (!rc && st->kfuncs)
		rc = kfuncs_collect(s, st->kfuncs, reset);
	if (rc)
		fprintf(stderr, "osprof: fs: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

static int fs_list(FILE *out, int verbose)
{
	if (geteuid() != 0) {
		fprintf(out,
		        "fs       file-system tracepoint pairs via tracepoint (needs root to read "
		        "tracefs); --func via fentry, else kprobe\n");
		return 0;
	}
	const char *tfs = osp_tracefs();
	struct fs_pairs p;
	if (!tfs || fs_discover(tfs, only(), &p))
		return -ENOENT;
	char subsys[256] = "";
	for (size_t i = 0; i < p.n; i++) {
		size_t k = 0, first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(p.v[j].subsys, p.v[i].subsys) != 0;
		if (!first)
			continue;
		for (size_t j = 0; j < p.n; j++)
			k += !strcmp(p.v[j].subsys, p.v[i].subsys);
		snprintf(subsys + strlen(subsys), sizeof(subsys) - strlen(subsys), "%s%s %zu",
		         *subsys ? ", " : "", p.v[i].subsys, k);
	}
	fprintf(out, "fs       %zu tracepoint pairs (%s) via tracepoint, cookie per pair\n", p.n,
	        subsys);
	if (verbose)
		for (size_t i = 0; i < p.n; i++)
			fprintf(out, "  %-32s %s:%s .. %s\n", p.v[i].op, p.v[i].subsys,
			        p.v[i].start, p.v[i].end);
	fs_pairs_free(&p);
	kfuncs_list(out);
	return 0;
}

const struct osp_layer osp_layer_fs = {
    .name = "fs",
    .summary = "file-system tracepoint pairs (ext4, jbd2, xfs, ...) and --func kernel functions",
    .needs_root = 1,
    .list = fs_list,
    .prepare = fs_prepare,
    .attach = fs_attach,
    .collect = fs_collect,
    .destroy = fs_destroy,
};
