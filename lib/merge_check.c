/* Whether two profile sets can be added without lying: a slice must still
 * sum to what its profile's total says it holds, and slice i must mean the
 * same stretch of time in every file that contributed to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <osprof/profile.h>

/* Slice starts closer than this share of a slice count as one start: hosts
 * started by one orchestrator differ by milliseconds, never exactly. */
#define SLICE_START_SLACK 0.01

int osp_set_merge_check(const struct osp_set *dst, const struct osp_set *src, char *err,
                        size_t errlen)
{
	if (dst->r != src->r) {
		snprintf(err, errlen, "resolutions differ (r=%u and r=%u)", dst->r, src->r);
		return -EINVAL;
	}
	if (!dst->slice_ns != !src->slice_ns) {
		snprintf(err, errlen,
		         "one set is sliced (-i) and the other is not: its slices would sum to "
		         "less than the merged totals");
		return -EINVAL;
	}
	if (!dst->slice_ns)
		return 0;
	if (dst->slice_ns != src->slice_ns) {
		snprintf(err, errlen, "slice lengths differ (%llu ns and %llu ns)",
		         (unsigned long long)dst->slice_ns, (unsigned long long)src->slice_ns);
		return -EINVAL;
	}
	const char *a = osp_get_meta(dst, "start_wall_ns"), *b = osp_get_meta(src, "start_wall_ns");
	if (!a || !b) {
		snprintf(err, errlen,
		         "sliced set without start_wall_ns: slice i of one set "
		         "cannot be matched to slice i of the other");
		return -EINVAL;
	}
	unsigned long long sa = strtoull(a, NULL, 10), sb = strtoull(b, NULL, 10);
	unsigned long long d = sa > sb ? sa - sb : sb - sa;
	if ((double)d > SLICE_START_SLACK * (double)dst->slice_ns) {
		snprintf(err, errlen,
		         "slices start at different times (%.3f s apart, slices of %.3f s): "
		         "slice i would add different moments",
		         (double)d / 1e9, (double)dst->slice_ns / 1e9);
		return -EINVAL;
	}
	return 0;
}

void osp_set_drop_slices(struct osp_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct osp_profile *p = s->profiles[i];
		for (size_t j = 0; j < p->nslices; j++)
			free(p->slices[j].buckets);
		free(p->slices);
		p->slices = NULL;
		p->nslices = 0;
	}
	s->slice_ns = 0;
}
