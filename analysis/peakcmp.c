/* Phase 2 of the selection (seed 001 §3.2): do the significant peaks of two
 * histograms differ in number or position?
 *
 * Counting peaks directly is fragile (a 5 % peak may read 4.9 % in a repeat),
 * so a significant peak of one side "is missing" on the other only when the
 * other side's mass in the same bucket range is below peak_vanish times the
 * peak's share; it "moved" when the significant peaks overlapping it on the
 * other side all have a mean more than a factor 2 away. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>

static double share_in(const struct osp_hist *h, const double *est, unsigned first, unsigned last,
                       int lat)
{
	double s = 0;
	for (unsigned i = first; i <= last && i < h->nbuckets; i++)
		s += lat ? est[i] : (double)h->buckets[i];
	double tot = lat ? (double)h->total : (double)h->count;
	return tot > 0 ? s / tot : 0;
}

static int significant(const struct osp_peak *p, double min)
{
	return p->share_ops >= min || p->share_lat >= min;
}

static void range_text(const struct osp_peak *p, char *buf, size_t len)
{
	char lo[32], hi[32];
	osp_format_ns(p->lo_ns, lo, sizeof(lo));
	osp_format_ns(p->hi_ns, hi, sizeof(hi));
	snprintf(buf, len, "%s-%s", lo, hi);
}

static void append(char *reason, size_t len, const char *fmt, const char *a, const char *b)
{
	size_t used = strlen(reason);
	if (used + 3 >= len)
		return;
	if (used)
		used += (size_t)snprintf(reason + used, len - used, ", ");
	if (used < len)
		snprintf(reason + used, len - used, fmt, a, b);
}

/* Significant peaks of `from` missing in `to` (reported with fmt) and, if
 * moves, those that moved. Returns 1 if any. */
static int missing(const struct osp_hist *from, const struct osp_peak *pf, unsigned nf,
                   const struct osp_hist *to, const double *est_to, const struct osp_peak *pt,
                   unsigned nt, const struct osp_cmp_opts *o, const char *fmt, int moves,
                   char *reason, size_t len)
{
	int found = 0;
	(void)from;
	for (unsigned k = 0; k < nf; k++) {
		const struct osp_peak *p = &pf[k];
		if (!significant(p, o->peak_min_share))
			continue;
		double so = share_in(to, est_to, p->first, p->last, 0);
		double sl = share_in(to, est_to, p->first, p->last, 1);
		char txt[80];
		if (so < o->peak_vanish * p->share_ops && sl < o->peak_vanish * p->share_lat) {
			range_text(p, txt, sizeof(txt));
			append(reason, len, fmt, txt, "");
			found = 1;
			continue;
		}
		/* Moved: every significant overlapping peak is far away. */
		int overlap = 0, near = 0;
		for (unsigned j = 0; j < nt; j++) {
			const struct osp_peak *q = &pt[j];
			if (!significant(q, o->peak_min_share) || q->last < p->first ||
			    q->first > p->last)
				continue;
			overlap = 1;
			if (p->mean_ns > 0 && q->mean_ns > 0 &&
			    fabs(log2(q->mean_ns / p->mean_ns)) <= 1)
				near = 1;
		}
		if (moves && overlap && !near) {
			char a[32], b[32];
			double best = -1;
			for (unsigned j = 0; j < nt; j++)
				if (significant(&pt[j], o->peak_min_share) &&
				    !(pt[j].last < p->first || pt[j].first > p->last) &&
				    pt[j].share_ops > best)
					best = pt[j].share_ops;
			for (unsigned j = 0; j < nt; j++)
				if (pt[j].share_ops == best) {
					osp_format_ns((uint64_t)p->mean_ns, a, sizeof(a));
					osp_format_ns((uint64_t)pt[j].mean_ns, b, sizeof(b));
					break;
				}
			append(reason, len, "peak moved from %s to %s", a, b);
			found = 1;
		}
	}
	return found;
}

void osp_compare_peaks(const struct osp_hist *a, const struct osp_hist *b,
                       const struct osp_cmp_opts *o, struct osp_peak_cmp *out)
{
	struct osp_cmp_opts def;
	if (!o) {
		osp_cmp_opts_default(&def);
		o = &def;
	}
	out->differs = 0;
	out->reason[0] = '\0';
	if (!a->count || !b->count || a->r != b->r)
		return;
	unsigned nb = a->nbuckets, max = nb / 2 + 2;
	struct osp_peak *pa = malloc(max * sizeof(*pa)), *pb = malloc(max * sizeof(*pb));
	double *ea = malloc(nb * sizeof(double)), *eb = malloc(nb * sizeof(double));
	if (pa && pb && ea && eb) {
		unsigned na = osp_find_peaks(a, &o->peaks, pa, max);
		unsigned nbk = osp_find_peaks(b, &o->peaks, pb, max);
		osp_bucket_estimates(a, ea);
		osp_bucket_estimates(b, eb);
		/* "peak ..." moved reasons are reported once, from a's side. */
		out->differs |= missing(a, pa, na, b, eb, pb, nbk, o, "peak at %s gone%s", 1,
		                        out->reason, sizeof(out->reason));
		out->differs |= missing(b, pb, nbk, a, ea, pa, na, o, "new peak at %s%s", 0,
		                        out->reason, sizeof(out->reason));
	}
	free(pa);
	free(pb);
	free(ea);
	free(eb);
}
