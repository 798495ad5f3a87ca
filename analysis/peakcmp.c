/* Phase 2 of the selection (seed 001 §3.2): do the significant peaks of two
 * histograms differ in number or position?
 *
 * Significant peaks of the two sides are paired by mean latency (closest
 * first, at most 1.5 octaves apart). Counting peaks directly is fragile (a 5 %
 * peak may read 4.9 % in a repeat, two peaks may merge), so an unpaired peak
 * only counts as new or gone when the other side holds less than
 * peak_vanish of its share in the same buckets. One gone and one new peak
 * read as "peak moved". Peaks are judged by ops (see significant()), and a
 * new or gone peak must also be a significant change of population
 * (osp_prop_z >= OSP_DIFF_Z): small profiles do not flag on one call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>

/* Peaks whose means are this many octaves apart or less are the same peak;
 * beyond, the phase-3 metric still sees smaller shifts (EMD: 1.2 octaves). */
#define OSP_PEAK_MATCH_OCTAVES 1.5

/* Share of h's ops in buckets first..last. */
static double share_in(const struct osp_hist *h, unsigned first, unsigned last)
{
	double s = 0;
	for (unsigned i = first; i <= last && i < h->nbuckets; i++)
		s += (double)h->buckets[i];
	return h->count ? s / (double)h->count : 0;
}

/* A peak counts when it holds min of the ops. Not latency: a handful of
 * stalls (preemptions, timer slack, interrupts) can hold most of the latency
 * of a fast op, and they come and go between runs of the same workload;
 * phase 1's totals and the metric see latency. */
static int significant(const struct osp_peak *p, const struct osp_cmp_opts *o)
{
	return p->share_ops >= o->peak_min_share ||
	       (p->share_lat >= o->peak_lat_share && p->share_ops >= o->peak_lat_ops);
}

