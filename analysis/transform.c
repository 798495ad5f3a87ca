/* Set transforms that make two sets comparable: a coarser resolution (exact,
 * since r = 2^s buckets nest: bucket b at r holds the values of buckets
 * b*k .. b*k+k-1 at r*k) and dropping dimensions (pids differ between runs;
 * summing over them compares the ops themselves). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>

static void widen(struct osp_hist *dst, const struct osp_hist *src)
{
	dst->count += src->count;
	dst->total += src->total;
	if (src->count && src->min < dst->min)
		dst->min = src->min;
	if (src->count && src->max > dst->max)
		dst->max = src->max;
}

/* Adds src (at resolution src->r) into dst (at a resolution dividing it). */
static void add_rebinned(struct osp_hist *dst, const struct osp_hist *src)
{
	unsigned k = src->r / dst->r;
	for (unsigned i = 0; i < src->nbuckets; i++) {
		if (!src->buckets[i])
			continue;
		unsigned j;
		if (i == 0)
			j = 0;
		else if (i == src->nbuckets - 1)
			j = dst->nbuckets - 1;
		else
			j = 1 + (i - 1) / k;
		dst->buckets[j] += src->buckets[i];
	}
	widen(dst, src);
}

static struct osp_set *copy_meta(const struct osp_set *s, unsigned r)
{
	struct osp_set *t = osp_set_new(r);
	if (!t)
		return NULL;
	for (size_t i = 0; i < s->nmeta; i++)
		if (osp_set_meta(t, s->meta[i].key, s->meta[i].value)) {
			osp_set_free(t);
			return NULL;
		}
	return t;
}

/* Copies s into a new set at resolution r, keeping the dims of each profile
 * not named in drop (NULL: all). */
static struct osp_set *transform(const struct osp_set *s, unsigned r, const char *const *drop,
                                 unsigned ndrop)
{
	struct osp_set *t = copy_meta(s, r);
	if (!t)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		struct osp_dim dims[OSP_MAX_DIMS];
		unsigned nd = 0;
		for (unsigned d = 0; d < p->ndims; d++) {
			int keep = 1;
			for (unsigned x = 0; x < ndrop; x++)
				keep &= strcmp(p->dims[d].name, drop[x]) != 0;
			if (keep)
				dims[nd++] = p->dims[d];
		}
		struct osp_profile *q = osp_set_get(t, p->layer, p->op, dims, nd);
		if (!q) {
			osp_set_free(t);
			return NULL;
		}
		q->unit = p->unit;
		add_rebinned(&q->hist, &p->hist);
	}
	return t;
}

struct osp_set *osp_set_coarsen(const struct osp_set *s, unsigned r)
{
	if (!osp_resolution_valid(r) || r > s->r || s->r % r) {
		errno = EINVAL;
		return NULL;
	}
	return transform(s, r, NULL, 0);
}

struct osp_set *osp_set_drop_dims(const struct osp_set *s, const char *const *names, unsigned n)
{
	return transform(s, s->r, names, n);
}
