/* Which hosts of a fleet are not like the others (`osprof diff --by host`).
 *
 * Each host's profiles are compared, with the ordinary diff engine, to the
 * mean of the OTHER hosts (leave-one-out: with a few hosts an outlier would
 * otherwise pull the reference towards itself). The mean keeps the op counts
 * of one typical host, so phase 1's count test still asks "does this host do
 * twice the work of the others". A host's score is the latency share of its
 * profiles that the engine calls different (differs, or present on one side
 * only), each counted at the larger of its two shares: 0 = like the others. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <osprof/analysis.h>
#include <osprof/sort.h>

/* A host and the indexes of its profiles in the input set. Its own set is
 * built when it is compared and freed right after: memory is reused from
 * host to host instead of holding a copy of the whole fleet. */
struct host_group {
	UT_hash_handle hh;
	const char *name; /* points into a profile of the input set */
	size_t n, cap;
	size_t *idx;
};

static void free_groups(struct host_group **groups)
{
	struct host_group *g, *tmp;
	HASH_ITER(hh, *groups, g, tmp)
	{
		HASH_DEL(*groups, g);
		free(g->idx);
		free(g);
	}
}

/* p's key without its host dimension into dims; returns their number. */
static unsigned other_dims(const struct osp_profile *p, struct osp_dim *dims)
{
	unsigned n = 0;
	for (unsigned i = 0; i < p->ndims; i++)
		if (strcmp(p->dims[i].name, "host"))
			dims[n++] = p->dims[i];
	return n;
}

static int group_hosts(const struct osp_set *s, struct host_group **groups, size_t *nohost)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *h = osp_profile_dim(s->profiles[i], "host");
		struct host_group *g;
		if (!h) {
			(*nohost)++;
			continue;
		}
		HASH_FIND_STR(*groups, h, g);
		if (!g) {
			if (!(g = calloc(1, sizeof(*g))))
				return -ENOMEM;
			g->name = h;
			HASH_ADD_KEYPTR(hh, *groups, g->name, strlen(g->name), g);
		}
		if (g->n == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 16,
			       *idx = realloc(g->idx, cap * sizeof(*idx));
			if (!idx)
				return -ENOMEM;
			g->idx = idx;
			g->cap = cap;
		}
		g->idx[g->n++] = i;
	}
	return 0;
}

/* The host's profiles, host dimension removed. */
static struct osp_set *host_set(const struct osp_set *s, const struct host_group *g)
{
	struct osp_set *h = osp_set_new(s->r);
	for (size_t i = 0; h && i < g->n; i++) {
		const struct osp_profile *p = s->profiles[g->idx[i]];
		struct osp_dim dims[OSP_MAX_DIMS];
		struct osp_profile *q = osp_set_get(h, p->layer, p->op, dims, other_dims(p, dims));
		if (!q || osp_hist_merge(&q->hist, &p->hist)) {
			osp_set_free(h);
			return NULL;
		}
		q->unit = p->unit;
	}
	return h;
}

/* (fleet - host) / k, bucket by bucket rounded to the nearest count; the
 * profiles whose mean rounds to nothing are left out. */
static struct osp_set *mean_of_others(const struct osp_set *fleet, const struct osp_set *host,
                                      double k)
{
	struct osp_set *m = osp_set_new(fleet->r);
	if (!m)
		return NULL;
	for (size_t i = 0; i < fleet->n; i++) {
		const struct osp_profile *f = fleet->profiles[i];
		const struct osp_profile *h =
		    osp_set_find(host, f->layer, f->op, f->dims, f->ndims);
		uint64_t count = f->hist.count - (h ? h->hist.count : 0);
		if (!count || (double)count / k < 0.5)
			continue;
		struct osp_profile *q = osp_set_get(m, f->layer, f->op, f->dims, f->ndims);
		if (!q) {
			osp_set_free(m);
			return NULL;
		}
		q->unit = f->unit;
		for (unsigned b = 0; b < f->hist.nbuckets; b++) {
			uint64_t c = f->hist.buckets[b] - (h ? h->hist.buckets[b] : 0);
			uint64_t mc = (uint64_t)llround((double)c / k);
			if (mc)
				osp_hist_add_bucket(&q->hist, b, mc);
		}
		q->hist.total =
		    (uint64_t)llround((double)(f->hist.total - (h ? h->hist.total : 0)) / k);
		q->hist.min = f->hist.min;
		q->hist.max = f->hist.max;
	}
	return m;
}

