/* Helpers shared by the analysis unit tests: histograms from bucket counts. */
#ifndef OSPROF_TEST_ANALYSIS_UTIL_H
#define OSPROF_TEST_ANALYSIS_UTIL_H

#include <osprof/analysis.h>

/* Fills h (r = 1) with counts[i] in log2 bucket first_bin + i, i.e. values in
 * [2^(first_bin+i), 2^(first_bin+i+1)); total = sum of count * bucket mid. */
static inline void hist_from_bins(struct osp_hist *h, unsigned r, unsigned first_bin,
                                  const uint64_t *counts, unsigned n)
{
	osp_hist_init(h, r);
	double total = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned idx = 1 + first_bin + i;
		osp_hist_add_bucket(h, idx, counts[i]);
		total += (double)counts[i] * osp_bucket_mid(idx, r);
		if (counts[i] && osp_bucket_lo(idx, r) < h->min)
			h->min = osp_bucket_lo(idx, r);
		if (counts[i] && osp_bucket_hi(idx, r) > h->max)
			h->max = osp_bucket_hi(idx, r);
	}
	h->total = (uint64_t)(total + 0.5);
}

#endif
