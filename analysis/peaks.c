/* Peak detection: split a histogram at empty buckets and at valleys that are
 * deep on a log scale and not explained by counting noise (docs/analysis.md).
 *
 * Every run of non-empty buckets is first cut at each local minimum into
 * elementary hills; then the shallowest valley is repeatedly removed (its two
 * hills merged) while it fails the depth test. Merging shallowest-first makes
 * the result independent of scan direction, as a human reading the log-scale
 * plot would do. */
#include <math.h>
#include <stdlib.h>
#include <osprof/analysis.h>

struct hill {
	unsigned first, last, top; /* top: bucket of max count */
};

static int valley_deep(const struct osp_peak_opts *o, uint64_t top, uint64_t v)
{
	double t = (double)top, c = (double)v;
	return t >= o->valley_ratio * c && t - c >= o->valley_z * sqrt(t + c);
}

/* The lower of two adjacent hills' tops. */
static uint64_t lower_top(const uint64_t *b, const struct hill *l, const struct hill *r)
{
	uint64_t tl = b[l->top], tr = b[r->top];
	return tl < tr ? tl : tr;
}

/* The lowest count between two adjacent hills' tops. */
static uint64_t valley(const uint64_t *b, const struct hill *l, const struct hill *r)
{
	uint64_t v = b[l->top];
	for (unsigned i = l->top; i <= r->top; i++)
		if (b[i] < v)
			v = b[i];
	return v;
}

static unsigned split_run(const uint64_t *b, unsigned first, unsigned last,
                          const struct osp_peak_opts *o, struct hill *h)
{
	unsigned n = 0;
	h[0] = (struct hill){first, first, first};
	/* Cut at every strict local minimum; plateaus stay in the left hill
	 * until the counts rise again. */
	for (unsigned i = first + 1; i <= last; i++) {
		struct hill *c = &h[n];
		/* i starts a new hill when counts rise after it and, looking
		 * left across a plateau of equal counts, they fell into it. */
		int minimum = 0;
		if (i < last && b[i] < b[i + 1]) {
			for (unsigned j = i; j > c->first; j--) {
				if (b[j - 1] != b[i]) {
					minimum = b[j - 1] > b[i];
					break;
				}
			}
		}
		if (minimum) {
			n++;
			h[n] = (struct hill){i, i, i};
			continue;
		}
		c->last = i;
		if (b[i] > b[c->top])
			c->top = i;
	}
	n++;
	/* Merge the shallowest failing valley until all remaining are deep. */
	while (n > 1) {
		unsigned best = n;
		double best_ratio = 0;
		for (unsigned k = 0; k + 1 < n; k++) {
			uint64_t v = valley(b, &h[k], &h[k + 1]),
			         t = lower_top(b, &h[k], &h[k + 1]);
			if (valley_deep(o, t, v))
				continue;
			double ratio = (double)t / ((double)v + 1.0);
			if (best == n || ratio < best_ratio) {
				best = k;
				best_ratio = ratio;
			}
		}
		if (best == n)
			break;
		struct hill *l = &h[best], *r = &h[best + 1];
		l->last = r->last;
		if (b[r->top] > b[l->top])
			l->top = r->top;
		for (unsigned k = best + 1; k + 1 < n; k++)
			h[k] = h[k + 1];
		n--;
	}
	return n;
}

void osp_bucket_estimates(const struct osp_hist *h, double *est)
{
	double sum = 0;
	for (unsigned i = 0; i < h->nbuckets; i++) {
		est[i] = h->buckets[i] ? (double)h->buckets[i] * osp_bucket_mid(i, h->r) : 0;
		sum += est[i];
	}
	/* The exact total is known: scale the estimates onto it, so peak
	 * latencies add up to the op's total latency. */
	if (sum > 0 && h->total > 0) {
		double k = (double)h->total / sum;
		for (unsigned i = 0; i < h->nbuckets; i++)
			est[i] *= k;
	}
}