static void range_text(const struct osp_peak *p, enum osp_unit u, char *buf, size_t len)
{
	char lo[32], hi[32];
	osp_format_value(p->lo_ns, u, lo, sizeof(lo));
	osp_format_value(p->hi_ns, u, hi, sizeof(hi));
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

/* Significant peaks of one side, with whether each found a partner. */
struct sig {
	unsigned n;
	const struct osp_peak *p[64];
	int matched[64];
};

static void collect(const struct osp_peak *pk, unsigned n, const struct osp_cmp_opts *o,
                    struct sig *s)
{
	s->n = 0;
	for (unsigned k = 0; k < n && s->n < 64; k++)
		if (significant(&pk[k], o)) {
			s->p[s->n] = &pk[k];
			s->matched[s->n++] = 0;
		}
}

static double octaves(const struct osp_peak *a, const struct osp_peak *b)
{
	if (a->mean_ns <= 0 || b->mean_ns <= 0)
		return a->mean_ns == b->mean_ns ? 0 : INFINITY;
	return fabs(log2(b->mean_ns / a->mean_ns));
}

/* Pairs peaks of a and b whose means are within max_oct octaves, closest
 * pairs first (greedy; a handful of peaks). */
static void match(struct sig *a, struct sig *b, double max_oct)
{
	for (;;) {
		double best = INFINITY;
		unsigned bi = 0, bj = 0;
		for (unsigned i = 0; i < a->n; i++)
			for (unsigned j = 0; j < b->n; j++) {
				if (a->matched[i] || b->matched[j])
					continue;
				double d = octaves(a->p[i], b->p[j]);
				if (d < best) {
					best = d;
					bi = i;
					bj = j;
				}
			}
		if (best > max_oct)
			return;
		a->matched[bi] = b->matched[bj] = 1;
	}
}

/* A tight cluster of calls near a bucket boundary lands on either side of
 * it from run to run (tar's xfs writes: 68 calls at 991 ns in one run, at
 * 1.03 us in the next, across the 1,024 ns boundary): a peak whose mean lies
 * within this many octaves of an edge of its buckets is looked for one
 * bucket further on that side too. */
#define OSP_PEAK_EDGE_OCTAVES 0.15

/* An unmatched peak still counts as present on the other side when that
 * side holds at least peak_vanish of its share in the same buckets (it is
 * there, merged into a neighbour or just below significance). */
static int vanished(const struct osp_peak *p, const struct osp_hist *self,
                    const struct osp_hist *other, double vanish)
{
	unsigned first = p->first, last = p->last;
	double m = p->mean_ns > 0 ? log2(p->mean_ns) : 0;
	if (first > 1 && m - log2((double)osp_bucket_lo(first, self->r)) < OSP_PEAK_EDGE_OCTAVES)
		first--;
	if (last + 2 < self->nbuckets &&
	    log2((double)osp_bucket_hi(last, self->r)) - m < OSP_PEAK_EDGE_OCTAVES)
		last++;
	double so = share_in(other, first, last);
	if (so >= vanish * p->share_ops)
		return 0;
	/* And not a sampling accident: the peak's population differs between
	 * the sides by more than two proportions of these sizes would by
	 * chance (a 1-call peak among 13 is not a new peak). */
	return osp_prop_z((double)p->count, (double)self->count, so * (double)other->count,
	                  (double)other->count) >= OSP_DIFF_Z;
}

double osp_prop_z(double ka, double na, double kb, double nb)
{
	if (na <= 0 || nb <= 0)
		return 0;
	double pool = (ka + kb) / (na + nb);
	double se = sqrt(pool * (1 - pool) * (1 / na + 1 / nb));
	double d = fabs(ka / na - kb / nb);
	return se > 0 ? d / se : (d > 0 ? INFINITY : 0);
}

void osp_compare_peaks(const struct osp_hist *a, const struct osp_hist *b,
                       const struct osp_cmp_opts *o, struct osp_peak_cmp *out)
{
	struct osp_cmp_opts def;
	o = osp_cmp_opts_or(o, &def);
	out->differs = 0;
	out->reason[0] = '\0';
	if (!a->count || !b->count || a->r != b->r)
		return;
	unsigned max = a->nbuckets / 2 + 2;
	struct osp_peak *pa = malloc(max * sizeof(*pa)), *pb = malloc(max * sizeof(*pb));
	if (pa && pb) {
		unsigned na = osp_find_peaks(a, &o->peaks, pa, max);
		unsigned nbk = osp_find_peaks(b, &o->peaks, pb, max);
		struct sig sa, sb;
		collect(pa, na < max ? na : max, o, &sa);
		collect(pb, nbk < max ? nbk : max, o, &sb);
		match(&sa, &sb, OSP_PEAK_MATCH_OCTAVES);
		const struct osp_peak *gone = NULL, *added = NULL;
		unsigned ngone = 0, nadded = 0;
		char t1[80], t2[80];
		for (unsigned i = 0; i < sa.n; i++)
			if (!sa.matched[i] && vanished(sa.p[i], a, b, o->peak_vanish)) {
				gone = sa.p[i];
				ngone++;
			}
		for (unsigned j = 0; j < sb.n; j++)
			if (!sb.matched[j] && vanished(sb.p[j], b, a, o->peak_vanish)) {
				added = sb.p[j];
				nadded++;
			}
		out->differs = ngone || nadded;
		if (ngone == 1 && nadded == 1) {
			char m1[32], m2[32];
			osp_format_value((uint64_t)gone->mean_ns, o->unit, m1, sizeof(m1));
			osp_format_value((uint64_t)added->mean_ns, o->unit, m2, sizeof(m2));
			append(out->reason, sizeof(out->reason), "peak moved from %s to %s", m1,
			       m2);
		} else {
			for (unsigned i = 0; i < sa.n; i++)
				if (!sa.matched[i] && vanished(sa.p[i], a, b, o->peak_vanish)) {
					range_text(sa.p[i], o->unit, t1, sizeof(t1));
					append(out->reason, sizeof(out->reason),
					       "peak at %s gone%s", t1, "");
				}
			for (unsigned j = 0; j < sb.n; j++)
				if (!sb.matched[j] && vanished(sb.p[j], b, a, o->peak_vanish)) {
					range_text(sb.p[j], o->unit, t2, sizeof(t2));
					append(out->reason, sizeof(out->reason), "new peak at %s%s",
					       t2, "");
				}
		}
	}
	free(pa);
	free(pb);
}
