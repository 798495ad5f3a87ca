/* Ranking by total latency with cumulative share (seed 000 Table 3.1) and
 * "likely nested" count matches (seed 001 §6.2, seed 000 §3.1.2). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/sort.h>

static int by_total(const void *x, const void *y)
{
	const struct osp_rank_entry *a = x, *b = y;
	const struct osp_hist *ha = &a->p->hist, *hb = &b->p->hist;
	if (ha->total != hb->total)
		return ha->total < hb->total ? 1 : -1;
	if (ha->count != hb->count)
		return ha->count < hb->count ? 1 : -1;
	const char *ka = a->p->key ? a->p->key : a->p->op;
	const char *kb = b->p->key ? b->p->key : b->p->op;
	return strcmp(ka, kb);
}

long osp_rank(const struct osp_set *s, struct osp_rank_entry **out)
{
	size_t n = 0;
	double total = 0, ops = 0;
	*out = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS) {
			n++;
			total += (double)s->profiles[i]->hist.total;
			ops += (double)s->profiles[i]->hist.count;
		}
	struct osp_rank_entry *e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS)
			e[n++].p = s->profiles[i];
	osp_sort(e, n, sizeof(*e), by_total);
	double cum = 0;
	for (size_t i = 0; i < n; i++) {
		e[i].share = total > 0 ? (double)e[i].p->hist.total / total : 0;
		cum += e[i].share;
		e[i].cum_share = cum > 1 ? 1 : cum;
		e[i].share_ops = ops > 0 ? (double)e[i].p->hist.count / ops : 0;
	}
	*out = e;
	return (long)n;
}

struct cand {
	uint64_t count;
	const struct osp_profile *p;
};

static int by_count(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	return a->count < b->count ? -1 : a->count > b->count;
}

static int match(uint64_t a, uint64_t b, double tol)
{
	uint64_t d = a > b ? a - b : b - a, m = a > b ? a : b;
	double slack = tol * (double)m;
	return (double)d <= (slack > OSP_NEST_ABS_SLACK ? slack : OSP_NEST_ABS_SLACK);
}

static int push(struct osp_nest_hint **v, size_t *n, size_t *cap, const struct osp_nest_hint *h)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct osp_nest_hint *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = *h;
	return 0;
}

/* Depth of a layer in the call order user -> syscall -> fs -> block (seed
 * 001's layers); lock, sched and irq run under any of them; -1: a layer
 * whose place is unknown (uprobe, app), never guessed about. */
static int layer_depth(const char *layer)
{
	static const char *const order[] = {"user", "syscall", "fs", "block"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(layer, order[i]))
			return i;
	if (!strcmp(layer, "stack"))
		return 2;
	if (!strcmp(layer, "lock") || !strcmp(layer, "sched") || !strcmp(layer, "irq"))
		return 4;
	return -1;
}

/* Whether a count match may suggest that outer calls inner: only from a
 * higher layer to a lower one, or between two fs ops (a VFS op calls
 * another: readdir -> readpage, seed 000 §3.1.2); never for an inner op
 * whose parents were measured (at any layer: a measured system call
 * already says which user-level call could hold it). */
static int may_nest(const struct osp_profile *outer, const struct osp_profile *inner)
{
	int o = layer_depth(outer->layer), i = layer_depth(inner->layer);
	if (o < 0 || i < 0 || o == 4)
		return 0;
	if (inner->nparents)
		return 0;
	return i > o || (i == o && o == 2);
}

/* The hint already pushed for the pair (outer, inner), or NULL. */
static struct osp_nest_hint *find_pair(struct osp_nest_hint *v, size_t n,
                                       const struct osp_profile *outer,
                                       const struct osp_profile *inner)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].outer == outer && v[i].inner == inner)
			return &v[i];
	return NULL;
}

long osp_nesting_hints(const struct osp_set *s, double tol, struct osp_nest_hint **out)
{
	if (tol < 0)
		tol = OSP_NEST_TOL;
	*out = NULL;
	struct cand *c = malloc((s->n ? s->n : 1) * sizeof(*c));
	struct osp_peak *pk = malloc((osp_nbuckets(s->r) / 2 + 2) * sizeof(*pk));
	struct osp_nest_hint *v = NULL;
	size_t nc = 0, n = 0, cap = 0;
	long rc = -ENOMEM;
	if (!c || !pk)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		if (p->unit == OSP_UNIT_NS && p->hist.count >= OSP_NEST_MIN_COUNT)
			c[nc++] = (struct cand){p->hist.count, p};
	}
	osp_sort(c, nc, sizeof(*c), by_count);
	for (size_t i = 0; i < nc; i++) {
		const struct osp_profile *outer = c[i].p;
		unsigned np = osp_find_peaks(&outer->hist, NULL, pk, osp_nbuckets(s->r) / 2 + 2);
		/* Every contiguous range of peaks: readdir's peaks 3-4 equal
		 * readpage's count; all peaks: lookup vs read_inode. */
		for (unsigned f = 0; f < np; f++) {
			uint64_t pop = 0;
			double lat = 0;
			for (unsigned l = f; l < np; l++) {
				pop += pk[l].count;
				lat += pk[l].lat;
				if (pop < OSP_NEST_MIN_COUNT)
					continue;
				double lo = (double)pop * (1 - tol) - OSP_NEST_ABS_SLACK;
				/* Binary search for the first candidate >= lo. */
				size_t a = 0, b = nc;
				while (a < b) {
					size_t m = (a + b) / 2;
					if ((double)c[m].count < lo)
						a = m + 1;
					else
						b = m;
				}
				/* One candidate per peak range: the closest count. */
				const struct osp_profile *best = NULL;
				uint64_t best_d = 0;
				for (size_t k = a; k < nc && match(pop, c[k].count, tol); k++) {
					const struct osp_profile *inner = c[k].p;
					if (inner == outer || !may_nest(outer, inner))
						continue;
					/* The caller is at least as slow as its callee. */
					if (lat / (double)pop <
					    (double)inner->hist.total / (double)inner->hist.count)
						continue;
					uint64_t d = pop > inner->hist.count
					                 ? pop - inner->hist.count
					                 : inner->hist.count - pop;
					if (!best || d < best_d) {
						best = inner;
						best_d = d;
					}
				}
				/* Never twice for the same pair: the first (fastest)
				 * peak range that matches stands for it. */
				if (!best || find_pair(v, n, outer, best))
					continue;
				struct osp_nest_hint h = {outer, f + 1, l + 1,           np,
				                          pop,   best,  best->hist.count};
				if (push(&v, &n, &cap, &h))
					goto out;
			}
		}
	}
	*out = v;
	v = NULL;
	rc = (long)n;
out:
	free(v);
	free(c);
	free(pk);
	return rc;
}