static void fill_peak(const struct osp_hist *h, const double *est, const struct hill *hl,
                      struct osp_peak *p)
{
	p->first = hl->first;
	p->last = hl->last;
	p->mode = hl->top;
	p->count = 0;
	p->lat = 0;
	for (unsigned i = hl->first; i <= hl->last; i++) {
		p->count += h->buckets[i];
		p->lat += est[i];
	}
	p->lo_ns = osp_bucket_lo(hl->first, h->r);
	p->hi_ns = osp_bucket_hi(hl->last, h->r);
	if (h->count && h->min > p->lo_ns && h->min <= p->hi_ns)
		p->lo_ns = h->min;
	if (h->count && h->max < p->hi_ns && h->max >= p->lo_ns)
		p->hi_ns = h->max;
	p->mean_ns = p->count ? p->lat / (double)p->count : 0;
	if (p->mean_ns < (double)p->lo_ns)
		p->mean_ns = (double)p->lo_ns;
	if (p->mean_ns > (double)p->hi_ns)
		p->mean_ns = (double)p->hi_ns;
	p->share_ops = h->count ? (double)p->count / (double)h->count : 0;
	p->share_lat = h->total ? p->lat / (double)h->total : 0;
}

static uint64_t mass(const uint64_t *b, const struct hill *hl)
{
	uint64_t m = 0;
	for (unsigned i = hl->first; i <= hl->last; i++)
		m += b[i];
	return m;
}

/* Outlier test of a range of buckets (docs/analysis.md, "Peak
 * stability"): fewer calls than min_count. */
struct small_test {
	const uint64_t *b;
	double min_count;
};

static int small(const struct small_test *t, unsigned first, unsigned last)
{
	double m = 0;
	for (unsigned i = first; i <= last; i++)
		m += (double)t->b[i];
	return m < t->min_count;
}

/* Inside one run: a small hill joins its larger neighbour (smallest
 * first), so a deep but tiny dip does not make a peak. */
static unsigned absorb_small(const struct small_test *t, struct hill *h, unsigned n)
{
	const uint64_t *b = t->b;
	while (n > 1) {
		unsigned k = n;
		uint64_t km = 0;
		for (unsigned i = 0; i < n; i++) {
			uint64_t m = mass(b, &h[i]);
			if (small(t, h[i].first, h[i].last) && (k == n || m < km)) {
				k = i;
				km = m;
			}
		}
		if (k == n)
			break;
		unsigned into = k == 0                                     ? 1
		                : k + 1 == n                               ? k - 1
		                : mass(b, &h[k - 1]) >= mass(b, &h[k + 1]) ? k - 1
		                                                           : k + 1;
		struct hill *l = &h[into < k ? into : k], *r = &h[into < k ? k : into];
		l->last = r->last;
		if (b[r->top] > b[l->top])
			l->top = r->top;
		for (unsigned i = (into < k ? k : into); i + 1 < n; i++)
			h[i] = h[i + 1];
		n--;
	}
	return n;
}

unsigned osp_find_peaks(const struct osp_hist *h, const struct osp_peak_opts *opts,
                        struct osp_peak *out, unsigned max)
{
	struct osp_peak_opts def = {OSP_PEAK_VALLEY_RATIO, OSP_PEAK_VALLEY_Z, OSP_PEAK_MIN_COUNT};
	const struct osp_peak_opts *o = opts ? opts : &def;
	const uint64_t *b = h->buckets;
	unsigned nb = h->nbuckets, npk = 0;
	/* r <= 4 fits on the stack; finer resolutions allocate. */
	struct hill stack_h[130], *hills = stack_h;
	double stack_e[256], *est = stack_e;

	if (!h->count)
		return 0;
	if (nb > 256) {
		est = malloc(nb * sizeof(*est));
		hills = malloc((nb / 2 + 2) * sizeof(*hills));
		if (!est || !hills) {
			free(est);
			free(hills);
			return 0;
		}
	}
	osp_bucket_estimates(h, est);
	struct small_test st = {b, (double)o->min_count};
	/* The largest run is kept whatever its mass: every profile has a peak. */
	uint64_t big = 0;
	for (unsigned i = 0, j; i < nb; i = j + 1) {
		uint64_t m = 0;
		for (j = i; j < nb && b[j]; j++)
			m += b[j];
		if (m > big)
			big = m;
	}
	for (unsigned i = 0; i < nb;) {
		if (!b[i]) {
			i++;
			continue;
		}
		unsigned j = i;
		uint64_t m = 0;
		while (j + 1 < nb && b[j + 1])
			j++;
		for (unsigned k = i; k <= j; k++)
			m += b[k];
		/* A small run between empty buckets is outliers. */
		if (small(&st, i, j) && m < big) {
			i = j + 1;
			continue;
		}
		unsigned n = absorb_small(&st, hills, split_run(b, i, j, o, hills));
		for (unsigned k = 0; k < n; k++, npk++)
			if (npk < max)
				fill_peak(h, est, &hills[k], &out[npk]);
		i = j + 1;
	}
	if (est != stack_e) {
		free(est);
		free(hills);
	}
	return npk;
}
