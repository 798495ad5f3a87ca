/* f0's peaks and the resume check, on top of the analysis library
 * (osp_find_peaks, osp_emd): the DARC histogram is floor(log2 ns) buckets,
 * i.e. an osp_hist at resolution 1 whose bucket index is 1 + b. */
#include "rootcause/peaks.h"

#include <osprof/analysis.h>
#include <osprof/hist.h>

static int to_hist(const uint64_t *b, int n, struct osp_hist *h)
{
	if (osp_hist_init(h, 1))
		return -1;
	for (int i = 0; i < n && i < OSP_LOG_SPAN; i++)
		if (b[i]) {
			osp_hist_add_bucket(h, 1 + (unsigned)i, b[i]);
			if (h->min == UINT64_MAX)
				h->min = 1ull << i;
			h->max = (2ull << i) - 1;
		}
	return 0;
}

int rc_find_peaks(const uint64_t *b, int n, struct rc_peak *out, int max)
{
	struct osp_hist h;
	if (to_hist(b, n, &h))
		return 0;
	/* f0's histogram is short (--start-ops calls, 100 by default): a slow
	 * peak of 5 % is 5-15 calls, and preemption on a busy machine spreads
	 * it over runs of buckets each under the library's 20-call outlier
	 * floor. Here a run of 2 % of the calls (at least 3) is a peak. */
	struct osp_peak_opts o = {OSP_PEAK_VALLEY_RATIO, OSP_PEAK_VALLEY_Z, OSP_PEAK_MIN_COUNT};
	uint64_t floor = h.count / 50 > 3 ? h.count / 50 : 3;
	if (floor < o.min_count)
		o.min_count = (unsigned)floor;
	struct osp_peak all[64];
	unsigned na = osp_find_peaks(&h, &o, all, 64);
	if (na > 64)
		na = 64;
	/* Stray calls (under 0.5% of all, e.g. a few preempted calls) are
	 * noise, not peaks to explain. */
	int np = 0;
	for (unsigned i = 0; i < na && np < max; i++) {
		if (all[i].count * 200 < h.count || all[i].first < 1)
			continue;
		out[np++] =
		    (struct rc_peak){(int)all[i].first - 1, (int)all[i].last - 1, all[i].count};
	}
	osp_hist_free(&h);
	return np;
}

double rc_emd(const uint64_t *a, const uint64_t *b, int n)
{
	struct osp_hist ha, hb;
	if (to_hist(a, n, &ha))
		return -1;
	if (to_hist(b, n, &hb)) {
		osp_hist_free(&ha);
		return -1;
	}
	double d = osp_emd(&ha, &hb);
	osp_hist_free(&ha);
	osp_hist_free(&hb);
	return d;
}

int rc_auto_peak(const struct rc_peak *pk, int np)
{
	uint64_t total = 0;
	for (int i = 0; i < np; i++)
		total += pk[i].count;
	for (int i = np - 1; i > 0; i--)
		if (pk[i].count * 20 >= total)
			return i + 1;
	int best = 0;
	for (int i = 1; i < np; i++)
		if (!best || pk[i].count > pk[best].count)
			best = i;
	return np ? best + 1 : 0;
}
