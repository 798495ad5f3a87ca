/* Sources of `osprof top`: live collection layers, or replay of a file. */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/top_source.h"
#include "collect/session.h"

struct live {
	struct osp_session s;
	const struct osp_layer *layers[OSP_MAX_LAYERS];
	int nlayers, prepared;
};

/* A layer that resets its min/max map each interval can lose a racing
 * sample's extreme (counted in the next interval, extreme wiped): keep
 * min/max consistent with the buckets so quantiles are not clamped to 0. */
static void widen_minmax(struct osp_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct osp_hist *h = &s->profiles[i]->hist;
		int first = osp_hist_first(h), last = osp_hist_last(h);
		if (first < 0)
			continue;
		if (h->min > osp_bucket_hi((unsigned)first, h->r))
			h->min = osp_bucket_lo((unsigned)first, h->r);
		if (h->max < osp_bucket_lo((unsigned)last, h->r))
			h->max = osp_bucket_hi((unsigned)last, h->r);
	}
}

static int live_poll(struct top_source *src, struct osp_set *into)
{
	struct live *l = src->priv;
	struct osp_set *keep = l->s.set;
	int rc = 0;
	/* Layers collect into s.set; reset=1 starts the next interval at zero. */
	l->s.set = into;
	rc = osp_session_collect(NULL, &l->s, l->layers, l->nlayers, 1); /* top: no stderr */
	l->s.set = keep;
	widen_minmax(into);
	return rc;
}

static void live_close(struct top_source *src)
{
	struct live *l = src->priv;
	/* The session owns src->cum (its set): freed with it. */
	osp_session_end(&l->s, l->layers, l->prepared);
	free(l);
	src->cum = NULL;
}

int top_source_live(struct top_source *src, struct osp_collect_opts *o, const char *cmd)
{
	struct live *l = calloc(1, sizeof(*l));
	if (!l)
		return OSP_EXIT_FAIL;
	int rc = osp_collect_layers(cmd, o, l->layers, &l->nlayers);
	if (rc) {
		free(l);
		return rc;
	}
	/* -i is the refresh interval here, not a slice length. */
	uint64_t interval = o->interval_ns;
	o->interval_ns = 0;
	if (osp_collect_session(&l->s, o, l->layers, l->nlayers)) {
		o->interval_ns = interval;
		free(l);
		return OSP_EXIT_FAIL;
	}
	o->interval_ns = interval;
	osp_set_meta(l->s.set, "command", cmd);
	src->priv = l;
	src->poll = live_poll;
	src->close = live_close;
	src->cum = l->s.set;
	l->prepared = l->nlayers;
	rc = osp_session_prepare(cmd, &l->s, l->layers, &l->prepared);
	if (!rc)
		rc = osp_session_attach(cmd, &l->s, l->layers, &l->prepared);
	l->nlayers = l->prepared;
	if (rc) {
		live_close(src);
		return rc;
	}
	const char *names = osp_get_meta(l->s.set, "layers");
	char who[64];
	if (o->pids.n)
		snprintf(who, sizeof(who), "pid %d%s", (int)o->pids.v[0],
		         o->pids.n > 1 ? ",..." : "");
	else if (o->cgroup)
		snprintf(who, sizeof(who), "cgroup %s", o->cgroup);
	else if (o->comm)
		snprintf(who, sizeof(who), "comm %s", o->comm);
	else
		snprintf(who, sizeof(who), "all processes");
	snprintf(src->what, sizeof(src->what), "live: %s, %s", names ? names : "?", who);
	return 0;
}

struct replay {
	struct osp_set *file;
	uint64_t next, last; /* slice indexes still to play */
	unsigned polls;
	int done, sliced;
};

/* Adds n operations of bucket idx; their values are unknown, so the total
 * is estimated from the bucket middle (as osprof report does for slices). */
static void add_bucket(struct osp_hist *h, unsigned idx, uint64_t n)
{
	osp_hist_add_bucket(h, idx, n);
	h->total += (uint64_t)((double)n * osp_bucket_mid(idx, h->r));
	uint64_t lo = osp_bucket_lo(idx, h->r), hi = osp_bucket_hi(idx, h->r);
	if (lo < h->min)
		h->min = lo;
	if (hi > h->max)
		h->max = hi;
}

static int replay_poll(struct top_source *src, struct osp_set *into)
{
	struct replay *rp = src->priv;
	struct osp_set *f = rp->file;
	if (rp->done)
		return 1;
	for (size_t i = 0; i < f->n; i++) {
		struct osp_profile *p = f->profiles[i];
		if (!f->slice_ns || !p->nslices) {
			/* Not sliced: everything arrives in the first refresh. */
			if (rp->polls)
				continue;
			struct osp_profile *q =
			    osp_set_get(into, p->layer, p->op, p->dims, p->ndims);
			if (!q || osp_hist_merge(&q->hist, &p->hist) < 0)
				return -1;
			q->unit = p->unit;
			continue;
		}
		/* Slices are sorted by index: find the one being played. */
		size_t lo = 0, hi = p->nslices;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (p->slices[mid].index < rp->next)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == p->nslices || p->slices[lo].index != rp->next)
			continue;
		struct osp_profile *q = osp_set_get(into, p->layer, p->op, p->dims, p->ndims);
		if (!q)
			return -1;
		q->unit = p->unit;
		for (unsigned k = 0; k < p->hist.nbuckets; k++)
			if (p->slices[lo].buckets[k])
				add_bucket(&q->hist, k, p->slices[lo].buckets[k]);
	}
	/* Rates are per recorded slice; an unsliced file arrives at once, its
	 * rates over the recording's duration when the file says it. */
	src->poll_span_ns =
	    f->slice_ns && rp->sliced ? f->slice_ns : osp_meta_u64(f, "duration_ns");
	if (rp->next >= rp->last)
		rp->done = 1;
	rp->next++;
	rp->polls++;
	return 0;
}

static void replay_close(struct top_source *src)
{
	struct replay *rp = src->priv;
	osp_set_free(rp->file);
	osp_set_free(src->cum);
	free(rp);
	src->cum = NULL;
}

int top_source_replay(struct top_source *src, const char *file)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return OSP_EXIT_FAIL;
	if (!(rp->file = osp_cli_load(file))) {
		free(rp);
		return OSP_EXIT_USAGE;
	}
	int sliced = 0;
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < rp->file->n; i++) {
		struct osp_profile *p = rp->file->profiles[i];
		if (!rp->file->slice_ns || !p->nslices)
			continue;
		sliced = 1;
		if (p->slices[0].index < first)
			first = p->slices[0].index;
		if (p->slices[p->nslices - 1].index > rp->last)
			rp->last = p->slices[p->nslices - 1].index;
	}
	rp->next = sliced ? first : 0;
	rp->sliced = sliced;
	src->cum = osp_set_new(rp->file->r);
	if (!src->cum) {
		osp_set_free(rp->file);
		free(rp);
		return OSP_EXIT_FAIL;
	}
	for (size_t i = 0; i < rp->file->nmeta; i++)
		osp_set_meta(src->cum, rp->file->meta[i].key, rp->file->meta[i].value);
	osp_set_meta(src->cum, "replayed_from", file);
	src->priv = rp;
	src->poll = replay_poll;
	src->close = replay_close;
	snprintf(src->what, sizeof(src->what), "replay: %s%s", file,
	         sliced ? "" : " (not time-sliced: shown at once)");
	return 0;
}
