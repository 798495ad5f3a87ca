/* Log-bucket latency (or value) histograms: the unit of every osprof profile.
 *
 * Bucket layout for resolution r (1, 2, 4, 8 or 16):
 *   index 0                 value 0
 *   index 1 + b             values v with floor(r * log2(v)) == b, 0 <= b < 63r
 *   index 63r + 1 (last)    overflow: v >= 2^63 (e.g. a negative delta cast
 *                           to unsigned); never clamped silently, always shown.
 * Boundaries are exact integers: bucket b holds [ceil(2^(b/r)), ceil(2^((b+1)/r))).
 */
#ifndef OSPROF_HIST_H
#define OSPROF_HIST_H

#include <stddef.h>
#include <stdint.h>

#define OSP_MAX_RESOLUTION 16
#define OSP_LOG_SPAN       63 /* octaves covered below the overflow bucket */

/* Number of buckets (zero + log buckets + overflow) at resolution r. */
static inline unsigned osp_nbuckets(unsigned r)
{
	return OSP_LOG_SPAN * r + 2;
}

/* Thresholds T[k] = ceil(2^(63 + k/16)), k = 0..15: the smallest normalised
 * mantissa that reaches sub-octave k/16. Exact; see scripts/gen_log_table.py. */
extern const uint64_t osp_log_thresholds[OSP_MAX_RESOLUTION];

/* 1 if r is a supported resolution. */
static inline int osp_resolution_valid(unsigned r)
{
	return r == 1 || r == 2 || r == 4 || r == 8 || r == 16;
}

/* Bucket index of value v at resolution r (hot path: no division, no float). */
static inline unsigned osp_bucket_index(uint64_t v, unsigned r)
{
	if (v == 0)
		return 0;
	if (v >> 63)
		return OSP_LOG_SPAN * r + 1;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	uint64_t mant = v << (63u - msb);
	unsigned step = OSP_MAX_RESOLUTION / r, k = 0;
	/* Binary search for the largest k with mant >= T[k*step]. */
	for (unsigned half = r / 2; half; half /= 2)
		if (mant >= osp_log_thresholds[(k + half) * step])
			k += half;
	return 1 + msb * r + k;
}

/* Smallest value in bucket idx (0 for the zero bucket, 2^63 for overflow). */
uint64_t osp_bucket_lo(unsigned idx, unsigned r);
/* Largest value in bucket idx (inclusive; UINT64_MAX for overflow). */
uint64_t osp_bucket_hi(unsigned idx, unsigned r);
/* Geometric middle of a bucket, used for plots and estimates. */
double osp_bucket_mid(unsigned idx, unsigned r);

struct osp_hist {
	unsigned r;        /* resolution */
	unsigned nbuckets; /* osp_nbuckets(r) */
	uint64_t count;    /* == sum of buckets (osp_hist_check) */
	uint64_t total;    /* sum of values (ns or bytes) */
	uint64_t min, max; /* min is UINT64_MAX while empty */
	uint64_t *buckets; /* nbuckets counters */
};

/* 0 on success, -EINVAL for a bad r, -ENOMEM. */
int osp_hist_init(struct osp_hist *h, unsigned r);
void osp_hist_free(struct osp_hist *h);
void osp_hist_reset(struct osp_hist *h);

static inline void osp_hist_add(struct osp_hist *h, uint64_t v)
{
	h->buckets[osp_bucket_index(v, h->r)]++;
	h->count++;
	h->total += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Adds n samples to bucket idx and to count (readers of pre-bucketed data,
 * e.g. BPF maps); the caller adds their sum to total and widens min/max. */
void osp_hist_add_bucket(struct osp_hist *h, unsigned idx, uint64_t n);

/* dst += src. -EINVAL if resolutions differ. */
int osp_hist_merge(struct osp_hist *dst, const struct osp_hist *src);
/* 0 if sum(buckets) == count, else -EINVAL. */
int osp_hist_check(const struct osp_hist *h);
/* Value at quantile q in [0,1], interpolated inside its bucket. */
uint64_t osp_hist_quantile(const struct osp_hist *h, double q);
/* Index of first/last non-empty bucket, or -1 when empty. */
int osp_hist_first(const struct osp_hist *h);
int osp_hist_last(const struct osp_hist *h);

#endif
