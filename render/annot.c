/* Analysis annotations for the views: peaks, characteristic times and the
 * ranking of differences between two sets. Until the analysis library
 * (include/osprof/analysis.h) is merged these are small local versions; the
 * views only see the osp_vm_* types, so swapping the source is local here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "render/vmodel.h"

/* A valley splits two hills when it is at most this fraction of the lower
 * hill's top: a dip to half height is a distinct mode in practice. */
#define VALLEY_RATIO 0.5
/* Hills holding fewer operations than this share are noise, not peaks. */
#define MIN_PEAK_SHARE 0.01

unsigned osp_vm_peaks(const struct osp_hist *h, struct osp_vm_peak *out, unsigned max)
{
	int first = osp_hist_first(h), last = osp_hist_last(h);
	if (first < 0 || !max)
		return 0;
	unsigned n = (unsigned)(last - first + 1);
	unsigned *tops = calloc(n, sizeof(*tops)), *cuts = calloc(n, sizeof(*cuts));
	unsigned nt = 0;
	if (!tops || !cuts) {
		free(tops);
		free(cuts);
		return 0;
	}
	const uint64_t *c = h->buckets;
	/* Local maxima (the first bucket of a plateau) and the valley after each. */
	for (int i = first; i <= last; i++) {
		uint64_t left = i > first ? c[i - 1] : 0, right = i < last ? c[i + 1] : 0;
		if (c[i] && c[i] > left && c[i] >= right) {
			if (nt) {
				unsigned v = tops[nt - 1];
				for (unsigned k = tops[nt - 1]; k <= (unsigned)i; k++)
					if (c[k] < c[v])
						v = k;
				cuts[nt - 1] = v;
			}
			tops[nt++] = (unsigned)i;
		}
	}
	/* Merge hills whose valley is not deep enough, keeping the taller top. */
	for (int merged = 1; merged && nt > 1;) {
		merged = 0;
		for (unsigned j = 0; j + 1 < nt; j++) {
			uint64_t lower = c[tops[j]] < c[tops[j + 1]] ? c[tops[j]] : c[tops[j + 1]];
			if (c[cuts[j]] > 0 && (double)c[cuts[j]] > VALLEY_RATIO * (double)lower) {
				if (c[tops[j + 1]] > c[tops[j]])
					tops[j] = tops[j + 1];
				cuts[j] = cuts[j + 1];
				memmove(tops + j + 1, tops + j + 2, (nt - j - 2) * sizeof(*tops));
				memmove(cuts + j + 1, cuts + j + 2, (nt - j - 2) * sizeof(*cuts));
				nt--;
				merged = 1;
				break;
			}
		}
	}
	double lat_total = 0;
	for (int i = first; i <= last; i++)
		lat_total += (double)c[i] * osp_bucket_mid((unsigned)i, h->r);
	unsigned np = 0;
	for (unsigned j = 0; j < nt; j++) {
		struct osp_vm_peak pk = {0};
		pk.lo = j ? cuts[j - 1] + 1 : (unsigned)first;
		pk.hi = j + 1 < nt ? cuts[j] : (unsigned)last;
		pk.mode = tops[j];
		/* A zero valley belongs to no peak. */
		while (pk.lo < pk.mode && !c[pk.lo])
			pk.lo++;
		while (pk.hi > pk.mode && !c[pk.hi])
			pk.hi--;
		double lat = 0;
		for (unsigned k = pk.lo; k <= pk.hi; k++) {
			pk.count += c[k];
			lat += (double)c[k] * osp_bucket_mid(k, h->r);
		}
		if ((double)pk.count < MIN_PEAK_SHARE * (double)h->count)
			continue;
		pk.mean = pk.count ? lat / (double)pk.count : 0;
		pk.share_ops = h->count ? (double)pk.count / (double)h->count : 0;
		pk.share_lat = lat_total > 0 ? lat / lat_total : 0;
		if (np < max) {
			out[np++] = pk;
		} else {
			/* Full: replace the smallest peak kept so far. */
			unsigned s = 0;
			for (unsigned k = 1; k < np; k++)
				if (out[k].count < out[s].count)
					s = k;
			if (out[s].count < pk.count) {
				memmove(out + s, out + s + 1, (np - s - 1) * sizeof(*out));
				out[np - 1] = pk;
			}
		}
	}
	free(tops);
	free(cuts);
	return np;
}

unsigned osp_vm_notes(const struct osp_set *s, const struct osp_profile *p, struct osp_vm_note *out,
		      unsigned max)
{
	(void)s;
	(void)p;
	(void)out;
	(void)max;
	return 0;
}

/* Earth mover's distance between the normalised histograms, in octaves. */
static double emd(const struct osp_hist *a, const struct osp_hist *b)
{
	if (!a->count || !b->count || a->nbuckets != b->nbuckets)
		return 0;
	double carry = 0, work = 0;
	for (unsigned i = 0; i < a->nbuckets; i++) {
		carry += (double)a->buckets[i] / (double)a->count -
			 (double)b->buckets[i] / (double)b->count;
		work += fabs(carry);
	}
	return work / (double)a->r;
}

static double rel(uint64_t a, uint64_t b)
{
	if (a == b)
		return 0;
	return fabs((double)b - (double)a) / (double)(a > b ? a : b);
}

static int by_score(const void *x, const void *y)
{
	const struct osp_vm_diff *a = x, *b = y;
	return a->score < b->score ? 1 : a->score > b->score ? -1 : 0;
}

long osp_vm_diff(const struct osp_set *a, const struct osp_set *b, struct osp_vm_diff **out)
{
	size_t cap = a->n + b->n, n = 0;
	struct osp_vm_diff *d = calloc(cap ? cap : 1, sizeof(*d));
	if (!d)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		d[n++].a = a->profiles[i];
	for (size_t i = 0; i < n; i++)
		d[i].b = osp_vm_twin(b, d[i].a);
	for (size_t i = 0; i < b->n; i++)
		if (!osp_vm_twin(a, b->profiles[i]))
			d[n++].b = b->profiles[i];
	for (size_t i = 0; i < n; i++) {
		const struct osp_hist *ha = d[i].a ? &d[i].a->hist : NULL;
		const struct osp_hist *hb = d[i].b ? &d[i].b->hist : NULL;
		if (!ha || !hb) {
			d[i].score = 1.0 + 0.0; /* an op seen on one side only */
			snprintf(d[i].reason, sizeof(d[i].reason), "only in %s", ha ? "A" : "B");
			d[i].verdict = ha ? "only_in_a" : "only_in_b";
			continue;
		}
		double e = emd(ha, hb), t = rel(ha->total, hb->total), c = rel(ha->count, hb->count);
		d[i].score = e + t + 0.5 * c;
		d[i].verdict = d[i].score >= 0.25 ? "differs" : "similar";
		snprintf(d[i].reason, sizeof(d[i].reason),
			 "EMD %.2f octaves, total %+.0f%%, count %+.0f%%", e,
			 ha->total ? 100.0 * ((double)hb->total - (double)ha->total) /
					     (double)ha->total
				   : 0.0,
			 ha->count ? 100.0 * ((double)hb->count - (double)ha->count) /
					     (double)ha->count
				   : 0.0);
	}
	qsort(d, n, sizeof(*d), by_score);
	*out = d;
	return (long)n;
}
