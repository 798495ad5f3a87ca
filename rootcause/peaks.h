/* Peaks of f0's log2 histogram and the EMD used to check a resumed search,
 * through the analysis library (include/osprof/analysis.h). */
#ifndef OSPROF_RC_PEAKS_H
#define OSPROF_RC_PEAKS_H

#include <stdint.h>

#define RC_MAX_PEAKS 16

struct rc_peak {
	int lo, hi; /* bucket range, floor(log2 ns) */
	uint64_t count;
};

/* Peaks in buckets[0..n) (osp_find_peaks), without stray peaks holding
 * under 0.5% of the calls. Returns how many. */
int rc_find_peaks(const uint64_t *buckets, int n, struct rc_peak *out, int max);
/* The peak `--peak slowest` means (1-based; 0 if np == 0): the slowest
 * peak other than the fastest that holds at least 5% of the calls; failing
 * that, the most populous peak after the fastest (a slow peak split in two
 * by noise); failing that, the only peak. A few preempted calls beyond the
 * real slow peak are not what one asks about. */
int rc_auto_peak(const struct rc_peak *pk, int np);
/* Earth Mover's Distance between two normalised histograms, in buckets
 * (osp_emd); -1 on ENOMEM. */
double rc_emd(const uint64_t *a, const uint64_t *b, int n);

#endif