static void score_host(struct osp_host_rank *r, const struct osp_diff *d)
{
	double share = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct osp_diff_entry *e = &d->e[i];
		if (e->verdict == OSP_VERDICT_SIMILAR || e->verdict == OSP_VERDICT_INSIGNIFICANT)
			continue;
		share += e->share;
		if (e->verdict == OSP_VERDICT_DIFFERS)
			r->ndiffer++;
		else
			r->nonly++;
		if (!r->top[0]) {
			char label[160];
			const struct osp_profile *p = e->a ? e->a : e->b;
			snprintf(r->top, sizeof(r->top), "%s (%s): %s",
			         osp_profile_label(p, label, sizeof(label)),
			         osp_verdict_name(e->verdict), e->reason);
		}
	}
	r->score = 100 * share;
}

static int by_score(const void *a, const void *b)
{
	const struct osp_host_rank *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->ndiffer + x->nonly != y->ndiffer + y->nonly)
		return x->ndiffer + x->nonly < y->ndiffer + y->nonly ? 1 : -1;
	return strcmp(x->host, y->host);
}

int osp_diff_hosts(const struct osp_set *s, const struct osp_diff_opts *opts,
                   struct osp_host_ranking *out, char *err, size_t errlen)
{
	struct osp_diff_opts lazy = *opts, *o = &lazy;
	lazy.skip_insignificant_scores = 1;
	memset(out, 0, sizeof(*out));
	struct host_group *groups = NULL, *g, *tmp;
	size_t nohost = 0;
	static const char *const host[] = {"host"};
	struct osp_set *fleet = NULL;
	int rc = group_hosts(s, &groups, &nohost);
	size_t n = HASH_COUNT(groups);
	if (!rc && n < 2) {
		snprintf(err, errlen,
		         "%zu host%s: --by host needs a set merged from two hosts or more "
		         "(osprof merge keeps each file's host)",
		         n, n == 1 ? "" : "s");
		rc = -EINVAL;
	}
	if (!rc && !(fleet = osp_set_drop_dims(s, host, 1)))
		rc = -ENOMEM;
	if (!rc && !(out->hosts = calloc(n, sizeof(*out->hosts))))
		rc = -ENOMEM;
	out->nohost = nohost;
	HASH_ITER(hh, groups, g, tmp)
	{
		if (rc)
			break;
		struct osp_host_rank *r = &out->hosts[out->n];
		struct osp_set *hs = host_set(s, g);
		struct osp_set *ref = hs ? mean_of_others(fleet, hs, (double)(n - 1)) : NULL;
		struct osp_diff d;
		if (!ref || !(r->host = strdup(g->name))) {
			osp_set_free(hs);
			osp_set_free(ref);
			rc = -ENOMEM;
			break;
		}
		out->n++;
		for (size_t i = 0; i < hs->n; i++)
			r->count += hs->profiles[i]->hist.count;
		rc = osp_diff_sets(hs, ref, o, &d, err, errlen);
		if (!rc) {
			score_host(r, &d);
			osp_diff_free(&d);
		}
		osp_set_free(ref);
		osp_set_free(hs);
	}
	free_groups(&groups);
	osp_set_free(fleet);
	if (rc) {
		osp_host_ranking_free(out);
		return rc;
	}
	osp_sort(out->hosts, out->n, sizeof(*out->hosts), by_score);
	return 0;
}

void osp_host_ranking_free(struct osp_host_ranking *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->hosts[i].host);
	free(r->hosts);
	memset(r, 0, sizeof(*r));
}
