/* Peaks of f0's log2 histogram and the EMD used to check a resumed search.
 * Minimal stand-ins until the analysis branch's osp peak detection lands:
 * callers only use these two functions, so the swap is local. */
#ifndef OSPROF_RC_PEAKS_H
#define OSPROF_RC_PEAKS_H

#include <stdint.h>

#define RC_MAX_PEAKS 16

struct rc_peak {
	int lo, hi; /* bucket range, floor(log2 ns) */
	uint64_t count;
};

/* Peaks in buckets[0..n): maximal runs split at valleys, comparing counts on
 * a log scale as a human reading Fig. 3.4 would. Returns how many. */
int rc_find_peaks(const uint64_t *buckets, int n, struct rc_peak *out, int max);
/* Earth Mover's Distance between two normalised histograms, in buckets. */
double rc_emd(const uint64_t *a, const uint64_t *b, int n);

#endif
