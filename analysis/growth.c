/* A change of an op's total latency driven by one peak's population (issue
 * 11: a CPU hog raises user:read's preemption peak from 328 to 603 calls, +88 %
 * total latency, while the shape metric barely moves: 99.8 % of the calls
 * are unchanged). The peaks of both sides are tried as ranges; the range
 * whose latency change makes most of the total's, with a population change by
 * a factor and beyond chance, is the one; it must hold a minority of the
 * calls on both sides. Thresholds: analysis.h,
 * docs/analysis.md. */
#include <math.h>
#include <stdlib.h>
#include <osprof/analysis.h>

static void range_sums(const struct osp_hist *h, const double *est, unsigned first, unsigned last,
                       uint64_t *n, double *lat)
{
	*n = 0;
	*lat = 0;
	for (unsigned i = first; i <= last && i < h->nbuckets; i++) {
		*n += h->buckets[i];
		*lat += est[i];
	}
}

/* Tries the peaks of `from` as ranges; keeps the best in *g. */
static void try_peaks(const struct osp_hist *from, const struct osp_hist *a,
                      const struct osp_hist *b, const double *ea, const double *eb,
                      const struct osp_cmp_opts *o, struct osp_peak *pk, unsigned max,
                      struct osp_peak_growth *g, int *found)
{
	double dt = (double)b->total - (double)a->total;
	unsigned n = osp_find_peaks(from, &o->peaks, pk, max);
	if (n > max)
		n = max;
	for (unsigned k = 0; k < n; k++) {
		struct osp_peak_growth c = {pk[k].first, pk[k].last, 0, 0, 0, 0, 0};
		range_sums(a, ea, c.first, c.last, &c.ca, &c.lat_a);
		range_sums(b, eb, c.first, c.last, &c.cb, &c.lat_b);
		c.of_change = (c.lat_b - c.lat_a) / dt;
		double fa = (double)c.ca / (double)a->count, fb = (double)c.cb / (double)b->count;
		double lo = fmin(fa, fb), hi = fmax(fa, fb);
		/* A minority peak only: when the majority peak changes, the
		 * whole op shifted (this VM runs an op 2x slower in some runs),
		 * which the shape metric judges. */
		if (fa >= 0.5 || fb >= 0.5 || c.of_change < OSP_DIFF_GROWTH_SHARE ||
		    (lo > 0 && hi / lo < OSP_DIFF_GROWTH_FACTOR) ||
		    osp_prop_z((double)c.ca, (double)a->count, (double)c.cb, (double)b->count) <
		        OSP_DIFF_Z)
			continue;
		if (!*found || c.of_change > g->of_change) {
			*g = c;
			*found = 1;
		}
	}
}

int osp_peak_growth(const struct osp_hist *a, const struct osp_hist *b,
                    const struct osp_cmp_opts *o, struct osp_peak_growth *g)
{
	struct osp_cmp_opts def;
	o = osp_cmp_opts_or(o, &def);
	double ta = (double)a->total, tb = (double)b->total;
	if (!a->count || !b->count || a->r != b->r ||
	    fabs(tb - ta) < OSP_DIFF_GROWTH_TOTAL * fmax(ta, tb))
		return 0;
	unsigned nb = a->nbuckets, max = nb / 2 + 2;
	double *ea = malloc(nb * sizeof(*ea)), *eb = malloc(nb * sizeof(*eb));
	struct osp_peak *pk = malloc(max * sizeof(*pk));
	int found = 0;
	if (ea && eb && pk) {
		osp_bucket_estimates(a, ea);
		osp_bucket_estimates(b, eb);
		try_peaks(a, a, b, ea, eb, o, pk, max, g, &found);
		try_peaks(b, a, b, ea, eb, o, pk, max, g, &found);
	}
	free(ea);
	free(eb);
	free(pk);
	return found;
}
