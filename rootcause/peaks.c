/* Peak detection on a log scale and 1-D EMD for osprof rootcause. */
#include "rootcause/peaks.h"

#include <math.h>

static int find(const uint64_t *b, int n, struct rc_peak *out, int max)
{
	int np = 0, i = 0;
	while (i < n && np < max) {
		while (i < n && !b[i])
			i++;
		if (i >= n)
			break;
		int lo = i, j = i;
		while (j + 1 < n && b[j + 1])
			j++;
		/* Split the run [lo, j] at valleys at least 10x (one decade) lower
		 * than the highest bucket on each side. */
		int start = lo;
		for (int k = lo + 1; k < j && np < max - 1; k++) {
			double v = log10((double)b[k]);
			double left = 0, right = 0;
			for (int x = start; x < k; x++)
				left = fmax(left, log10((double)b[x]));
			for (int x = k + 1; x <= j; x++)
				right = fmax(right, log10((double)b[x]));
			if (b[k] <= b[k - 1] && b[k] <= b[k + 1] && left - v >= 1.0 &&
			    right - v >= 1.0) {
				uint64_t c = 0;
				for (int x = start; x < k; x++)
					c += b[x];
				out[np++] = (struct rc_peak){start, k - 1, c};
				start = k + 1;
				c = 0;
				(void)c;
			}
		}
		uint64_t c = 0;
		for (int x = start; x <= j; x++)
			c += b[x];
		out[np++] = (struct rc_peak){start, j, c};
		i = j + 1;
	}
	return np;
}

int rc_find_peaks(const uint64_t *b, int n, struct rc_peak *out, int max)
{
	/* Stray calls (under 0.5% of all, e.g. a few preempted calls) are
	 * noise, not peaks to explain. */
	struct rc_peak all[64];
	int na = find(b, n, all, 64), np = 0;
	uint64_t total = 0;
	for (int i = 0; i < na; i++)
		total += all[i].count;
	for (int i = 0; i < na && np < max; i++)
		if (all[i].count * 200 >= total)
			out[np++] = all[i];
	return np;
}

double rc_emd(const uint64_t *a, const uint64_t *b, int n)
{
	double ta = 0, tb = 0;
	for (int i = 0; i < n; i++) {
		ta += (double)a[i];
		tb += (double)b[i];
	}
	if (ta == 0 || tb == 0)
		return ta == tb ? 0 : INFINITY;
	double ca = 0, cb = 0, d = 0;
	for (int i = 0; i < n; i++) {
		ca += (double)a[i] / ta;
		cb += (double)b[i] / tb;
		d += fabs(ca - cb);
	}
	return d;
}
