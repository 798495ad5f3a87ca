/* Log-bucket histograms (layout in include/osprof/hist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/hist.h>

uint64_t osp_bucket_lo(unsigned idx, unsigned r)
{
	unsigned last = OSP_LOG_SPAN * r + 1;
	if (idx == 0)
		return 0;
	if (idx >= last)
		return 1ull << 63;
	unsigned b = idx - 1, msb = b / r, k = b % r;
	uint64_t t = osp_log_thresholds[k * (OSP_MAX_RESOLUTION / r)];
	unsigned shift = 63 - msb;
	/* ceil(t / 2^shift): the smallest v with v << shift >= t. */
	uint64_t v = t >> shift;
	if (shift && (t & ((1ull << shift) - 1)))
		v++;
	return v;
}

uint64_t osp_bucket_hi(unsigned idx, unsigned r)
{
	if (idx == 0)
		return 0;
	if (idx >= OSP_LOG_SPAN * r + 1)
		return UINT64_MAX;
	return osp_bucket_lo(idx + 1, r) - 1;
}

double osp_bucket_mid(unsigned idx, unsigned r)
{
	if (idx == 0)
		return 0;
	double lo = (double)osp_bucket_lo(idx, r);
	double hi = (double)osp_bucket_hi(idx, r);
	if (hi < lo) /* sub-octave with no integer in it */
		return lo;
	return sqrt(lo * (hi + 1));
}

int osp_hist_init(struct osp_hist *h, unsigned r)
{
	memset(h, 0, sizeof(*h));
	if (!osp_resolution_valid(r))
		return -EINVAL;
	h->r = r;
	h->nbuckets = osp_nbuckets(r);
	h->min = UINT64_MAX;
	h->buckets = calloc(h->nbuckets, sizeof(*h->buckets));
	return h->buckets ? 0 : -ENOMEM;
}

void osp_hist_free(struct osp_hist *h)
{
	free(h->buckets);
	h->buckets = NULL;
}

void osp_hist_reset(struct osp_hist *h)
{
	memset(h->buckets, 0, h->nbuckets * sizeof(*h->buckets));
	h->count = h->total = h->max = 0;
	h->min = UINT64_MAX;
}

void osp_hist_add_bucket(struct osp_hist *h, unsigned idx, uint64_t n)
{
	if (idx >= h->nbuckets || !n)
		return;
	h->buckets[idx] += n;
	h->count += n;
}

int osp_hist_merge(struct osp_hist *dst, const struct osp_hist *src)
{
	if (dst->r != src->r)
		return -EINVAL;
	/* Counts are checked before anything changes: a wrapped counter would
	 * be a plausible-looking wrong number, so the sum is refused instead.
	 * The total (a sum of values) saturates: only values in the overflow
	 * bucket (>= 2^63) can reach the limit, and their total is a bound. */
	uint64_t sum;
	for (unsigned i = 0; i < dst->nbuckets; i++)
		if (__builtin_add_overflow(dst->buckets[i], src->buckets[i], &sum))
			return -EOVERFLOW;
	if (__builtin_add_overflow(dst->count, src->count, &sum))
		return -EOVERFLOW;
	for (unsigned i = 0; i < dst->nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	if (__builtin_add_overflow(dst->total, src->total, &dst->total))
		dst->total = UINT64_MAX;
	if (src->count) {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	return 0;
}

int osp_hist_check(const struct osp_hist *h)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (__builtin_add_overflow(sum, h->buckets[i], &sum))
			return -EOVERFLOW; /* a wrapped sum could match count by chance */
	return sum == h->count ? 0 : -EINVAL;
}

uint64_t osp_hist_quantile(const struct osp_hist *h, double q)
{
	if (!h->count)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	double want = q * (double)h->count, seen = 0;
	for (unsigned i = 0; i < h->nbuckets; i++) {
		uint64_t n = h->buckets[i];
		if (!n)
			continue;
		if (seen + (double)n >= want) {
			double lo = (double)osp_bucket_lo(i, h->r);
			double hi = (double)osp_bucket_hi(i, h->r);
			if (hi < lo)
				hi = lo;
			double v = lo + (hi - lo) * ((want - seen) / (double)n);
			/* Never report beyond what was observed. */
			if (h->min != UINT64_MAX && v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return (uint64_t)v;
		}
		seen += (double)n;
	}
	return h->max;
}

int osp_hist_first(const struct osp_hist *h)
{
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (h->buckets[i])
			return (int)i;
	return -1;
}

int osp_hist_last(const struct osp_hist *h)
{
	for (unsigned i = h->nbuckets; i-- > 0;)
		if (h->buckets[i])
			return (int)i;
	return -1;
}
